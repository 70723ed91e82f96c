import NotiPlay

/// Whether a notification's sound plays, from what listen knows of the desktop: the server's
/// own sounds and its do-not-disturb state. Pure, so the rules are tested without a bus. What
/// the player decides for every daemon comes after these: updates, the rate of sounds
/// (``SoundLimits``) and the ringtone's cap, then the user's quiet hours and do-not-disturb
/// setting (``SoundPolicy``).
struct ListenRules {
    struct Settings: Equatable {
        /// Play even when the server says it plays sounds itself.
        var always = false
    }

    var settings: Settings
    /// The server lists the `sound` capability: it plays notification sounds itself.
    var serverPlaysSound = false
    var dunstPaused = false
    var swayncDoNotDisturb = false

    init(settings: Settings) { self.settings = settings }

    enum Decision: Equatable {
        case play
        /// Nothing plays; the reason, for the log.
        case skip(String)
    }

    /// Decides for one notification.
    func decide(_ request: NotificationRequest) -> Decision {
        if serverPlaysSound && !settings.always { return .skip("the notification server plays its own sounds (--always overrides)") }
        if request.suppressSound { return .skip("suppress-sound") }
        // Critical sounds pass do-not-disturb, as on iOS.
        if request.urgency == .critical { return .play }
        if dunstPaused { return .skip("dunst is paused (do not disturb)") }
        if swayncDoNotDisturb { return .skip("swaync's do not disturb is on") }
        return .play
    }

    /// The server changed: what was known of the old one no longer holds.
    mutating func serverChanged() {
        serverPlaysSound = false
        dunstPaused = false
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

/// The ringtones listen is playing, each until its notification is closed; the player ends one
/// that rings its cap (``SoundLimits/ringCap``), after which it is no longer counted as ringing.
/// A ringtone is known by its Notify call until the server's reply gives the notification's id.
struct Ringtones {
    /// Beyond this many at once, the oldest stops: a flood of calls cannot pile up sounds.
    static let limit = 16

    struct Ringing: Equatable {
        var playback: PlaybackID
        var call: CallKey
        var id: UInt32?
        /// When the player's ring cap ends it (seconds, monotonic); nil: no cap.
        var ends: Double?
    }

    private(set) var ringing: [Ringing] = []

    /// Records a ringtone that started for `call` at `now`, which the player ends after
    /// `ringCap` seconds; returns the playbacks to stop to stay within the limit.
    mutating func started(_ playback: PlaybackID, call: CallKey, at now: Double, ringCap: Double?) -> [PlaybackID] {
        ringing.removeAll { $0.ends.map { $0 <= now } ?? false }  // ended by the cap: nothing to stop
        ringing.append(Ringing(playback: playback, call: call, id: nil, ends: ringCap.map { now + $0 }))
        let excess = max(0, ringing.count - Self.limit)
        defer { ringing.removeFirst(excess) }
        return ringing.prefix(excess).map(\.playback)
    }

    /// The server answered `call` with the notification's id.
    mutating func replied(_ call: CallKey, id: UInt32) {
        if let index = ringing.firstIndex(where: { $0.call == call }) { ringing[index].id = id }
    }

    /// Whether notification `id` is ringing at `now`.
    func isRinging(_ id: UInt32, at now: Double) -> Bool {
        ringing.contains { $0.id == id && ($0.ends.map { $0 > now } ?? true) }
    }

    /// Notification `id` was closed (or replaced by one that does not ring): its ringtone stops.
    mutating func stop(id: UInt32) -> [PlaybackID] { remove { $0.id == id } }

    /// The server refused `call`: no notification, so no ringtone.
    mutating func stop(call: CallKey) -> [PlaybackID] { remove { $0.call == call } }

    mutating func removeAll() -> [PlaybackID] { remove { _ in true } }

    private mutating func remove(where matches: (Ringing) -> Bool) -> [PlaybackID] {
        let stopped = ringing.filter(matches).map(\.playback)
        ringing.removeAll(where: matches)
        return stopped
    }
}
