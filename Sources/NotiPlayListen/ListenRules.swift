import NotiPlay

/// Whether a notification's sound plays, from what listen knows of the desktop: the server's
/// own sounds, its do-not-disturb state and the rate of sounds. Pure (time is given), so the
/// rules are tested without a bus. The user's quiet hours and do-not-disturb setting are the
/// player's (``SoundPolicy``), applied after these.
struct ListenRules {
    struct Settings: Equatable {
        /// Play even when the server says it plays sounds itself.
        var always = false
        /// Seconds: one sound per app in that time.
        var interval: Double = 1
        /// At most this many sounds, of all apps together, in `interval`.
        var burstLimit = 3
    }

    var settings: Settings
    /// The server lists the `sound` capability: it plays notification sounds itself.
    var serverPlaysSound = false
    var dunstPaused = false
    var swayncDoNotDisturb = false

    /// When each app's last sound started; apps not heard from in `interval` are forgotten.
    private var lastSound: [String: Double] = [:]
    /// When the sounds of the last `interval` started, oldest first.
    private var recentStarts: [Double] = []

    init(settings: Settings) { self.settings = settings }

    enum Decision: Equatable {
        case play
        /// Nothing plays; the reason, for the log.
        case skip(String)
    }

    /// Decides for one notification from `app` (its desktop entry or name) at `now` (seconds on
    /// a monotonic clock), and counts it when it plays. `isUpdate`: it replaces a notification
    /// that is still open (`replaces_id`): a progress bar or a track change, silent unless it
    /// names its own sound, is critical or is a call.
    mutating func decide(_ request: NotificationRequest, app: String, isUpdate: Bool = false, at now: Double) -> Decision {
        if serverPlaysSound && !settings.always { return .skip("the notification server plays its own sounds (--always overrides)") }
        if request.suppressSound { return .skip("suppress-sound") }
        if isUpdate && request.soundFile == nil && request.soundName == nil && request.urgency != .critical && !request.sound.isRingtone {
            return .skip("an update of a notification names no sound of its own")
        }
        // Critical sounds pass do-not-disturb and are never rate limited, as on iOS.
        if request.urgency == .critical { return .play }
        if dunstPaused { return .skip("dunst is paused (do not disturb)") }
        if swayncDoNotDisturb { return .skip("swaync's do not disturb is on") }
        forget(before: now - settings.interval)
        if lastSound[app] != nil { return .skip("rate limit: this app's last sound started less than \(settings.interval) s ago") }
        if recentStarts.count >= settings.burstLimit { return .skip("rate limit: \(settings.burstLimit) sounds started in the last \(settings.interval) s") }
        lastSound[app] = now
        recentStarts.append(now)
        return .play
    }

    /// The server changed: what was known of the old one no longer holds.
    mutating func serverChanged() {
        serverPlaysSound = false
        dunstPaused = false
    }

    private mutating func forget(before cutoff: Double) {
        recentStarts.removeAll { $0 <= cutoff }
        // Bounded by the burst limit per interval, so this stays small.
        lastSound = lastSound.filter { $0.value > cutoff }
    }
}

/// The notifications the server has open, as far as listen saw them (the ids of its replies,
/// until closed), so that a `replaces_id` is an update only while its notification is open:
/// a new call in a closed call's slot rings. Bounded: the oldest are forgotten.
struct OpenNotifications {
    static let limit = 1024
    private var ids: [UInt32] = []

    mutating func opened(_ id: UInt32) {
        ids.removeAll { $0 == id }
        ids.append(id)
        if ids.count > Self.limit { ids.removeFirst(ids.count - Self.limit) }
    }

    mutating func closed(_ id: UInt32) { ids.removeAll { $0 == id } }
    mutating func removeAll() { ids.removeAll() }
    func contains(_ id: UInt32) -> Bool { ids.contains(id) }
}

/// The ringtones listen is playing, each until its notification is closed or 30 s pass. A
/// ringtone is known by its Notify call until the server's reply gives the notification's id.
struct Ringtones {
    static let maximumDuration = 30.0
    /// Beyond this many at once, the oldest stops: a flood of calls cannot pile up sounds.
    static let limit = 16

    struct Ringing: Equatable {
        var playback: PlaybackID
        var call: CallKey
        var id: UInt32?
        var deadline: Double
    }

    private(set) var ringing: [Ringing] = []

    /// Records a ringtone that started for `call`; returns the playbacks to stop to stay within the limit.
    mutating func started(_ playback: PlaybackID, call: CallKey, at now: Double) -> [PlaybackID] {
        ringing.append(Ringing(playback: playback, call: call, id: nil, deadline: now + Self.maximumDuration))
        let excess = max(0, ringing.count - Self.limit)
        defer { ringing.removeFirst(excess) }
        return ringing.prefix(excess).map(\.playback)
    }

    /// The server answered `call` with the notification's id.
    mutating func replied(_ call: CallKey, id: UInt32) {
        if let index = ringing.firstIndex(where: { $0.call == call }) { ringing[index].id = id }
    }

    /// Whether notification `id` is ringing.
    func isRinging(_ id: UInt32) -> Bool { ringing.contains { $0.id == id } }

    /// Notification `id` was closed (or replaced by one that does not ring): its ringtone stops.
    mutating func stop(id: UInt32) -> [PlaybackID] { remove { $0.id == id } }

    /// The server refused `call`: no notification, so no ringtone.
    mutating func stop(call: CallKey) -> [PlaybackID] { remove { $0.call == call } }

    /// The ringtones whose 30 s have passed at `now`.
    mutating func expired(at now: Double) -> [PlaybackID] { remove { $0.deadline <= now } }

    mutating func removeAll() -> [PlaybackID] { remove { _ in true } }

    var nextDeadline: Double? { ringing.map(\.deadline).min() }

    private mutating func remove(where matches: (Ringing) -> Bool) -> [PlaybackID] {
        let stopped = ringing.filter(matches).map(\.playback)
        ringing.removeAll(where: matches)
        return stopped
    }
}
