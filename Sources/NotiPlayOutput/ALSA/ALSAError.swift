import CALSA
import CALSASupport

/// A failed ALSA call: which device, what noti-play was doing, and ALSA's own reason.
public struct ALSAError: Error, Sendable, Equatable, CustomStringConvertible {
    public var device: String
    /// What was being done, in words: "cannot open", "cannot set the sample format".
    public var operation: String
    /// ALSA's negative error code (a negated errno).
    public var code: Int32
    /// `snd_strerror(code)`, or a sentence of ours where ALSA gave no code.
    public var reason: String

    /// `package`: another `PCMBackend` fails as ALSA does, with a negated errno.
    package init(device: String, _ operation: String, code: Int32) {
        self.device = device
        self.operation = operation
        self.code = code
        // ALSA's own diagnostic says more than errno: "Unknown PCM nosuchdevice".
        // Plugins end theirs with a newline; the error must stay one line.
        let detail = String(cString: noti_alsa_take_diagnostic())
            .split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: " ")
        self.reason = String(cString: snd_strerror(code)) + (detail.isEmpty ? "" : " (\(detail))")
    }

    init(device: String, _ operation: String, reason: String) {
        self.device = device
        self.operation = operation
        self.code = 0
        self.reason = reason
    }

    public var description: String { "audio device '\(device)': \(operation): \(reason)" }
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

/// Runs ALSA calls with libasound's diagnostics captured on this thread instead of printed (see
/// alsa_support.h): every call noti-play makes into ALSA goes through here, on whichever thread
/// makes it (the caller's, the worker, the render thread). No allocation: real-time safe.
@inline(__always)
func withALSADiagnosticsCaptured<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    noti_alsa_capture_begin()
    defer { noti_alsa_capture_end() }
    return try body()
}

/// Runs an ALSA call that returns a negative code on failure.
@inline(__always)
func check(_ result: Int32, device: String, _ operation: @autoclosure () -> String) throws(ALSAError) {
    if result < 0 { throw ALSAError(device: device, operation(), code: result) }
}
