import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// Reading ALSA's configuration tree, for what is decided before a device opens: where
/// `default` goes (`PlaybackDevices`), whether a PCM is a sound server's plugin (`serverPlugin(of:)`).
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

extension ALSAConfiguration {
    /// A PCM definition that sends the device to a sound server's plugin.
    struct ServerPlugin {
        /// "pulse" or "pipewire".
        var type: String
        private var values: [String: String]

        /// A field of the definition: the server, the sink (`device`, `playback_node`).
        func text(at key: String) -> String? { values[key] }

        init(type: String, values: [String: String]) {
            self.type = type
            self.values = values
        }
    }

    /// ALSA's definition of `device` where it is a sound server's plugin (`type pulse`, the
    /// desktop default with PulseAudio; `type pipewire`, pipewire-alsa's), read without opening
    /// the device; nil for any other definition. `pcm.!default "pulse"` names another definition:
    /// followed a few steps, no further.
    static func serverPlugin(of device: String) -> ServerPlugin? {
        // Searching a card's definition prints "cannot find card '0'" on a machine without one.
        withALSADiagnosticsCaptured { findServerPlugin(of: device) }
    }

    private static func findServerPlugin(of device: String) -> ServerPlugin? {
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let top else { return nil }
        defer { snd_config_unref(top) }
        var name = device
        for _ in 0..<4 {
            var definition: OpaquePointer?
            guard snd_config_search_definition(top, "pcm", name, &definition) >= 0, let definition else { return nil }
            defer { snd_config_delete(definition) }
            if snd_config_get_type(definition) == SND_CONFIG_TYPE_STRING {
                var alias: UnsafePointer<CChar>?
                guard snd_config_get_string(definition, &alias) >= 0, let alias else { return nil }
                name = String(cString: alias)
                continue
            }
            guard let type = text(of: definition, at: "type"), type == "pulse" || type == "pipewire" else { return nil }
            var values: [String: String] = [:]
            for key in ["server", "device", "playback_node"] { values[key] = text(of: definition, at: key) }
            return ServerPlugin(type: type, values: values)
        }
        return nil
    }
}
