import Foundation
import NotiPlayTestSupport
import Testing

/// Devices that fail, as a user meets them: no sound card, a device that blocks, a sound server
/// killed in the middle of a sound, a device that refuses the rate or the sample format.
/// Each ends with one line and status 1 (or plays, converted, with status 0), never a hang.
@Suite struct DeviceFaultTests {
    let folder = TemporaryDirectory("device-faults")

    func tone(_ name: String, seconds: Double, rate: Int = 44100, channels: Int = 2) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("sox", [
            "-n", "-r", String(rate), "-c", String(channels), "-b", "16", path, "synth", String(seconds), "sine", "440", "vol", "0.3",
        ])
        return path
    }

    /// Runs `noti-play ARGS` with `environment` and returns the status, stderr and seconds taken.
    func notiPlay(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, stderr: String, seconds: Double) {
        let start = Date()
        let child = try ChildProcess(TestTools.notiPlay, arguments, environment: environment, in: folder)
        let status = child.wait()
        return (status, child.stderr, Date().timeIntervalSince(start))
    }

    func alsaConfig(_ name: String, _ text: String) throws -> [String: String] {
        let path = folder.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return ["ALSA_CONFIG_PATH": path]
    }

    func oneLine(_ stderr: String) -> Bool { stderr.hasSuffix("\n") && stderr.dropLast().split(separator: "\n").count == 1 }

    // MARK: No device

    /// A container or server with no sound card and no sound server: ALSA knows no `default`.
    @Test func noSoundCardAtAllIsOneLineWithAHint() throws {
        let path = try tone("none.wav", seconds: 0.1)
        let result = try notiPlay([path], environment: try alsaConfig("empty.conf", ""))
        #expect(result.status == 1)
        #expect(oneLine(result.stderr), "\(result.stderr)")
        #expect(result.stderr.hasPrefix("noti-play: audio device 'default' (ALSA): cannot open: No such file or directory (Unknown PCM default)"))
        #expect(result.stderr.contains("--list-devices"))
    }

    /// A device name of 100 KB with an ESC in it: the line echoes its first 200 characters,
    /// escaped, then "…" (ALSA's own reason, which names the PCM, is bounded by ALSA's message).
    @Test func aHugeDeviceNameIsEchoedCutAndEscaped() throws {
        let path = try tone("huge.wav", seconds: 0.2)
        let name = "\u{1B}[31m" + String(repeating: "y", count: 100_000)
        let result = try notiPlay([path, "--device", name], environment: try alsaConfig("huge.conf", ""))
        #expect(result.status == 1)
        #expect(oneLine(result.stderr) && result.stderr.utf8.count < 1000, "\(result.stderr.utf8.count) bytes: \(result.stderr.prefix(500))")
        #expect(result.stderr.hasPrefix("noti-play: audio device '\\x1B[31m" + String(repeating: "y", count: 195) + "…' (ALSA): cannot open: "),
                "\(result.stderr.prefix(500))")
        #expect(!result.stderr.utf8.contains(0x1B), "a raw ESC reached the terminal")
    }

    // MARK: A device that blocks

    /// ALSA's file plugin writing into a FIFO: with no reader its open blocks, as a device held
    /// by another program that never lets go, or a server that accepts and never answers.
    func fifoDevice(_ name: String) throws -> (fifo: String, environment: [String: String]) {
        let fifo = folder.file("\(name).fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let environment = try alsaConfig("\(name).conf", """
            pcm.!default { type file slave.pcm { type null } file "\(fifo)" format "raw" }
            """)
        return (fifo, environment)
    }

    @Test func aDeviceThatNeverOpensIsGivenUpAfterFiveSeconds() throws {
        let path = try tone("blocked.wav", seconds: 0.2)
        let device = try fifoDevice("noreader")
        let result = try notiPlay([path], environment: device.environment)
        #expect(result.status == 1)
        #expect(oneLine(result.stderr), "\(result.stderr)")
        #expect(result.stderr.contains("audio device 'default' (ALSA): did not open within 5 s: it blocks"), "\(result.stderr)")
        #expect(result.seconds >= 5 && result.seconds < 7, "took \(result.seconds) s")
    }

    /// The table tries PipeWire first, whose socket is stale (a server that crashed: the socket
    /// file is there and refuses at once), then ALSA, whose device blocks: the deadline names
    /// ALSA, the backend the open was stuck in, not the first it tried.
    @Test func aDeviceThatNeverOpensNamesTheBackendItIsStuckIn() throws {
        let path = try tone("blocked-after.wav", seconds: 0.2)
        let device = try fifoDevice("noreader-after")
        let runtime = folder.file("stale-run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        // Bound, then closed without listening: connecting is refused.
        try TestTools.runChecked("python3", ["-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", runtime + "/pipewire-0"])
        let environment = device.environment.merging([
            "XDG_RUNTIME_DIR": runtime, "PIPEWIRE_RUNTIME_DIR": runtime, "PIPEWIRE_REMOTE": "", "PULSE_SERVER": "",
        ]) { $1 }
        let result = try notiPlay([path], environment: environment)
        #expect(result.status == 1)
        #expect(oneLine(result.stderr), "\(result.stderr)")
        #expect(result.stderr.contains("audio device 'default' (ALSA): did not open within 5 s: it blocks"), "\(result.stderr)")
    }

    /// The device opens and takes the first 64 KiB (the pipe's buffer), then nothing more: the
    /// reader holds it and never reads. Five seconds without progress end it.
    @Test func aDeviceThatStopsTakingSoundIsGivenUpAfterFiveSecondsWithoutProgress() throws {
        let path = try tone("stalled.wav", seconds: 0.5)
        let device = try fifoDevice("stalled")
        let holder = try ChildProcess("sh", ["-c", "exec sleep 30 < '\(device.fifo)'"], in: folder)
        defer { holder.signal(SIGKILL); holder.wait() }
        let result = try notiPlay([path], environment: device.environment)
        #expect(result.status == 1)
        #expect(oneLine(result.stderr), "\(result.stderr)")
        #expect(result.stderr.contains("audio device 'default' (ALSA): stopped taking sound: "), "\(result.stderr)")
        #expect(result.seconds >= 5 && result.seconds < 7.5, "took \(result.seconds) s")
        #expect(result.stderr.contains("nothing played for 5 s"), "\(result.stderr)")
    }

    @Test func sigintWhileTheDeviceBlocksEndsAtOnce() throws {
        let path = try tone("interrupt.wav", seconds: 0.2)
        let device = try fifoDevice("interrupt")
        let child = try ChildProcess(TestTools.notiPlay, [path], environment: device.environment, in: folder)
        usleep(500_000)
        let signalled = Date()
        child.signal(SIGINT)
        #expect(child.wait() == 130)
        #expect(Date().timeIntervalSince(signalled) < 0.5)
        #expect(child.stderr.isEmpty, "\(child.stderr)")
    }

    // MARK: The sound server goes away

    @Test func killingTheSoundServerMidSoundEndsWithOneLineAtOnce() throws {
        let server = try PulseServer.makePrivate()
        let pid = try #require(server.pid, "the private PulseAudio wrote no pid file")
        let path = try tone("long.wav", seconds: 5)
        let child = try ChildProcess(TestTools.notiPlay, [path], environment: server.environment, in: folder)
        usleep(1_000_000)
        let killed = Date()
        kill(pid, SIGKILL)
        let status = child.wait()
        let after = Date().timeIntervalSince(killed)
        #expect(status == 1, "\(child.stderr)")
        #expect(after < 1, "noti-play took \(after) s to notice")
        #expect(oneLine(child.stderr), "\(child.stderr)")
        #expect(child.stderr.hasPrefix("noti-play: audio device 'default' (PulseAudio): stopped playing: "), "\(child.stderr)")
    }

    /// The sound server stops taking sound (its sink suspended), then SIGINT: the fade cannot
    /// be heard, and the command lets go about a second after the signal, as the signal wait
    /// allows, not after the drain's 5 s stall rule (it took 5.6 s once the render thread waited
    /// for room before mixing).
    @Test func sigintWhileTheServerTakesNoSoundEndsWithinASecond() throws {
        let server = try PulseServer.makePrivate()
        let path = try tone("suspended.wav", seconds: 10)
        let child = try ChildProcess(TestTools.notiPlay, [path], environment: server.environment, in: folder)
        usleep(1_000_000)
        let suspended = try TestTools.run("pactl", ["--server=unix:" + server.socket, "suspend-sink", server.sinkName, "1"], environment: server.environment)
        #expect(suspended.status == 0, "\(suspended.stderr)")
        usleep(500_000)
        let signalled = Date()
        child.signal(SIGINT)
        let status = child.wait()
        let after = Date().timeIntervalSince(signalled)
        #expect(status == 130, "\(child.stderr)")
        #expect(after < 2.5, "noti-play took \(after) s to end after SIGINT")
        #expect(child.stderr.isEmpty, "\(child.stderr)")
    }

    // MARK: The device's reader goes away

    /// ALSA's file plugin writing into a command that reads 100 bytes and exits: the next write
    /// raised SIGPIPE, which ended noti-play without a word (status 141).
    @Test func aDeviceWhoseReaderLeftIsOneLineAndStatusOne() throws {
        let path = try tone("pipe.wav", seconds: 1)
        let device = "file:\"|head -c 100 >/dev/null\""
        let result = try notiPlay([path, "--device", device], environment: [:])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == "noti-play: audio device '\(device)' (ALSA): its output was closed: Broken pipe\n")
        #expect(result.seconds < 5, "took \(result.seconds) s")
    }

    /// The same through a FIFO whose reader takes 100 bytes and exits.
    @Test func aFIFOWhoseReaderLeftIsOneLineAndStatusOne() throws {
        let path = try tone("fifo-reader.wav", seconds: 1)
        let device = try fifoDevice("leaving")
        let reader = try ChildProcess("sh", ["-c", "exec head -c 100 < '\(device.fifo)' > /dev/null"], in: folder)
        defer { reader.signal(SIGKILL); reader.wait() }
        let result = try notiPlay([path], environment: device.environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == "noti-play: audio device 'default' (ALSA): its output was closed: Broken pipe\n")
        #expect(result.seconds < 5, "took \(result.seconds) s")
    }

    // MARK: Rates and formats the device does not take

    /// PulseAudio plays up to 384 kHz: the stream opens at that rate, its nearest, and the 1 MHz
    /// sound is converted to it (it was refused before the player resampled).
    @Test func aRateTheDeviceCannotPlayIsConvertedToItsNearestRate() throws {
        let server = try PulseServer.makePrivate()
        let path = try tone("megahertz.wav", seconds: 0.05, rate: 1_000_000, channels: 1)
        let result = try notiPlay([path, "--verbose"], environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("device:      default: FLOAT, 384000 Hz, 1 channel(s)"), "\(result.stderr)")
        #expect(result.stderr.contains("sound:       1000000 Hz, 1 channel(s), resampled to 384000 Hz\n"), "\(result.stderr)")
    }

    /// ALSA's `linear` plugin in front of an S16 device takes integer samples only: noti-play
    /// falls back from FLOAT to S32 and plays; forced to FLOAT it is refused in one line.
    @Test func aDeviceWithoutFloatGetsIntegersAndRefusesForcedFloat() throws {
        let path = try tone("integers.wav", seconds: 0.1)
        let capture = folder.file("integers.raw")
        let environment = try alsaConfig("linear.conf", """
            pcm.!default { type linear slave { pcm { type file slave.pcm { type null } file "\(capture)" format "raw" } format S16_LE } }
            """)
        let played = try notiPlay([path, "--verbose"], environment: environment)
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stderr.contains("device:      default: S32, 44100 Hz"), "\(played.stderr)")
        #expect(played.stderr.contains("sound:       44100 Hz, 2 channel(s)\n"), "\(played.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: capture))
        #expect(bytes.count == 4410 * 2 * 2)  // every frame reached the S16 device

        let forced = try notiPlay([path, "--sample-format", "FLOAT"], environment: environment)
        #expect(forced.status == 1)
        #expect(oneLine(forced.stderr), "\(forced.stderr)")
        #expect(forced.stderr.hasPrefix("noti-play: audio device 'default' (ALSA): cannot set the sample format: it takes none of FLOAT"), "\(forced.stderr)")
    }
}
