import NotiPlayDecoder
import NotiPlayOutput

/// A notification sound made concrete: the file to play and how, or why nothing plays.
public struct ResolvedSound: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case play(path: String, volume: Float, loops: Bool, isCritical: Bool)
        /// Nothing plays, for a reason a person can read ("quiet hours", "suppress-sound").
        case silent(String)
    }
    public var action: Action
    /// One-line warnings for the user (a sound too long, a configured default that is missing).
    public var warnings: [String] = []
}

/// Turns a `NotificationSound` into a file and a volume: the lookup, the user's policy, and the
/// 30-second rule.
public struct SoundResolver: Sendable {
    public var locator: SoundLocator
    public var policy: SoundPolicy
    /// Sounds this long or longer play the default instead, as on iOS.
    public var maximumDuration: Double = 30
    /// Overrides the policy's quiet hours and do-not-disturb when set (a daemon's own switch).
    public var quietOverride: Bool?

    public init(locator: SoundLocator = SoundLocator(), policy: SoundPolicy = SoundPolicy()) {
        self.locator = locator
        self.policy = policy
    }

    public func resolve(_ sound: NotificationSound, suppressSound: Bool = false) throws(NotificationSoundError) -> ResolvedSound {
        if suppressSound { return ResolvedSound(action: .silent("the notification asks for no sound (suppress-sound)")) }
        let volume: Float
        if sound.isCritical {
            guard sound.criticalVolume.isFinite, (0...1).contains(sound.criticalVolume) else {
                throw .invalidVolume(sound.criticalVolume)
            }
            volume = sound.criticalVolume
        } else {
            if quietOverride ?? policy.isQuietNow() {
                return ResolvedSound(action: .silent(policy.doNotDisturb || quietOverride == true ? "do not disturb is on" : "quiet hours"))
            }
            volume = policy.notificationVolume
        }

        var warnings: [String] = []
        var path: String
        switch sound.source {
        case .systemDefault:
            path = defaultPath(for: sound, warnings: &warnings)
        case .named(let name):
            path = try locator.locate(name)
        case .themeName(let name):
            switch SoundTheme(name: policy.theme).lookup(name) {
            case .file(let file)?: path = file
            case .disabled?: return ResolvedSound(action: .silent("the sound theme switches '\(name)' off"))
            case nil: throw .notFound(SoundName.printable(name), searched: SoundTheme(name: policy.theme).baseFolders)
            }
        case .file(let file):
            path = file
        }

        // The 30-second rule: a long sound gives way to the default, never plays in full.
        if sound.source != .systemDefault {
            let duration = try SoundSources.duration(of: path)
            if duration >= maximumDuration {
                warnings.append("\(path) lasts \(duration.oneDecimal) s; notification sounds must be shorter than \(Int(maximumDuration)) s, so the default sound plays instead")
                path = defaultPath(for: sound, warnings: &warnings)
            }
        }
        return ResolvedSound(action: .play(path: path, volume: volume, loops: sound.isRingtone, isCritical: sound.isCritical), warnings: warnings)
    }

    /// The configured default for the sound's kind, else the bundled one.
    func defaultPath(for sound: NotificationSound, warnings: inout [String]) -> String {
        let (configured, bundled) = sound.isRingtone
            ? (policy.ringtoneSound, "ringtone.caf")
            : sound.isCritical ? (policy.criticalSound, "critical.caf") : (policy.defaultSound, "default.caf")
        if let configured {
            if FileSystem.isRegularFile(configured) { return configured }
            warnings.append("\(configured): the configured sound is missing; using noti-play's own")
        }
        let folder = SoundLocator.bundledFolder ?? "Sounds"
        let file = folder.appendingPath(bundled)
        return FileSystem.isRegularFile(file) ? file : folder.appendingPath("default.caf")
    }
}

extension Double {
    var oneDecimal: String {
        let tenths = Int((self * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
