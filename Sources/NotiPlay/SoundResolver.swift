import NotiPlayDecoder
import NotiPlayOutput

/// A notification sound made concrete: the file to play and how, or why nothing plays.
public struct ResolvedSound: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// The sound, opened and its header read: what plays is what was checked.
        case play(ParsedSound, volume: Float, loops: Bool, isCritical: Bool)
        /// Nothing plays, for a reason a person can read ("quiet hours", "suppress-sound").
        case silent(String)
    }
    public var action: Action
    /// One-line warnings for the user (a sound too long, a configured default that is missing).
    public var warnings: [PlaybackWarning] = []
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
            if let reason = policy.quietReason(override: quietOverride) { return ResolvedSound(action: .silent(reason)) }
            volume = policy.notificationVolume
        }

        var warnings: [PlaybackWarning] = []
        let file: SoundFile?
        switch sound.source {
        case .systemDefault:
            file = nil
        case .named(let name):
            file = SoundFile(try locator.locate(name), formats: .notificationSound)
        case .themeName(let name):
            let theme = SoundTheme(name: policy.theme)
            let answer = theme.lookup(name)
            switch answer.match {
            case .file(let path)?: file = SoundFile(try Self.open(SoundPath(path)), formats: .themeSound)
            case .disabled?: return ResolvedSound(action: .silent("the sound theme switches '\(name)' off"))
            case nil:
                if let stopped = answer.stopped { throw .themeLookupStopped(SoundName.printable(name), stopped) }
                throw .notFound(SoundName.printable(name), searched: theme.baseFolders)
            }
        case .file(let path):
            file = SoundFile(try Self.open(path), formats: .anyReadable)
        case .notificationFile(let path):
            // Relative to what? The daemon's working folder means nothing to the sender.
            guard path.isAbsolute else { throw .unreadable(path.description, "a notification's sound-file must be an absolute path") }
            let opened = try Self.open(path)
            file = SoundFile(opened, formats: .forNotificationFile(opened, themeFolders: SoundTheme.standardBaseFolders))
        }

        var parsed: ParsedSound
        if let file {
            // The 30-second rule: a long sound gives way to the default, never plays in full.
            // The header it judges is the one that plays (``ParsedSound``): it is read once.
            parsed = try ParsedSound(file)
            if parsed.duration >= maximumDuration {
                warnings.append(.init(.tooLong, "\(file.path) lasts \(parsed.duration.oneDecimal) s; notification sounds must be shorter than \(Int(maximumDuration)) s, so the default sound plays instead"))
                parsed = try defaultSound(for: sound, warnings: &warnings)
            }
        } else {
            parsed = try defaultSound(for: sound, warnings: &warnings)
        }
        return ResolvedSound(action: .play(parsed, volume: volume, loops: sound.isRingtone, isCritical: sound.isCritical), warnings: warnings)
    }

    /// What a notification's hints ask for (``NotificationRequest/sound``), with
    /// `UNNotificationSound`'s semantics for names: a sound-name that is a file in the sound
    /// folders is that file, else the theme's sound; a named or theme sound that is not found gives
    /// way to the default sound, with a warning. A sound the caller names directly
    /// (`resolve(_:suppressSound:)`) fails instead, so that the caller hears of the mistake.
    public func resolve(_ request: NotificationRequest) throws(NotificationSoundError) -> ResolvedSound {
        var sound = request.sound
        // A file of that name the sound folders refuse (a symlink) is said, if nothing plays.
        var refused: NotificationSoundError?
        if case .themeName(let name) = sound.source {
            do throws(NotificationSoundError) {
                _ = try locator.locate(name)
                sound.source = .named(name)
            } catch {
                if case .file = error { refused = error }
            }
        }
        do {
            return try resolve(sound, suppressSound: request.suppressSound)
        } catch where error.isNotFound && sound.source != .systemDefault {
            var fallback = NotificationSound.default
            (fallback.isCritical, fallback.isRingtone, fallback.criticalVolume) = (sound.isCritical, sound.isRingtone, sound.criticalVolume)
            var resolved = try resolve(fallback, suppressSound: request.suppressSound)
            resolved.warnings.insert(.init(.notFound, error.description + "; the default sound plays instead"), at: 0)
            if let refused { resolved.warnings.insert(.init(.notFound, refused.description), at: 0) }
            return resolved
        }
    }

    /// Opens a path the caller trusts (it may be a symlink), refusing what is not a regular file.
    static func open(_ path: SoundPath) throws(NotificationSoundError) -> RegularFile {
        do {
            return try RegularFile(path: path.bytes)
        } catch {
            throw .file(path.description, error)
        }
    }

    /// The configured default for the sound's kind when it opens and decodes, else the bundled one.
    func defaultSound(for sound: NotificationSound, warnings: inout [PlaybackWarning]) throws(NotificationSoundError) -> ParsedSound {
        let (configured, bundled) = sound.isRingtone
            ? (policy.ringtoneSound, "ringtone.caf")
            : sound.isCritical ? (policy.criticalSound, "critical.caf") : (policy.defaultSound, "default.caf")
        if let configured {
            // Checked by decoding its header: a configured sound that cannot play must not turn a
            // critical alert into silence.
            do throws(NotificationSoundError) {
                return try ParsedSound(SoundFile(try Self.open(configured), formats: .anyReadable))
            } catch {
                warnings.append(.init(.defaultUnplayable, "\(error.description): the configured sound cannot be played; using noti-play's own"))
            }
        }
        // Never a folder relative to the working directory: a daemon's is anywhere.
        guard let folder = SoundLocator.bundledFolder else {
            throw .notFound(bundled, searched: SoundLocator.bundledCandidates)
        }
        let file = folder.appendingPath(bundled)
        let path = FileSystem.isRegularFile(file) ? file : folder.appendingPath("default.caf")
        return try ParsedSound(SoundFile(try Self.open(SoundPath(path)), formats: .notificationSound))
    }
}

extension Double {
    var oneDecimal: String {
        let tenths = Int((self * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
