import NotiPlayDecoder
import NotiPlayOutput

/// Checks a sound name from a notification before it comes near a file system path.
///
/// A name is a file name, never a path: no `/`, no `..` or `.`, no NUL or control characters,
/// not empty, at most 255 bytes (the longest file name Linux allows).
public enum SoundName {
    public static func validate(_ name: String) throws(NotificationSoundError) {
        let bytes = Array(name.utf8)
        let problem: String?
        if bytes.isEmpty { problem = "it is empty" }
        else if bytes.count > 255 { problem = "it is longer than 255 bytes" }
        else if bytes.contains(UInt8(ascii: "/")) { problem = "it contains '/': a sound name is a file name, not a path" }
        else if name == "." || name == ".." { problem = "'\(name)' is not a file name" }
        else if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { problem = "it contains NUL or control characters" }
        else { problem = nil }
        if let problem {
            throw .invalidName(printable(name), problem)
        }
    }

    /// The name for a message: its first 80 characters, escaped by the one rule for text from
    /// outside (``PrintableText``).
    static func printable(_ name: String) -> String {
        let shown = PrintableText.escaped(String(String.UnicodeScalarView(name.unicodeScalars.prefix(80))))
        return name.unicodeScalars.count > 80 ? shown + "…" : shown
    }
}

/// Why a notification sound cannot be played. Renders as one line.
public enum NotificationSoundError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidName(String, String)
    case notFound(String, searched: [String])
    case unreadable(String, String)
    case invalidVolume(Float)
    /// The device would not open or configure, or stopped while playing.
    case device(ALSAError)
    /// The device did not open within the given seconds (it blocks: held, or its server hangs).
    case deviceTimeout(device: String, seconds: Int)
    /// The device took no sound for the given seconds while the sound played.
    case deviceStalled(device: String, seconds: Int)
    /// An earlier open or write on the device has still not returned: nothing is tried until it has.
    case deviceUnresponsive(device: String)
    /// The engine refused the sound, or decoding failed while it played.
    case playback(PlaybackError)
    /// The player was closed.
    case closed
    /// Refused at once: this many requests of its kind (critical or not) are already waiting to
    /// be looked up (``NotificationSoundPlayer`` bounds its queue).
    case busy(waiting: Int, critical: Bool)
    case attachment(String, String)

    /// One line: whatever a path or a device name holds, control characters are escaped.
    public var description: String { PrintableText.escaped(text) }

    private var text: String {
        switch self {
        case .invalidName(let name, let why): "sound name '\(name)' is refused: \(why)"
        case .notFound(let name, let searched):
            "sound '\(name)' was not found in " + (searched.isEmpty ? "any sound folder" : searched.joined(separator: ", "))
        case .unreadable(let path, let why): "\(path): \(why)"
        case .invalidVolume(let volume): "volume \(volume) is outside 0.0 to 1.0"
        case .device(let error): error.description
        case .deviceTimeout(let device, let seconds):
            "audio device '\(device)': did not open within \(seconds) s (it blocks: held by another program, or its server hangs)"
        case .deviceStalled(let device, let seconds):
            "audio device '\(device)': stopped taking sound (nothing played for \(seconds) s)"
        case .deviceUnresponsive(let device):
            "audio device '\(device)': still not answering (an earlier open or write has not returned); nothing is tried until it does"
        case .playback(let error): error.description
        case .closed: "the player is closed"
        case .busy(let waiting, let critical):
            "too many sounds asked for at once: \(waiting) \(critical ? "critical " : "")requests are already waiting to be looked up, so this one is refused"
        case .attachment(let path, let why): "\(path): not a valid notification attachment: \(why)"
        }
    }
}
