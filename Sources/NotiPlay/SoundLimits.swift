/// The limits a notification daemon puts on its notifications' sounds, so that a burst of
/// notifications is not a burst of sounds and a call nobody answers does not ring for ever.
/// 0 or nil switches a limit off. They apply to ``NotificationRequest``s (a notification's
/// sound); ``NotificationSound``s the host plays itself are never rate limited, only capped
/// when they ring.
public struct SoundLimits: Sendable, Hashable {
    /// Seconds: one sound per app (its desktop entry, else its app name) in that time.
    public var interval: Double?
    /// At most this many sounds of all apps together in `interval`; 0 or nil sets no limit of
    /// its own, and a limit is never above ``mostSoundsPerInterval``.
    public var burstLimit: Int?
    /// Seconds a ringtone rings at most, from its request, unless cancelled before: it then
    /// fades out and ends `finished` (a ringtone ends no other way).
    public var ringCap: Double?

    /// `noti-play listen`'s defaults: one sound per app a second, three of all apps, 30 s of ringing.
    public init(interval: Double? = 1, burstLimit: Int? = 3, ringCap: Double? = 30) {
        self.interval = interval
        self.burstLimit = burstLimit
        self.ringCap = ringCap
    }

    /// No limit at all.
    public static let none = SoundLimits(interval: nil, burstLimit: nil, ringCap: nil)

    /// The most sounds of all apps together in `interval`, whatever `burstLimit` says (0 and nil
    /// included): the rate rule remembers each app it let through until its interval has
    /// passed, and a sender that names a new app in every notification must not grow that
    /// memory. Far more sounds than anyone can tell apart in a second (16 play at once).
    package static let mostSoundsPerInterval = 100

    /// The interval when the rate rule is on (a positive, finite number of seconds).
    var activeInterval: Double? { interval.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } }
    /// The sounds of all apps together that may start in `interval`.
    var activeBurstLimit: Int {
        burstLimit.map { $0 > 0 ? min($0, Self.mostSoundsPerInterval) : Self.mostSoundsPerInterval } ?? Self.mostSoundsPerInterval
    }
    /// The ring cap in seconds when it is on (positive and finite; at most 10^9 s).
    package var activeRingCap: Double? { ringCap.flatMap { $0.isFinite && $0 > 0 ? min($0, 1e9) : nil } }
    var ringCapNanoseconds: UInt64? { activeRingCap.map { UInt64($0 * 1e9) } }
}

/// Whether a notification's sound may play, decided when it is asked for: the request's own
/// flags (an update, hints only) and the rate of sounds. Pure (time is given), so the rules are
/// tested without a device; the player keeps one and decides at each `play` call.
struct RequestRules {
    var limits: SoundLimits

    /// When each app's last sound was let through; apps not heard from in `interval` are forgotten.
    private var lastSound: [String: Double] = [:]
    /// When the sounds of the last `interval` were let through, oldest first.
    private var recentStarts: [Double] = []

    init(limits: SoundLimits) { self.limits = limits }

    /// nil when `request` may play (and it is counted), else why not (it is then `silenced`).
    /// `now`: seconds on a monotonic clock, when it was asked for.
    mutating func silenceReason(for request: NotificationRequest, at now: Double) -> String? {
        // The player silences it for suppress-sound, with that reason: it must not count.
        if request.suppressSound { return nil }
        let sound = request.sound
        let isCritical = request.urgency == .critical
        if request.isUpdate && request.soundFile == nil && request.soundName == nil && !isCritical && !sound.isRingtone {
            return "an update of a notification names no sound of its own"
        }
        // A ringtone names its own sound (the default ringtone): only the plain default is not asked for.
        if request.hintsOnly && sound.source == .systemDefault && !sound.isRingtone {
            return "the notification's hints name no sound, and only hinted sounds play"
        }
        // Critical sounds are never rate limited, as on iOS (the voice limit bounds them).
        if isCritical { return nil }
        guard let interval = limits.activeInterval else { return nil }
        forget(before: now - interval)
        let app = request.appID ?? ""
        if lastSound[app] != nil { return "rate limit: this app's last sound started less than \(interval) s ago" }
        // Every app remembered is one of `recentStarts`: this bounds them both.
        let burstLimit = limits.activeBurstLimit
        if recentStarts.count >= burstLimit {
            return "rate limit: \(burstLimit) sounds started in the last \(interval) s"
        }
        lastSound[app] = now
        recentStarts.append(now)
        return nil
    }

    /// The apps remembered now, for the tests.
    var rememberedApps: Int { lastSound.count }

    private mutating func forget(before cutoff: Double) {
        // `recentStarts` is in order, and every app's last sound is one of them: when the oldest
        // has not expired, nothing has, and the call (under the player's lock) does no more.
        let expired = recentStarts.firstIndex { $0 > cutoff } ?? recentStarts.count
        guard expired > 0 else { return }
        recentStarts.removeFirst(expired)
        lastSound = lastSound.filter { $0.value > cutoff }
    }
}
