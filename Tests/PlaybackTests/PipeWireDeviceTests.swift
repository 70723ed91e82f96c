import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// How the command and the library treat the PipeWire device a user names, and what they say
/// about a server that is not there or does not answer: a sink that is not there is refused
/// (never played on the default sink instead), messages name the socket really tried, and
/// `--list-devices` says which server it could not ask. Part of PipeWireTests (serialized, on
/// the rig's private PipeWire).
extension PipeWireTests {
    /// What the sink heard: how many samples of the recording are not silent.
    static func soundingSamples(_ recording: [Int16]) -> Int { recording.count { $0 != 0 } }

    /// PipeWire chosen (`--backend pipewire`) with a device it cannot name (an ALSA PCM, a
    /// PulseAudio sink): refused in one line that says why and what to change, status 1, the
    /// default sink silent. It used to play on the default sink and exit 0.
    @Test func pipeWireChosenRefusesADeviceItCannotName() throws {
        let server = try PipeWireServer()
        let path = try tone("other-device.wav", seconds: 0.5)
        let refusals = [
            "hw:9,9": "PipeWire plays 'default' or 'pipewire:NODE' (see --list-devices; choose one with --device)",
            "pulse:nope": "it names a PulseAudio sink, and the backend is PipeWire: use --backend pulse or --backend auto",
        ]
        for (device, refusal) in refusals {
            var played: ChildProcess?
            let recording = try server.record {
                played = try ChildProcess(TestTools.notiPlay, [path, "--backend", "pipewire", "--device", device],
                                          environment: server.environment, in: folder)
                played?.wait()
            }
            let command = try #require(played)
            #expect(command.wait() == 1, "\(device): \(command.stderr)")
            #expect(command.stderr == "noti-play: audio device '\(device)' (PipeWire): cannot open: \(refusal)\n", "\(command.stderr)")
            #expect(Self.soundingSamples(recording) == 0, "\(device): the default sink played \(Self.soundingSamples(recording)) samples")
        }
    }

    /// `--device pipewire:NAME` with no sink of that name (or no name at all): one line naming
    /// the backend and the sink, status 1, and the null sink (the default) hears nothing. The
    /// rig's real sink, named the same way, plays every sample.
    @Test func aPipeWireSinkThatIsNotThereIsRefusedAndOneThatIsPlays() throws {
        let server = try PipeWireServer()
        try server.setSetting("clock.force-quantum", "2048")  // as theCommandPlaysPipeWireNativelyByDefault
        let path = try tone("named-sink.wav", seconds: 1)
        for device in ["pipewire:no_such_sink", "pipewire:"] {
            var played: ChildProcess?
            let recording = try server.record {
                played = try ChildProcess(TestTools.notiPlay, [path, "--device", device], environment: server.environment, in: folder)
                played?.wait()
            }
            let command = try #require(played)
            #expect(command.wait() == 1, "\(device): \(command.stderr)")
            #expect(command.stderr.split(separator: "\n").count == 1, "\(command.stderr)")
            #expect(command.stderr.hasPrefix("noti-play: audio device '\(device)' (PipeWire): cannot open: "), "\(command.stderr)")
            #expect(command.stderr.contains(device == "pipewire:" ? "it names no node ('pipewire:default' is the server's default)" : "has no sink of that name"), "\(command.stderr)")
            #expect(Self.soundingSamples(recording) == 0, "\(device): the default sink played \(Self.soundingSamples(recording)) samples")
        }

        var played: ChildProcess?
        let recording = try server.record {
            played = try ChildProcess(TestTools.notiPlay, [path, "--device", "pipewire:" + server.sinkName, "--verbose"],
                                      environment: server.environment, in: folder)
            played?.wait()
        }
        let command = try #require(played)
        #expect(command.wait() == 0, "\(command.stderr)")
        #expect(command.stderr.contains(", natively, sink \(server.sinkName)"), "\(command.stderr)")
        let alignment = try Self.alignment(of: recording, with: try Self.expected(path))
        #expect(alignment.mismatch == nil && !alignment.endsEarly, "mismatch \(String(describing: alignment.mismatch)), gaps \(alignment.gaps)")
    }

    /// A sink named by its object.serial, as target.object also takes it, is there too: it plays.
    @Test func aPipeWireSinkNamedByItsSerialPlays() throws {
        let server = try PipeWireServer()
        try server.setSetting("clock.force-quantum", "512")
        let path = try tone("serial-sink.wav", seconds: 0.5)
        let serial = try #require(try server.nodeProperties(where: "node.name", is: server.sinkName).first?["object.serial"] as? Int)
        var played: ChildProcess?
        let recording = try server.record {
            played = try ChildProcess(TestTools.notiPlay, [path, "--device", "pipewire:\(serial)"], environment: server.environment, in: folder)
            played?.wait()
        }
        let command = try #require(played)
        #expect(command.wait() == 0, "\(command.stderr)")
        let alignment = try Self.alignment(of: recording, with: try Self.expected(path))
        #expect(alignment.mismatch == nil && !alignment.endsEarly, "mismatch \(String(describing: alignment.mismatch)), gaps \(alignment.gaps)")
    }

    /// The library, as a host configures it: a sink that is not there fails the sound with the
    /// device's typed error (PipeWire, -ENODEV), and nothing reaches the default sink.
    @Test func theLibraryFailsASoundForAPipeWireSinkThatIsNotThere() throws {
        let server = try PipeWireServer()
        let path = try tone("library-sink.wav", seconds: 0.5)
        var configuration = NotificationSoundPlayer.Configuration(device: "pipewire:no_such_sink", policy: SoundPolicy())
        configuration.pcmBackend = .choosing(nil, from: [.pipeWire(remote: server.socketPath), .alsa])
        let player = NotificationSoundPlayer(configuration: configuration)
        defer { player.close() }
        let report = Locked<PlaybackReport?>(nil)
        let recording = try server.record {
            try player.play(.file(path)) { ended in report.withLock { $0 = ended } }
            try waitUntil("the sound's report", timeout: 10) { report.withLock { $0 != nil } }
        }
        let result = try #require(report.withLock { $0 }).result
        guard case .failed(.device(let error)) = result else {
            Issue.record("the sound ended \(result), not failed by the device")
            return
        }
        #expect(error.backend == .pipewire && error.code == -ENODEV && error.device == "pipewire:no_such_sink", "\(error)")
        #expect(Self.soundingSamples(recording) == 0, "the default sink played \(Self.soundingSamples(recording)) samples")
    }

    /// No server where PIPEWIRE_REMOTE says: the line names the socket looked for (in the
    /// runtime folder, under PIPEWIRE_REMOTE's name), not "pipewire-0" nor "Host is down".
    @Test func noServerNamesTheSocketLookedFor() throws {
        let empty = folder.file("no-server-run")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let path = try tone("no-server.wav", seconds: 0.2)
        let environment = ["XDG_RUNTIME_DIR": empty, "PIPEWIRE_RUNTIME_DIR": empty, "PIPEWIRE_REMOTE": "elsewhere-7"]
        let command = try TestTools.run(TestTools.notiPlay, [path, "--backend", "pipewire"], environment: environment)
        #expect(command.status == 1, "\(command.stderr)")
        #expect(command.stderr.split(separator: "\n").count == 1, "\(command.stderr)")
        #expect(command.stderr.contains("(PipeWire): cannot open: no PipeWire server at \(empty)/elsewhere-7"), "\(command.stderr)")
        #expect(!command.stderr.contains("pipewire-0") && !command.stderr.contains("Host is down"), "\(command.stderr)")
    }

    /// A server whose socket is there but which does not answer (stopped): `--list-devices` says
    /// so in one line on stderr, within its 2 s, and still lists ALSA's devices, status 0.
    @Test func listDevicesSaysWhichServerDidNotAnswerAndListsTheRest() throws {
        let server = try PipeWireServer()
        let answered = try TestTools.run(TestTools.notiPlay, ["--list-devices"], environment: server.environment)
        #expect(answered.status == 0 && answered.stderr.isEmpty, "\(answered.stderr)")
        #expect(answered.stdoutText.contains("pipewire:\(server.sinkName)"), "\(answered.stdoutText)")

        let daemon = try #require(server.daemon)
        daemon.signal(SIGSTOP)
        defer { daemon.signal(SIGCONT) }
        let stopped = try TestTools.run(TestTools.notiPlay, ["--list-devices"], environment: server.environment)
        daemon.signal(SIGCONT)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        let lines = stopped.stderr.split(separator: "\n")
        let pipeWire = lines.filter { $0.contains("(PipeWire)") }
        #expect(pipeWire.count == 1, "\(stopped.stderr)")
        #expect(pipeWire.first?.contains("the PipeWire server at \(server.socketPath) did not answer within 2 s") == true, "\(stopped.stderr)")
        #expect(!stopped.stdoutText.contains("pipewire:"), "\(stopped.stdoutText)")
        // ALSA's devices, the same as when the server answered.
        let alsa = answered.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("pipewire:") && !$0.hasPrefix("default ") }
        #expect(!alsa.isEmpty && alsa.allSatisfy { stopped.stdoutText.contains($0) }, "\(stopped.stdoutText)")
    }

    /// `--backend pulse` on PipeWire's PulseAudio service is refused by design; the line says
    /// which backends play there.
    @Test func backendPulseOnPipeWireSaysWhatToUseInstead() throws {
        let server = try PipeWireServer()
        let path = try tone("pulse-on-pipewire.wav", seconds: 0.2)
        let command = try TestTools.run(TestTools.notiPlay, [path, "--backend", "pulse"], environment: server.environment)
        #expect(command.status == 1, "\(command.stderr)")
        #expect(command.stderr.split(separator: "\n").count == 1, "\(command.stderr)")
        #expect(command.stderr.contains("(PulseAudio): cannot open: the sound server is not PulseAudio itself"), "\(command.stderr)")
        #expect(command.stderr.contains("use --backend pipewire or --backend auto"), "\(command.stderr)")
    }
}

extension PipeWireTests {
    /// A device name of 100 KB with an ESC in it (a script's mistake, or a hostile caller): the
    /// line echoes its first 200 characters, escaped, and "…", not the whole name.
    @Test func aHugeDeviceNameIsEchoedCutAndEscaped() throws {
        let server = try PipeWireServer()
        let path = try tone("huge-name.wav", seconds: 0.2)
        let name = "pipewire:\u{1B}[31m" + String(repeating: "x", count: 100_000)
        let command = try ChildProcess(TestTools.notiPlay, [path, "--device", name], environment: server.environment, in: folder)
        #expect(command.wait() == 1, "\(command.stderr.prefix(500))")
        let line = command.stderr
        #expect(line.split(separator: "\n").count == 1 && line.utf8.count < 600, "\(line.utf8.count) bytes: \(line.prefix(500))")
        #expect(line.hasPrefix("noti-play: audio device 'pipewire:\\x1B[31m" + String(repeating: "x", count: 200 - 14) + "…' (PipeWire): cannot open: "),
                "\(line.prefix(500))")
        #expect(!line.utf8.contains(0x1B), "a raw ESC reached the terminal")
    }
}

extension PipeWireTests {
    /// `pipewire:default` names the server's default node, as `pulse:default` does PulseAudio's
    /// and `default` both: it plays on the rig's default sink, every sample. It used to be taken
    /// for a sink named "default", and refused.
    @Test func pipeWireDefaultPlaysOnTheDefaultSink() throws {
        let server = try PipeWireServer()
        try server.setSetting("clock.force-quantum", "2048")  // as aPipeWireSinkThatIsNotThereIsRefusedAndOneThatIsPlays
        let path = try tone("pipewire-default.wav", seconds: 1)
        var played: ChildProcess?
        let recording = try server.record {
            played = try ChildProcess(TestTools.notiPlay, [path, "--device", "pipewire:default"], environment: server.environment, in: folder)
            played?.wait()
        }
        let command = try #require(played)
        #expect(command.wait() == 0, "\(command.stderr)")
        let alignment = try Self.alignment(of: recording, with: try Self.expected(path))
        #expect(alignment.mismatch == nil && !alignment.endsEarly, "mismatch \(String(describing: alignment.mismatch)), gaps \(alignment.gaps)")
    }

    /// A PipeWire node named with `--backend pulse`, on a desktop that has PipeWire and its
    /// PulseAudio service: one line that says the device is PipeWire's and the backend
    /// PulseAudio, and which backends play it; status 1. It used to say that no PulseAudio
    /// server was configured or running, beside a running one.
    @Test func aPipeWireNodeWithBackendPulseSaysWhichBackendPlaysIt() throws {
        let server = try PipeWireServer()
        let path = try tone("node-with-pulse.wav", seconds: 0.2)
        let device = "pipewire:" + server.sinkName
        let command = try TestTools.run(TestTools.notiPlay, [path, "--device", device, "--backend", "pulse"], environment: server.environment)
        #expect(command.status == 1, "\(command.stderr)")
        #expect(command.stderr == "noti-play: audio device '\(device)' (PulseAudio): cannot open: it names a PipeWire sink, and the backend is PulseAudio: use --backend pipewire or --backend auto\n",
                "\(command.stderr)")
    }

    /// The sink a sound plays on removed while it plays (`pw-cli destroy` of the sink's node, as
    /// unplugging a USB card does): the command says in one line that the device went away, not
    /// the socket's "Transport endpoint is not connected", and exits 1 well before the sound's end.
    @Test func aSinkRemovedWhileItPlaysIsSaidToHaveGoneAway() throws {
        let server = try PipeWireServer()
        let path = try tone("removed-sink.wav", seconds: 10)
        let device = "pipewire:" + server.sinkName
        let command = try ChildProcess(TestTools.notiPlay, [path, "--device", device], environment: server.environment, in: folder)
        try waitUntil("the command's stream on the server", timeout: 10) {
            !(try server.nodeProperties(where: "media.class", is: "Stream/Output/Audio")).isEmpty || command.poll() != nil
        }
        let sink = try #require(try server.nodeProperties(where: "node.name", is: server.sinkName).first?["object.id"] as? Int)
        let destroyed = try TestTools.run("pw-cli", ["destroy", String(sink)], environment: server.environment)
        #expect(destroyed.status == 0, "\(destroyed.stderr)")
        let clock = ContinuousClock(), sent = clock.now
        #expect(command.wait() == 1, "\(command.stderr)")
        #expect(clock.now - sent < .seconds(8), "the command ended \(clock.now - sent) after the sink went")
        #expect(command.stderr == "noti-play: audio device '\(device)' (PipeWire): stopped playing: the device went away: the sound server removed its sink or took the stream\n",
                "\(command.stderr)")
    }
}
