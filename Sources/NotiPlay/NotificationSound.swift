import NotiPlayDecoder

/// A notification's sound, as `UNNotificationSound` describes it, for Linux.
///
/// ```swift
/// let sound = NotificationSound.criticalSoundNamed("alarm.caf", withAudioVolume: 0.8)
/// ```
/// A *name* comes from a notification and is untrusted: it is a file name, looked up only in the
/// allowed sound folders (see ``SoundLocator``). A *file* is a path from a trusted caller.
public struct NotificationSound: Sendable, Hashable, CustomStringConvertible {
    public enum Source: Sendable, Hashable {
        /// The default sound (the critical default for critical sounds, the default ringtone for
        /// ringtones), as the user's configuration names it, else the bundled one.
        case systemDefault
        /// A file name, looked up in the allowed folders.
        case named(String)
        /// A freedesktop Sound Naming name (`message-new-instant`), looked up in the sound theme.
        case themeName(String)
        /// A path, for trusted callers such as the command line.
        case file(SoundPath)
        /// A path from a notification (the `sound-file` hint): untrusted, so only a regular
        /// file in a notification sound's formats plays, or a theme sound's inside a sound theme
        /// folder (``SoundFormats/forNotificationFile(_:themeFolders:)``).
        case notificationFile(SoundPath)
    }

    public var source: Source
    /// Critical alerts play at their own volume, pass quiet hours and fade out other sounds.
    public var isCritical: Bool
    /// Ringtones loop until cancelled.
    public var isRingtone: Bool
    /// The linear volume (0…1) of a critical sound; other sounds play at the notification volume.
    public var criticalVolume: Float

    public init(source: Source, isCritical: Bool = false, isRingtone: Bool = false, criticalVolume: Float = 1) {
        self.source = source
        self.isCritical = isCritical
        self.isRingtone = isRingtone
        self.criticalVolume = criticalVolume
    }

    public static let `default` = NotificationSound(source: .systemDefault)
    public static func named(_ name: String) -> Self { .init(source: .named(name)) }

    public static let defaultCritical = NotificationSound(source: .systemDefault, isCritical: true)
    public static func defaultCriticalSound(withAudioVolume volume: Float) -> Self {
        .init(source: .systemDefault, isCritical: true, criticalVolume: volume)
    }
    public static func criticalSoundNamed(_ name: String) -> Self {
        .init(source: .named(name), isCritical: true)
    }
    public static func criticalSoundNamed(_ name: String, withAudioVolume volume: Float) -> Self {
        .init(source: .named(name), isCritical: true, criticalVolume: volume)
    }

    public static let defaultRingtone = NotificationSound(source: .systemDefault, isRingtone: true)
    public static func ringtoneSoundNamed(_ name: String) -> Self {
        .init(source: .named(name), isRingtone: true)
    }

    /// A sound from the freedesktop sound theme, by its Sound Naming name.
    public static func themeSound(_ name: String) -> Self { .init(source: .themeName(name)) }
    /// A sound file by path, for trusted callers.
    public static func file(_ path: String) -> Self { .init(source: .file(SoundPath(path))) }
    /// A sound file by a path's bytes (a file name need not be UTF-8).
    public static func file(bytes path: [UInt8]) -> Self { .init(source: .file(SoundPath(bytes: path))) }

    public var description: String {
        let what: String
        switch source {
        case .systemDefault: what = isRingtone ? "the default ringtone" : isCritical ? "the default critical sound" : "the default sound"
        case .named(let name): what = "'\(name)'"
        case .themeName(let name): what = "theme sound '\(name)'"
        case .file(let path), .notificationFile(let path): what = path.description
        }
        return what + (isCritical ? " (critical, volume \(criticalVolume))" : "") + (isRingtone && source != .systemDefault ? " (ringtone)" : "")
    }
}

/// A file path as the file system knows it: bytes, which need not be UTF-8.
public struct SoundPath: Sendable, Hashable, CustomStringConvertible {
    public var bytes: [UInt8]
    public init(_ path: String) { bytes = Array(path.utf8) }
    public init(bytes: [UInt8]) { self.bytes = bytes }
    /// Whether it starts at `/`: a relative path means the working folder of whatever process
    /// plays it, which is nothing to whoever named it.
    public var isAbsolute: Bool { bytes.first == UInt8(ascii: "/") }
    /// The path for messages, control characters and bytes that are not UTF-8 escaped; one longer
    /// than any the system opens (PATH_MAX, 4096 bytes) is cut there, so a message stays a line
    /// a person can read.
    public var description: String {
        bytes.count <= 4096 ? PrintableText.path(bytes) : PrintableText.path(Array(bytes.prefix(4096))) + "…"
    }
}
