import Foundation
import NotiPlayTestSupport
import Testing

/// ALSA's jack plugin (libasound2-plugins) with no JACK server: libjack prints five lines of its
/// own straight to stderr; the user sees only noti-play's one line (and libjack's with --verbose).
@Suite struct JackDeviceTests {
    let folder = TemporaryDirectory("jack")
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    func play(_ extra: [String]) throws -> ProcessResult {
        let config = folder.file("jack.conf")
        try "pcm.jack { type jack playback_ports { 0 system:playback_1 1 system:playback_2 } }\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        // A server name nobody runs, and no jackd started for it: the plugin fails as on a desktop without JACK.
        return try TestTools.run(TestTools.notiPlay, [repository + "/Sounds/default.caf", "--device", "jack"] + extra, environment: [
            "ALSA_CONFIG_PATH": config, "JACK_DEFAULT_SERVER": "noti-play-test-\(getpid())", "JACK_NO_START_SERVER": "1",
        ])
    }

    @Test func onlyNotiPlaysOwnLineIsShown() throws {
        let result = try play([])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: audio device 'jack' (ALSA): cannot open: No such file or directory (see --list-devices; choose one with --device)\n")
    }

    /// The test above sees libjack at work: with --verbose its lines are left as they come.
    @Test func verboseLeavesLibjacksLines() throws {
        let result = try play(["--verbose"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Cannot connect to server"), "the jack plugin did not run: \(result.stderr)")
        #expect(result.stderr.hasSuffix("noti-play: audio device 'jack' (ALSA): cannot open: No such file or directory (see --list-devices; choose one with --device)\n"))
    }
}
