import NotiPlayDecoder
import NotiPlayOutput

/// Checks a sound name from a notification before it comes near a file system path.
///
/// A name is a file name, never a path: no `/`, no `..` or `.`, no NUL or control characters,
/// not empty, at most 255 bytes (the longest file name Linux allows). The same rule keeps an app
/// id and a theme name to one folder.
public enum SoundName {
    /// What a checked name names, for its message.
    public enum Use: Sendable {
        case soundName, appID, themeName

        /// Why a `/` is refused, in the terms of what the name is for.
        var notAPath: String {
            switch self {
            case .soundName: "a sound name is a file name, not a path"
            case .appID: "an app id names one folder (noti-play/apps/ID/sounds), not a path"
            case .themeName: "a theme name names one folder (sounds/NAME), not a path"
            }
        }
    }

    public static func validate(_ name: String) throws(NotificationSoundError) {
        if let problem = problem(with: name, as: .soundName) {
            throw .invalidName(printable(name), problem)
        }
    }

    /// Why `name` cannot be used as one path component, or nil.
    public static func problem(with name: String, as use: Use) -> String? {
        let bytes = name.utf8
        if bytes.isEmpty { return "it is empty" }
        if bytes.count > 255 { return "it is longer than 255 bytes" }
        if bytes.contains(UInt8(ascii: "/")) { return "it contains '/': \(use.notAPath)" }
        if name == "." || name == ".." { return "'\(name)' is not a file name" }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "it contains NUL or control characters" }
        return nil
    }

    /// The name for a message: its first 80 characters, escaped by the one rule for text from
    /// outside (``PrintableText``).
    static func printable(_ name: String) -> String { PrintableText.escaped(name, atMost: 80) }
}

/// What is wrong with a sound file, as a host acts on it: fix the path or its permissions,
/// convert the file, or replace a broken one (noti-play.h gives each its own error code).
public enum FileProblem: Sendable, Equatable {
    /// It could not be read: not there, a symbolic link where none is followed, not a regular
    /// file, no permission, over the size limit, or a notification's path that is not absolute.
    case unreadable
    /// It is in a format noti-play does not play, or not one allowed where it lies (Ogg or FLAC
    /// outside a sound-theme folder), or its reader (libsndfile, libFLAC) is not installed.
    case unsupportedFormat
    /// Its format is one noti-play plays, but the file is broken: a header value out of range, a
    /// structure that does not hold, data cut short.
    case malformed

    /// The problem that a file reader's or decoder's error of this kind names.
    public init(_ kind: DecodingError.Kind) {
        switch kind {
        case .io: self = .unreadable
        case .unknownContainer, .unsupported: self = .unsupportedFormat
        case .malformed, .truncated: self = .malformed
        }
    }
}

/// Why a notification sound cannot be played. Renders as one line.
public enum NotificationSoundError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidName(String, String)
    case notFound(String, searched: [String])
    /// The theme lookup of the name did the most work one lookup may (``SoundTheme/Limits``)
    /// without finding it: the name and why.
    case themeLookupStopped(String, String)
    /// A sound file that cannot be played: its path, what is wrong with it as a kind a host
    /// acts on, and why in words (see ``unreadable(_:_:)`` and ``file(_:_:)``).
    case file(String, FileProblem, String)
    case invalidVolume(Float)
    /// Settings a host gave ``NotificationSoundPlayer/configure(_:)`` that can never apply: why.
    case invalidSetting(String)
    /// The device would not open or configure, or stopped while playing.
    case device(DeviceError)
    /// The device did not open within the given seconds (it blocks: held, or its server hangs),
    /// through the backend that was to play it.
    case deviceTimeout(device: String, backend: AudioBackend, seconds: Int)
    /// The device took no sound for the given seconds while the sound played.
    case deviceStalled(device: String, backend: AudioBackend, seconds: Int)
    /// An earlier open or write on the device has still not returned: nothing is tried until it has.
    case deviceUnresponsive(device: String)
    /// The engine refused the sound, or decoding failed while it played.
    case playback(PlaybackError)
    /// The player was closed.
    case closed
    /// Refused at once: this many requests of its kind (critical or not) are already waiting to
    /// be looked up (``NotificationSoundPlayer`` bounds its queue).
    case busy(waiting: Int, critical: Bool)
    /// Refused at once: this many ids of its kind (critical or not) are not answered yet, their
    /// callbacks held up by one that is slow or blocked (``NotificationSoundPlayer`` bounds them).
    case unanswered(waiting: Int, critical: Bool)
    case attachment(String, String)

    /// A file that could not be read: `path`, and why.
    public static func unreadable(_ path: String, _ why: String) -> Self { .file(path, .unreadable, why) }

    /// A file that the file reader or the decoder refused (`error` says which problem).
    public static func file(_ path: String, _ error: DecodingError) -> Self { .file(path, FileProblem(error.kind), error.message) }

    /// The path of the file this error is about, escaped, or nil when it is about none.
    public var filePath: String? {
        if case .file(let path, _, _) = self { path } else { nil }
    }

    /// Whether the sound is not there (or was not found within a lookup's bounds): a
    /// notification's sound then gives way to the default.
    public var isNotFound: Bool {
        switch self {
        case .notFound, .themeLookupStopped: true
        default: false
        }
    }

    /// One line: whatever a path or a device name holds, control characters are escaped.
    public var description: String { PrintableText.escaped(text) }

    private var text: String {
        switch self {
        case .invalidName(let name, let why): "sound name '\(name)' is refused: \(why)"
        case .notFound(let name, let searched):
            "sound '\(name)' was not found in " + (searched.isEmpty ? "any sound folder" : searched.joined(separator: ", "))
        case .themeLookupStopped(let name, let why): "sound '\(name)' was not found: \(why)"
        case .file(let path, _, let why): "\(path): \(why)"
        case .invalidVolume(let volume): "volume \(volume) is outside 0.0 to 1.0"
        case .invalidSetting(let why): "settings refused: \(why)"
        case .device(let error): error.description
        // The player's own deadlines, in a device failure's words (one format: DeviceError's).
        case .deviceTimeout(let device, let backend, let seconds):
            DeviceError(device: device, backend: backend, "did not open within \(seconds) s",
                        reason: "it blocks: held by another program, or its server hangs").description
        case .deviceStalled(let device, let backend, let seconds):
            DeviceError.stalled(device: device, backend: backend, reason: "nothing played for \(seconds) s").description
        case .deviceUnresponsive(let device):
            "audio device '\(device)': still not answering (an earlier open or write has not returned); nothing is tried until it does"
        case .playback(let error): error.description
        case .closed: "the player is closed"
        case .busy(let waiting, let critical):
            "too many sounds asked for at once: \(waiting) \(critical ? "critical " : "")requests are already waiting to be looked up, so this one is refused"
        case .unanswered(let waiting, let critical):
            "too many sounds not yet answered: \(waiting) \(critical ? "critical " : "")requests wait for their callbacks (a callback is slow or blocked), so this one is refused"
        case .attachment(let path, let why): "\(path): not a valid notification attachment: \(why)"
        }
    }
}
