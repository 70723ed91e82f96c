import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// The command and the library on the private PipeWire as a desktop has it, through the
/// backend table: natively by default, through pipewire-alsa with `--backend alsa`. Part of
/// PipeWireTests (serialized, run on their own).
extension PipeWireTests {
    /// With nothing chosen, the command finds the PipeWire server and plays it natively: every
    /// decoded sample at the sink, in order, and `--verbose` says which route played.
    @Test func theCommandPlaysPipeWireNativelyByDefault() throws {
        let server = try PipeWireServer()
        // One long cycle throughout (as theSinkHearsEveryDecodedSampleExactlyAndInOrder): a
        // graph that changes its cycle as clients join may drop a cycle's sound in the change,
        // and one whose client misses a short cycle's deadline on a busy machine loses it.
        try server.setSetting("clock.force-quantum", "2048")
        let path = try tone("command.wav", seconds: 1)
        var played: ChildProcess?
        let recording = try server.record {
            played = try ChildProcess(TestTools.notiPlay, [path, "--verbose"], environment: server.environment, in: folder)
            played?.wait()
        }
        let command = try #require(played)
        #expect(command.wait() == 0, "\(command.stderr)")
        #expect(command.stderr.contains("route:       PipeWire 0.3.") && command.stderr.contains(", natively"), "\(command.stderr)")
        let alignment = try Self.alignment(of: recording, with: try Self.expected(path))
        #expect(alignment.mismatch == nil && !alignment.endsEarly, "mismatch \(String(describing: alignment.mismatch)), gaps \(alignment.gaps); \(command.stderr)")
    }

    /// The server killed mid-sound: the command ends with one line and status 1, natively no
    /// later than pw-play, the peer beside it on the same server, ends.
    @Test func theCommandEndsWithOneLineWhenTheServerDiesNatively() throws {
        let server = try PipeWireServer()
        let path = try tone("killed-native.wav", seconds: 10)
        let notiPlay = try ChildProcess(TestTools.notiPlay, [path], environment: server.environment, in: folder)
        let peer = try ChildProcess("pw-play", [path], environment: server.environment, in: folder)
        usleep(1_500_000)
        server.killServer()
        let ended = ChildProcess.waitAll([notiPlay, peer], since: Date())
        #expect(ended[0].0 == 1, "\(notiPlay.stderr)")
        #expect(notiPlay.stderr.split(separator: "\n").count == 1, "\(notiPlay.stderr)")
        #expect(notiPlay.stderr.hasPrefix("noti-play: audio device 'default' (PipeWire): stopped playing: "), "\(notiPlay.stderr)")
        #expect(ended[0].1 <= ended[1].1 + 0.1, "noti-play ended \(ended[0].1) s after the kill, pw-play \(ended[1].1) s")
    }

    /// Through pipewire-alsa the PCM fails again after every recovery once its server is gone
    /// (aplay, beside it, reports underruns for ever): noti-play declares it lost after a few
    /// tries and says so in one line, status 1, instead of spinning in recovery until its stall
    /// watch gives up 5 s later. The CPU it used in all is far from a core's worth.
    @Test func theCommandEndsWithOneLineWhenTheServerDiesUnderPipeWireALSA() throws {
        let server = try PipeWireServer()
        let path = try tone("killed-alsa.wav", seconds: 10)
        let notiPlay = try ChildProcess(TestTools.notiPlay, [path, "--backend", "alsa", "--verbose"],
                                        environment: server.environment, in: folder)
        usleep(1_500_000)
        server.killServer()
        let killed = Date()
        let (status, _) = ChildProcess.waitAll([notiPlay], since: killed)[0]
        #expect(status == 1, "\(notiPlay.stderr)")
        #expect(notiPlay.stderr.contains("noti-play: audio device 'default' (ALSA): stopped playing: it failed again after every recovery"),
                "\(notiPlay.stderr)")
        #expect(!notiPlay.stderr.contains("nothing played for"), "the stall watch, not the recovery's bound, ended it: \(notiPlay.stderr)")
        #expect(notiPlay.cpuSeconds < 1, "noti-play used \(notiPlay.cpuSeconds) s of CPU")
    }

    /// Where only PipeWire's PulseAudio service is in reach (no PipeWire socket: a sandbox that
    /// shares the pulse socket alone) and ALSA's default is its pulse plugin, the direct
    /// PulseAudio route is refused (that service cannot take a queue back) and ALSA plays with
    /// a buffer of its own, short, not the direct route's 500 ms queue, which a stop had to wait
    /// for (390 ms). The stream plays, and SIGINT ends it with the usual status.
    @Test func onPipeWiresPulseServiceALSAKeepsItsOwnShortBuffer() throws {
        let server = try PipeWireServer()
        let configuration = folder.file("pulse-plugin.conf")
        try "pcm.!default { type pulse }\nctl.!default { type pulse }\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        var environment = server.environment
        environment["ALSA_CONFIG_PATH"] = configuration
        environment["PIPEWIRE_RUNTIME_DIR"] = folder.file("no-pipewire-here")
        environment["XDG_RUNTIME_DIR"] = folder.file("no-pipewire-here")
        let path = try tone("pulse-service.wav", seconds: 10)
        let notiPlay = try ChildProcess(TestTools.notiPlay, [path, "--verbose"], environment: environment, in: folder)
        // (A dump taken while a node is being made may be cut: that one is asked again.)
        try waitUntil("the stream on the server", timeout: 10) {
            (try? server.nodeProperties(where: "media.class", is: "Stream/Output/Audio"))?.isEmpty == false || notiPlay.poll() != nil
        }
        usleep(300_000)
        notiPlay.signal(SIGINT)
        let status = notiPlay.wait()
        #expect(status == 130 || status == 0, "\(notiPlay.stderr)")
        #expect(notiPlay.stderr.contains("route:       ALSA 'default' through the pulse plugin"), "\(notiPlay.stderr)")
        let buffer = notiPlay.stderr.split(separator: "\n").first { $0.contains("period:") }?
            .split(separator: "(").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect(buffer.map { $0 <= 100 } == true, "buffer \(String(describing: buffer)) ms: \(notiPlay.stderr)")
    }

    /// Through pipewire-alsa the stream still says it is a notification: the plugin reads its
    /// role from the PCM's definition, where noti-play puts it.
    @Test func throughPipeWireALSATheStreamIsANotification() throws {
        let server = try PipeWireServer()
        let path = try tone("alsa-role.wav", seconds: 3)
        let notiPlay = try ChildProcess(TestTools.notiPlay, [path, "--backend", "alsa"], environment: server.environment, in: folder)
        var role: String?
        try waitUntil("the stream's node", timeout: 10) {
            role = try server.nodeProperties(where: "application.name", is: "PipeWire ALSA [noti-play]").first?["media.role"] as? String
            return role != nil
        }
        notiPlay.signal(SIGINT)
        notiPlay.wait()
        #expect(role == "Notification")
    }
}
