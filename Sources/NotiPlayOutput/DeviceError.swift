import NotiPlayDecoder
#if canImport(Glibc)
import Glibc
#endif

/// The sound systems noti-play plays through, each behind `PCMBackend`: a desktop's sound
/// server natively (PipeWire, PulseAudio), or ALSA (ALSA-only systems and named ALSA devices).
public enum AudioBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case pipewire, pulse, alsa

    /// The name people know it by: "PipeWire", "PulseAudio", "ALSA".
    public var description: String {
        switch self {
        case .pipewire: "PipeWire"
        case .pulse: "PulseAudio"
        case .alsa: "ALSA"
        }
    }
}

extension AudioBackend {
    /// The prefix by which a device name names a node of this server (`pipewire:NAME`,
    /// `pulse:NAME`); nil for ALSA, whose device names are its configuration's.
    package var nodePrefix: String? {
        switch self {
        case .pipewire: "pipewire:"
        case .pulse: "pulse:"
        case .alsa: nil
        }
    }

    /// The server whose node `device` names by its prefix; nil for `default` and ALSA's names.
    package static func server(namedBy device: String) -> AudioBackend? {
        allCases.first { $0.nodePrefix.map(device.hasPrefix) ?? false }
    }

    /// The node `device` names on this server; nil for the server's default node, which
    /// `default` and `PREFIX:default` name alike.
    package func node(namedBy device: String) -> String? {
        guard let prefix = nodePrefix, device.hasPrefix(prefix), device != prefix + "default" else { return nil }
        return String(device.dropFirst(prefix.count))
    }

    /// Why this server's backend does not play `device`, or nil: a server's backend plays
    /// `default` and its own `PREFIX:NODE` names, never another's, nor one of ALSA's, nor a
    /// `PREFIX:` that names nothing.
    package func refusal(of device: String) -> String? {
        guard let prefix = nodePrefix, device != "default" else { return nil }
        if device == prefix { return "it names no node ('\(prefix)default' is the server's default)" }
        if device.hasPrefix(prefix) { return nil }
        if let other = AudioBackend.server(namedBy: device) {
            return "it names a \(other) sink, and the backend is \(self)"
        }
        return "\(self) plays 'default' or '\(prefix)NODE'"
    }
}

/// A failed device call, in every backend's words alike: which device, through which backend,
/// what noti-play was doing, and the system's own reason.
public struct DeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var device: String
    public var backend: AudioBackend
    /// What was being done, in words: "cannot open", "cannot set the sample format".
    public var operation: String
    /// A negated errno (ALSA's codes are), or 0 where the backend gave none.
    public var code: Int32
    /// The backend's own reason, one line, or a sentence of ours where it gave none.
    public var reason: String

    package init(device: String, backend: AudioBackend, _ operation: String, code: Int32 = 0, reason: String) {
        self.device = device
        self.backend = backend
        self.operation = operation
        self.code = code
        // A server's or a plugin's words may end in a newline: the error stays one line.
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: " ")
    }

    /// A device that stopped taking sound while it played (the player's stall watch, the
    /// command's wait for the drain).
    package static func stalled(device: String, backend: AudioBackend, reason: String) -> DeviceError {
        DeviceError(device: device, backend: backend, "stopped taking sound", reason: reason)
    }

    /// A failure given as a negated errno, in the system's words; in ours where those name a
    /// socket's state rather than what became of the device.
    package init(device: String, backend: AudioBackend, _ operation: String, errno code: Int32) {
        let reason = switch -code {
        // A server's stream whose node it destroyed: the sink it was held to was removed (a
        // stream that names its sink does not move to another), or a mixer took the stream.
        case ENOTCONN: "the device went away: the sound server removed its sink or took the stream"
        default: String(cString: strerror(-code))
        }
        self.init(device: device, backend: backend, operation, code: code, reason: reason)
    }

    /// One line; the device's name escaped and cut at `DeviceError.nameShown` characters (a name
    /// comes from the user or a configuration file, and may be anything, of any length).
    public var description: String {
        "audio device '\(PrintableText.escaped(device, atMost: Self.nameShown))' (\(backend)): \(operation): \(reason)"
    }

    /// The most characters of a device's name a message shows.
    public static let nameShown = 200
}

extension StringProtocol {
    /// `self` without the characters of `set` at either end (without Foundation).
    package func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
