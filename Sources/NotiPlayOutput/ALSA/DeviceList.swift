import CALSA
import CALSASupport

/// A playback device ALSA knows by name.
public struct PlaybackDevice: Sendable {
    public var name: String
    /// ALSA's description, possibly several lines joined by " — ".
    public var description: String
}

public enum PlaybackDevices {
    /// The PCM names ALSA's configuration declares for playback (`aplay -L`), `default` first.
    /// ALSA's hints list `default` only when its definition asks to be shown (the pulse and
    /// pipewire plugins' do); a card's default is never listed, though it is where every program
    /// plays unless told otherwise, and where noti-play plays without --device.
    public static func list() -> [PlaybackDevice] {
        withALSADiagnosticsCaptured {
            var devices = hinted()
            if let index = devices.firstIndex(where: { $0.name == "default" }) {
                var listed = devices.remove(at: index)
                if listed.description.isEmpty { listed.description = defaultDescription() }
                devices.insert(listed, at: 0)
            } else {
                devices.insert(PlaybackDevice(name: "default", description: defaultDescription()), at: 0)
            }
            return devices
        }
    }

    /// Where `default` goes, read from ALSA's configuration without opening it (opening may
    /// start a sound server or block): the sound server, or the card `defaults.pcm.card` names.
    static func defaultDescription() -> String {
        // Searching a card's definition prints "cannot find card '0'" on a machine without one.
        withALSADiagnosticsCaptured { describeDefault() }
    }

    private static func describeDefault() -> String {
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let top else { return "ALSA's default device (its configuration cannot be read)" }
        defer { snd_config_unref(top) }
        var definition: OpaquePointer?
        guard snd_config_search_definition(top, "pcm", "default", &definition) >= 0, let definition else {
            return "ALSA's default device, not usable here: no sound card or sound server is configured"
        }
        defer { snd_config_delete(definition) }
        var type = ALSAConfiguration.text(of: definition, at: "type")
        if type == nil {
            // `pcm.!default "hw:1"`: another device's name; alsa.conf's own is "cards.pcm.default".
            var alias: UnsafeMutablePointer<CChar>?
            guard snd_config_get_type(definition) == SND_CONFIG_TYPE_STRING, snd_config_get_ascii(definition, &alias) >= 0,
                  let alias = ALSAConfiguration.take(alias) else { return "ALSA's default: a device its configuration defines" }
            guard alias.hasPrefix("cards.") else { return "ALSA's default: the device \(alias)" }
            type = "empty"
        }
        // A device over another one named outright (`type plug slave.pcm "hw:1,0"`).
        if let type, type != "hw", let slave = ALSAConfiguration.text(of: definition, at: "slave.pcm") {
            return "ALSA's default: a \(type) device over \(slave)"
        }
        switch type ?? "" {
        case "pulse": return "ALSA's default: the sound server (PulseAudio, or PipeWire's PulseAudio service)"
        case "pipewire": return "ALSA's default: the PipeWire sound server"
        case "jack": return "ALSA's default: the JACK server"
        case "hw", "empty", "plug", "asym", "dmix", "softvol", "route", "copy", "linear", "rate":
            // A card's default (alsa.conf's pcm.default through cards.pcm.default, `type empty`).
            // alsa.conf's cards.pcm.default takes ALSA_PCM_CARD or ALSA_CARD before defaults.pcm.card...
            let environment = [getenv("ALSA_PCM_CARD"), getenv("ALSA_CARD")].compactMap { $0.map { String(cString: $0) } }.first { !$0.isEmpty }
            // A definition's own `card 1` comes first; alsa.conf's is a function of the above.
            guard let card = ALSAConfiguration.text(of: definition, at: "card") ?? environment ?? ALSAConfiguration.text(of: top, at: "defaults.pcm.card") else { return "ALSA's default: the \(type) device its configuration defines" }
            var name: UnsafeMutablePointer<CChar>?
            let index = snd_card_get_index(card)
            guard index >= 0, snd_card_get_name(index, &name) >= 0, let name else {
                return "ALSA's default: sound card \(card), which is not present"
            }
            defer { free(name) }
            return "ALSA's default: sound card \(index), \(String(cString: name))\(index == 0 ? " (the first card)" : "")"
        case let type:
            return "ALSA's default: the \(type) device its configuration defines"
        }
    }

    private static func hinted() -> [PlaybackDevice] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [PlaybackDevice] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            let name = ALSAConfiguration.take(snd_device_name_get_hint(hint, "NAME"))
            let direction = ALSAConfiguration.take(snd_device_name_get_hint(hint, "IOID"))
            guard let name, direction != "Input" else { continue }
            let text = ALSAConfiguration.take(snd_device_name_get_hint(hint, "DESC")) ?? ""
            devices.append(PlaybackDevice(
                name: name, description: text.split(separator: "\n").joined(separator: " — ")))
        }
        return devices
    }
}
