import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// Reading ALSA's configuration tree, for what is decided before a device opens: where
/// `default` goes (`PlaybackDevices`), whether a PCM is PulseAudio's plugin (`PulseRoute`).
enum ALSAConfiguration {
    /// A configuration node's value as text (`snd_config_get_ascii`), or nil.
    static func text(of node: OpaquePointer, at key: String) -> String? {
        var found: OpaquePointer?
        guard snd_config_search(node, key, &found) >= 0, let found else { return nil }
        var value: UnsafeMutablePointer<CChar>?
        guard snd_config_get_ascii(found, &value) >= 0, let value else { return nil }
        return take(value)
    }

    /// Copies and frees a string ALSA allocated.
    static func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
