import Foundation
import NotiPlayTestSupport
import Testing

/// `noti-play --list-devices` starts with `default`, where noti-play plays without --device,
/// and says where it goes, read from the ALSA configuration in force (ALSA_CONFIG_PATH).
@Suite struct DeviceListTests {
    let folder = TemporaryDirectory("device-list")

    /// The listed lines, as (name, description), under an ALSA configuration of `text`.
    func list(_ name: String, _ text: String) throws -> [(name: String, description: String)] {
        let path = folder.file(name + ".conf")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try TestTools.run(TestTools.notiPlay, ["--list-devices"], environment: ["ALSA_CONFIG_PATH": path])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        return result.stdoutText.split(separator: "\n").map { line in
            let name = line.prefix { $0 != " " }
            return (String(name), line.dropFirst(name.count).trimmingCharacters(in: .whitespaces))
        }
    }

    /// ALSA's hints leave out a `default` that does not ask to be shown, as alsa.conf's own.
    @Test(arguments: [
        ("pulse", "pcm.!default { type pulse }", "ALSA's default: the sound server (PulseAudio, or PipeWire's PulseAudio service)"),
        ("pipewire", "pcm.!default { type pipewire }", "ALSA's default: the PipeWire sound server"),
        ("card", "defaults.pcm.card 5\npcm.!default { type hw card 5 }", "ALSA's default: sound card 5, which is not present"),
        ("file", "pcm.!default { type file slave.pcm \"null\" file \"/dev/null\" }", "ALSA's default: a file device over null"),
        ("alias", "pcm.!default \"hw:1\"", "ALSA's default: the device hw:1"),
        ("plug", "pcm.!default { type plug slave.pcm \"hw:1,0\" }", "ALSA's default: a plug device over hw:1,0"),
        ("shown", "pcm.!default { type pulse hint.show on }", "ALSA's default: the sound server (PulseAudio, or PipeWire's PulseAudio service)"),
        ("none", "", "ALSA's default device, not usable here: no sound card or sound server is configured"),
    ])
    func defaultComesFirstAndSaysWhereItGoes(name: String, definition: String, description: String) throws {
        let devices = try list(name, definition + "\npcm.speaker { type null hint { show on description \"A speaker\" } }\n")
        #expect(devices.map(\.name) == ["default", "speaker"])
        #expect(devices.first?.description == description)
        #expect(devices.last?.description == "A speaker")
    }

    /// Under ALSA's own configuration on a machine without a sound card (a container, CI), the
    /// list prints no "ALSA lib … cannot find card '0'" lines: looking where `default` goes
    /// captures ALSA's diagnostics as every other call does (there were seven).
    @Test func alsasOwnConfigurationWithoutACardPrintsNoALSADiagnostics() throws {
        let result = try TestTools.run(TestTools.notiPlay, ["--list-devices"],
                                       environment: ["XDG_RUNTIME_DIR": folder.path, "PIPEWIRE_RUNTIME_DIR": folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("ALSA lib"), "\(result.stderr)")
        #expect(result.stdoutText.hasPrefix("default "), "\(result.stdoutText)")
    }

    /// Names and descriptions from the configuration reach the terminal escaped, one line each.
    @Test func aDescriptionCannotSteerTheTerminal() throws {
        let devices = try list("escape", "pcm.!default { type pulse }\npcm.evil { type null hint { show on description \"a\\033[2Jb\" } }\n")
        #expect(devices.map(\.name) == ["default", "evil"])
        #expect(devices.last?.description == "a\\x1B[2Jb")
    }

    /// A `default` ALSA lists itself (the pulse plugin's, with its own words) moves first, once.
    @Test func aListedDefaultMovesFirstWithItsOwnDescription() throws {
        let devices = try list("hinted", """
            pcm.aaa { type null hint { show on description "Listed first by ALSA" } }
            pcm.!default { type null hint { show on description "Playback through the sound server" } }
            """)
        #expect(devices.map(\.name) == ["default", "aaa"])
        #expect(devices.first?.description == "Playback through the sound server")
    }
}
