import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// The native PipeWire backend (`PCMBackend.pipeWire`) on a private PipeWire with a null sink
/// (`PipeWireServer`: pipewire, wireplumber and pipewire-pulse on their own runtime folder and
/// session bus), through a `PlaybackEngine` in this process, its sink's monitor recorded with
/// parec. Serialized, and run on their own by scripts/test.sh: they play against the graph's
/// real clock.
@Suite(.serialized) struct PipeWireTests {
    let folder = TemporaryDirectory("pipewire-tests")

    /// A 16-bit stereo tone at the graph's 48 kHz, written by sox.
    func tone(_ name: String, seconds: Double) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("sox", [
            "-n", "-r", "48000", "-c", "2", "-b", "16", path, "synth", String(seconds), "sine", "440", "sine", "660", "vol", "0.5",
        ])
        return path
    }

    /// An engine on the rig's server, as a host would open it: it converts sounds to the rate
    /// agreed, so the stream opens at the graph's.
    func engine(
        on server: PipeWireServer, periodMilliseconds: Int = 10, periods: Int = 3, properties: StreamProperties = StreamProperties(),
        drainWhenIdle: Bool = true, rampMilliseconds: Double = 10
    ) throws -> PlaybackEngine {
        let request = PCMRequest(
            sampleRate: 48000, channelCount: 2, formats: [.float32], periodMicroseconds: periodMilliseconds * 1000,
            periodsPerBuffer: periods, acceptsNearestRate: true, properties: properties, prefersServerRate: true)
        return try PlaybackEngine(backend: .pipeWire(remote: server.socketPath), device: "default", request: request,
                                  drainWhenIdle: drainWhenIdle, rampMilliseconds: rampMilliseconds)
    }

    /// The decoded sound as the sink's S16 monitor returns it (a 16-bit source comes back exactly).
    static func expected(_ path: String) throws -> [Int] {
        try SoundDecoder(path: path).readAll().map { Int(($0 * 32768).rounded()) }
    }

    /// The recording lined up with the sound from the first frame whose left sample is not
    /// silent in either (as `PulseTests.soundingRange` finds the recording's: sox's dither may
    /// make a right sample of the first frame ±1 while the left one is 0).
    static func alignment(of recording: [Int16], with expected: [Int]) throws -> SinkAlignment {
        let range = try #require(PulseTests.soundingRange(recording), "the sink heard nothing")
        return SinkAlignment(expected: expected, recorded: recording, channels: 2, expectedStart: try soundStart(expected),
                             recordedStart: range.lowerBound)
    }

    /// The sound's first frame whose left sample is not silent.
    static func soundStart(_ expected: [Int]) throws -> Int {
        try #require(stride(from: 0, to: expected.count, by: 2).first { expected[$0] != 0 }) / 2
    }

    /// Every decoded sample reaches the sink, exactly (Float32 stream, the 16-bit source back from
    /// the S16 monitor) and in order, from the first to the last: nothing lost between the ring
    /// and the server's buffers, nothing resampled. The graph's cycle is fixed at 512 frames for
    /// the test (2048 frames, 43 ms), so that silence the sink inserts where the stream was late
    /// (a busy machine) can be told from a lost sample: it comes between two of the stream's
    /// buffers, at a multiple of the cycle of the sound; anything else fails. The cycle is long
    /// because PipeWire itself loses a cycle whenever a client (the stream, or pipewire-pulse
    /// recording the monitor) misses its deadline: at 512 frames (10.7 ms) that happened in 2 of
    /// 18 runs on a loaded machine, and once in CI. It is also longer than the engine's whole
    /// 30 ms buffer: the stream learns the cycle from the server's first buffer, and must not
    /// take its ring (or its first period) for a whole cycle and pad the rest with silence.
    @Test func theSinkHearsEveryDecodedSampleExactlyAndInOrder() throws {
        let cycle = 2048
        let server = try PipeWireServer()
        try server.setSetting("clock.force-quantum", String(cycle))
        let path = try tone("exact.wav", seconds: 1.5)
        let engine = try engine(on: server)
        #expect(engine.format.sampleRate == 48000 && engine.format.route.hasPrefix("PipeWire 0.3.") && engine.format.route.contains(", natively"),
                "\(engine.format)")
        #expect(engine.format.speakers == [.frontLeft, .frontRight], "\(engine.format)")
        let outcome = Locked<VoiceOutcome?>(nil)
        let recording = try server.record {
            try engine.play(try SoundDecoder(path: path)) { result in outcome.withLock { $0 = result } }
            engine.finish()
        }
        #expect(outcome.withLock { $0 } == .finished)
        let alignment = try Self.alignment(of: recording, with: try Self.expected(path))
        let seen = "\(alignment.gaps.count) runs of inserted silence (\(alignment.gaps))"
        #expect(alignment.mismatch == nil, "sample lost, changed or out of order at \(String(describing: alignment.mismatch)); \(seen)")
        #expect(!alignment.endsEarly, "the recording ends after \(alignment.matchedFrames) frames; \(seen)")
        #expect(alignment.gaps.allSatisfy { $0.isAtPeriodBoundary(cycle) }, "silence inside a graph cycle: \(seen)")
    }

    /// The stream says who plays it and what it is: the desktop's rules for notification
    /// sounds (their volume, ducking) and its mixers see a notification of the host's
    /// application, named after the sound.
    @Test func theStreamCarriesTheHostsPropertiesAndANotificationsRole() throws {
        let server = try PipeWireServer()
        let properties = StreamProperties(applicationName: "Chat", applicationID: "org.example.Chat", mediaName: "message-new-instant")
        let engine = try engine(on: server, properties: properties, drainWhenIdle: false)
        defer { engine.close() }
        try engine.play(try SoundDecoder(path: try tone("props.wav", seconds: 3)))
        var nodes: [[String: Any]] = []
        try waitUntil("the stream's node on the server", timeout: 10) {
            nodes = try server.nodeProperties(where: "application.id", is: "org.example.Chat")
            return !nodes.isEmpty
        }
        let node = nodes[0].compactMapValues { $0 as? String }
        #expect(nodes.count == 1)
        #expect(node["media.type"] == "Audio" && node["media.category"] == "Playback" && node["media.role"] == "Notification", "\(node)")
        #expect(node["application.name"] == "Chat" && node["node.name"] == "org.example.Chat", "\(node)")
        #expect(node["media.name"] == "message-new-instant", "\(node)")
        // The cycle asked for: the request's 10 ms period.
        #expect(node["node.latency"] == "480/48000", "\(node)")
    }

    /// Asked for no rate of its own (a caller that converts every sound to the rate agreed), the
    /// stream opens at the graph's clock rate, as the server says it now (a forced rate first),
    /// so that the server resamples nothing; asked for a rate, it opens at that rate.
    @Test func theStreamOpensAtTheGraphsClockRate() throws {
        let server = try PipeWireServer()
        try server.setSetting("clock.force-rate", "44100")
        let forced = try engine(on: server, drainWhenIdle: false)
        #expect(forced.format.sampleRate == 44100)
        forced.close()
        try server.setSetting("clock.force-rate", "0")
        let free = try engine(on: server, drainWhenIdle: false)
        #expect(free.format.sampleRate == 48000)
        free.close()
        let asked = try PlaybackEngine(backend: .pipeWire(remote: server.socketPath), device: "default",
                                       request: PCMRequest(sampleRate: 22050, channelCount: 1))
        #expect(asked.format.sampleRate == 22050 && asked.format.speakers == [.frontCenter])
        asked.close()
    }

    /// A stop replaces what the stream had not yet given the server (its ring: here 300 ms) with
    /// a fade of it: the sound under a falling gain, continuing exactly where it was, then
    /// silence. How soon: the stop is to be heard as soon after `stop` as the sound's start was
    /// heard after its first write, both waiting only for the server's own cycle; without the
    /// take-back it would come the whole ring later. Compared with that start in the same run,
    /// with half the ring as the margin, not with a wall-clock bound.
    @Test func aStopIsHeardAsAFadeWithinTheServersCycleNotAfterTheRing() throws {
        let server = try PipeWireServer()
        let path = try tone("long.wav", seconds: 5)
        // 5 ms ramps (240 frames, within PulseTests.fadeProblem's 221 + 40), into a ring of 300 ms.
        let engine = try engine(on: server, periodMilliseconds: 20, periods: 15, rampMilliseconds: 5)
        var stopped: UInt64 = 0
        let recording = try server.record(latencyMilliseconds: 10) {
            let id = try engine.play(try SoundDecoder(path: path))
            usleep(1_000_000)
            stopped = monotonicNanoseconds()
            engine.stop(id)
            engine.finish()
        }
        let expected = try Self.expected(path)
        let alignment = try Self.alignment(of: recording, with: expected)
        if let problem = PulseTests.fadeProblem(expected: expected, recorded: recording, alignment: alignment) {
            Issue.record("\(problem); \(alignment.gaps.count) runs of inserted silence (\(alignment.gaps))")
        }
        let firstWrite = try #require(engine.firstWriteNanoseconds)
        let fadeHeard = try #require(alignment.mismatch?.expectedFrame, "no fade")
        // Seconds of sound heard before the fade, less the time from the first write to the stop
        // (the sink's inserted silence counts as heard time too): how much later the stop was
        // heard than the start.
        let heard = Double(fadeHeard - (try Self.soundStart(expected)) + alignment.silentFrames) / 48000
        let lateness = heard - Double(stopped - firstWrite) / 1e9
        #expect(lateness < 0.150, "the stop was heard \(lateness * 1000) ms later than the start (the ring holds 300 ms)")
    }

    /// The server killed mid-sound (a crash): the voice ends `failed` with the device's error
    /// within the issue's 100 ms; while the server is away nothing of the engine's spins (its
    /// threads and libpipewire's use under 5 % of a core over a second); once the server is
    /// back, a new engine plays on it.
    @Test func aServerThatGoesAwayFailsTheVoiceAndTheNextEngineFindsTheNewServer() throws {
        let server = try PipeWireServer()
        let before = Set(Self.threads())
        let engine = try engine(on: server, drainWhenIdle: false)
        defer { engine.close() }
        let ended = Locked<(VoiceOutcome, UInt64)?>(nil)
        try engine.play(try SoundDecoder(path: try tone("crash.wav", seconds: 10))) { outcome in
            ended.withLock { $0 = (outcome, monotonicNanoseconds()) }
        }
        usleep(500_000)
        server.killServer()
        let killed = monotonicNanoseconds()
        try waitUntil("the voice to end", timeout: 5) { ended.withLock { $0 != nil } }
        let (outcome, at) = try #require(ended.withLock { $0 })
        guard case .failed(.device(let error)) = outcome else {
            Issue.record("the voice ended \(outcome), not failed by the device")
            return
        }
        #expect(error.code == -ECONNRESET, "\(error)")
        // Signed: the voice may fail before killServer() has seen its server end.
        let after = Double(Int64(at) - Int64(killed)) / 1e6
        #expect(after < 100, "the voice failed \(after) ms after the server died")

        // The engine's threads (the render thread, its worker, libpipewire's data thread) are
        // those started since it opened.
        let threads = Set(Self.threads()).subtracting(before)
        let cpuBefore = Self.cpuSeconds(of: threads)
        let window = Date()
        usleep(1_000_000)
        let used = Self.cpuSeconds(of: threads) - cpuBefore
        let elapsed = Date().timeIntervalSince(window)
        #expect(used < 0.05 * elapsed, "\(threads.count) threads used \(used * 1000) ms of CPU in \(elapsed * 1000) ms without a server")

        server.stop(SIGKILL)
        try server.start()
        try server.setSetting("clock.force-quantum", "512")  // one cycle length throughout, as above
        let path = try tone("after.wav", seconds: 0.5)
        let next = try self.engine(on: server)
        let recording = try server.record { try next.play(try SoundDecoder(path: path)); next.finish() }
        let alignment = try Self.alignment(of: recording, with: try Self.expected(path))
        #expect(alignment.mismatch == nil && !alignment.endsEarly, "\(alignment.gaps)")
    }

    /// A stream taken away while it plays (its node destroyed, as a mixer or `pw-cli destroy`
    /// does; the server stays): the voice ends `failed` with -ENOTCONN, as soon as after a
    /// server's loss, not after the render thread's one-second wait for room.
    @Test func aStreamTheServerDestroysFailsTheVoice() throws {
        let server = try PipeWireServer()
        let engine = try engine(on: server, properties: StreamProperties(applicationID: "org.example.Dropped"), drainWhenIdle: false)
        defer { engine.close() }
        let ended = Locked<(VoiceOutcome, UInt64)?>(nil)
        try engine.play(try SoundDecoder(path: try tone("dropped.wav", seconds: 5))) { outcome in
            ended.withLock { $0 = (outcome, monotonicNanoseconds()) }
        }
        var node: Int?
        try waitUntil("the stream's node on the server", timeout: 10) {
            node = try server.nodeProperties(where: "application.id", is: "org.example.Dropped").first?["object.id"] as? Int
            return node != nil
        }
        let destroyed = try TestTools.run("pw-cli", ["destroy", String(try #require(node))], environment: server.environment)
        let sent = monotonicNanoseconds()
        #expect(destroyed.status == 0, "\(destroyed.stderr)")
        try waitUntil("the voice to end", timeout: 5) { ended.withLock { $0 != nil } }
        let (outcome, at) = try #require(ended.withLock { $0 })
        guard case .failed(.device(let error)) = outcome else {
            Issue.record("the voice ended \(outcome), not failed by the device")
            return
        }
        #expect(error.code == -ENOTCONN, "\(error)")
        #expect(Double(Int64(at) - Int64(sent)) / 1e6 < 100, "the voice failed \(Double(Int64(at) - Int64(sent)) / 1e6) ms after pw-cli returned")
    }

    /// A stream held open between sounds (a daemon's) never keeps the sink from playing for
    /// other clients. The server waits for a client's answers when the graph starts or a link
    /// changes, and a sink does not start while a stream on it owes one: a stream whose loop ran
    /// only inside the render thread's calls (as libpulse's can) stalled the sink for everyone,
    /// here pw-play, until its next sound. One engine never played, one played and drained.
    @Test func aStreamHeldOpenBetweenSoundsNeverStallsTheSinkForOthers() throws {
        let server = try PipeWireServer()
        let fresh = try engine(on: server, drainWhenIdle: false)
        defer { fresh.close() }
        let idle = try engine(on: server, drainWhenIdle: false)
        defer { idle.close() }
        let played = Locked<VoiceOutcome?>(nil)
        try idle.play(try SoundDecoder(path: try tone("short.wav", seconds: 0.2))) { outcome in played.withLock { $0 = outcome } }
        try waitUntil("the idle engine's sound to end", timeout: 10) { played.withLock { $0 != nil } }
        usleep(200_000)  // drained and idle
        let path = try tone("other.wav", seconds: 0.5)
        var status: Int32 = -1
        let recording = try server.record {
            status = try TestTools.run("pw-play", [path], environment: server.environment).status
        }
        #expect(status == 0)
        // All of it but the last part of a graph cycle, which pw-play (0.3.65) itself loses: its
        // drain ends before the server's converter has given a short last buffer.
        let alignment = try Self.alignment(of: recording, with: try Self.expected(path))
        #expect(alignment.mismatch == nil && alignment.matchedFrames > 24000 - 1024, "\(alignment.matchedFrames) frames exact; \(alignment.gaps)")
    }

    /// The survey `--verbose` and `--list-devices` take: the server's version as its own binary
    /// states it, its clock rate, and its sinks by node.name and description; the socket probe
    /// finds the server without connecting, and no server where none is.
    @Test func theSurveyNamesTheServerItsRateAndItsSinks() throws {
        let server = try PipeWireServer()
        let survey = try PipeWireSurvey.take(remote: server.socketPath)
        let stated = try TestTools.run("pipewire", ["--version"]).stdoutText
        #expect(!survey.version.isEmpty && stated.contains("libpipewire \(survey.version)"), "\(survey.version) vs \(stated)")
        #expect(survey.name == "pipewire-0" && survey.clockRate == 48000, "\(survey)")
        #expect(survey.sinks.contains { $0.name == server.sinkName && $0.description == "noti-play test sink" }, "\(survey.sinks)")
        #expect(PipeWireSurvey.serverSocketExists(remote: server.socketPath))
        #expect(!PipeWireSurvey.serverSocketExists(remote: folder.file("no-server")))
        #expect(throws: DeviceError.self) { try PipeWireSurvey.take(remote: folder.file("no-server")) }
    }

    /// The rig's ALSA route: `default` is pipewire-alsa's plugin on the rig's server (loaded by
    /// path from the package fetched for the rig, the machine's ALSA configuration untouched),
    /// so aplay's samples reach the same null sink, exactly. Its first 100 ms only: under load
    /// the plugin itself sometimes skips within its buffer (seen at 430 ms, a jump in the sound,
    /// not inserted silence), which is pipewire-alsa's, not the rig's.
    @Test func theRigsALSADefaultPlaysThroughPipeWireALSA() throws {
        _ = try PipeWireServer.pipeWireALSA.get()
        let server = try PipeWireServer()
        let path = try tone("alsa.wav", seconds: 0.5)
        var status: Int32 = -1
        let recording = try server.record {
            // A child of its own process group (ChildProcess): whatever it signals, not this process.
            status = try ChildProcess("aplay", ["-q", "-D", "default", path], environment: server.environment, in: folder).wait()
        }
        #expect(status == 0)
        let alignment = try Self.alignment(of: recording, with: try Self.expected(path))
        #expect(alignment.matchedFrames >= 4800, "\(alignment.matchedFrames) frames exact; \(alignment.gaps)")
    }

    // MARK: Threads and their CPU time

    /// This process's threads, by task ID.
    static func threads() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    }

    /// The user and system time `threads` used so far (fields 14 and 15 of their stat), in seconds.
    static func cpuSeconds(of threads: Set<String>) -> Double {
        let ticks = threads.reduce(0) { total, task in
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")") else { return total }
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return total + (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
