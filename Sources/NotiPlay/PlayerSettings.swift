/// The settings a host drives from its own configuration (a daemon's config file, its pause
/// switch), over the user's `noti-play.conf`: a field set here wins; a field left nil comes
/// from `noti-play.conf` (or, with `readsUserConfiguration` false, from the defaults).
/// ``NotificationSoundPlayer/configure(_:)`` takes them at any time; each call replaces the
/// last one's settings whole.
public struct PlayerSettings: Sendable, Equatable {
    /// 0…1: the linear volume of non-critical sounds (`notification-volume`).
    public var notificationVolume: Float?
    /// The freedesktop sound theme for sound names (`theme`).
    public var theme: String?
    /// Absolute paths of the default notification, critical and ringtone sounds
    /// (`default-sound`, `critical-sound`, `ringtone-sound`): the host's own, trusted; their
    /// bytes are opened as given.
    public var defaultSound: SoundPath?
    public var criticalSound: SoundPath?
    public var ringtoneSound: SoundPath?
    /// Silences non-critical sounds (`do-not-disturb`); turned on, it also ends those playing.
    public var doNotDisturb: Bool?
    /// Seconds: one notification's sound per app in that time; 0 switches the rule off
    /// (``SoundLimits/interval``).
    public var rateInterval: Double?
    /// Sounds of all apps together per interval; 0 switches the rule off.
    public var burstLimit: Int?
    /// Seconds a ringtone rings at most; 0 switches the cap off.
    public var ringCap: Double?
    /// Whether the fields left nil come from the user's `noti-play.conf` (true) or the defaults.
    public var readsUserConfiguration: Bool

    public init(
        notificationVolume: Float? = nil, theme: String? = nil, defaultSound: SoundPath? = nil, criticalSound: SoundPath? = nil,
        ringtoneSound: SoundPath? = nil, doNotDisturb: Bool? = nil, rateInterval: Double? = nil, burstLimit: Int? = nil,
        ringCap: Double? = nil, readsUserConfiguration: Bool = true
    ) {
        self.notificationVolume = notificationVolume
        self.theme = theme
        self.defaultSound = defaultSound
        self.criticalSound = criticalSound
        self.ringtoneSound = ringtoneSound
        self.doNotDisturb = doNotDisturb
        self.rateInterval = rateInterval
        self.burstLimit = burstLimit
        self.ringCap = ringCap
        self.readsUserConfiguration = readsUserConfiguration
    }

    /// Why these settings can never apply, or nil.
    func problem() -> String? {
        if let volume = notificationVolume, !(volume.isFinite && (0...1).contains(volume)) {
            return "the notification volume \(volume) is outside 0.0 to 1.0"
        }
        if let theme, let why = SoundName.problem(with: theme, as: .themeName) {
            return "theme '\(SoundName.printable(theme))' is refused: \(why)"
        }
        for (name, path) in [("default", defaultSound), ("critical", criticalSound), ("ringtone", ringtoneSound)] {
            guard let path else { continue }
            if path.bytes.isEmpty || path.bytes.contains(0) { return "the \(name) sound's path is empty or holds NUL" }
            if !path.isAbsolute {
                return "the \(name) sound's path '\(path)' is not absolute: it would be opened from the working folder at each sound"
            }
        }
        for (name, seconds) in [("rate interval", rateInterval), ("ring cap", ringCap)] {
            if let seconds, !(seconds.isFinite && seconds >= 0) { return "the \(name) \(seconds) s is not 0 or more seconds" }
        }
        if let burstLimit, burstLimit < 0 { return "the burst limit \(burstLimit) is below 0" }
        return nil
    }

    /// `base` (noti-play.conf's, or the defaults) with the fields set here.
    func applied(to base: SoundPolicy) -> SoundPolicy {
        var policy = base
        if let notificationVolume { policy.notificationVolume = notificationVolume }
        if let theme { policy.theme = theme }
        if let defaultSound { policy.defaultSound = defaultSound }
        if let criticalSound { policy.criticalSound = criticalSound }
        if let ringtoneSound { policy.ringtoneSound = ringtoneSound }
        if let doNotDisturb { policy.doNotDisturb = doNotDisturb }
        return policy
    }

    /// `base` (the player's configuration's) with the limits set here; 0 is off.
    func applied(to base: SoundLimits) -> SoundLimits {
        var limits = base
        if let rateInterval { limits.interval = rateInterval > 0 ? rateInterval : nil }
        if let burstLimit { limits.burstLimit = burstLimit > 0 ? burstLimit : nil }
        if let ringCap { limits.ringCap = ringCap > 0 ? ringCap : nil }
        return limits
    }
}
