import CALSA
import CALSASupport

/// A playback device ALSA knows by name.
public struct PlaybackDevice: Sendable {
    public var name: String
    /// ALSA's description, possibly several lines joined by " — ".
    public var description: String
}

public enum PlaybackDevices {
    /// The PCM names ALSA's configuration declares for playback (`aplay -L`).
    public static func list() -> [PlaybackDevice] {
        withALSADiagnosticsCaptured { hinted() }
    }

    private static func hinted() -> [PlaybackDevice] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [PlaybackDevice] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            let name = take(snd_device_name_get_hint(hint, "NAME"))
            let direction = take(snd_device_name_get_hint(hint, "IOID"))
            guard let name, direction != "Input" else { continue }
            let text = take(snd_device_name_get_hint(hint, "DESC")) ?? ""
            devices.append(PlaybackDevice(
                name: name, description: text.split(separator: "\n").joined(separator: " — ")))
        }
        return devices
    }

    /// Copies and frees a string ALSA allocated.
    private static func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
