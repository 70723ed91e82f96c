import CALSA
import CALSASupport

extension DeviceError {
    /// A failed ALSA call: ALSA's negative error code, and its reason with ALSA's own diagnostic.
    /// `package`: the tests' scripted device fails as ALSA does.
    package init(alsaDevice device: String, _ operation: String, code: Int32) {
        // ALSA's own diagnostic says more than errno: "Unknown PCM nosuchdevice".
        let detail = String(cString: noti_alsa_take_diagnostic())
            .split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: " ")
        self.init(device: device, backend: .alsa, operation, code: code,
                  reason: String(cString: snd_strerror(code)) + (detail.isEmpty ? "" : " (\(detail))"))
    }

    /// An ALSA device refused something in noti-play's words.
    init(alsaDevice device: String, _ operation: String, reason: String) {
        self.init(device: device, backend: .alsa, operation, reason: reason)
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
func check(_ result: Int32, device: String, _ operation: @autoclosure () -> String) throws(DeviceError) {
    if result < 0 { throw DeviceError(alsaDevice: device, operation(), code: result) }
}
