import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// Issue 22 on the private PipeWire: one player (the library's, and `noti-play listen`'s) that
/// outlives its server, sounds of three rates on one stream, and a ringtone closed by its
/// notification. Part of PipeWireTests (serialized, run on their own).
extension PipeWireTests {
    // MARK: The same player after the server restarts

    /// The library, natively: the server killed mid-sound fails the voice within 100 ms with the
    /// device's error, nothing spins while the server is down, and the next sound asked of the
    /// same player, once the server is back, is heard at the sink, exactly.
    @Test func theSamePlayerPlaysAgainAfterTheServerRestartsNatively() throws {
        let server = try PipeWireServer()
        try playerOutlivesItsServer(server, backend: .pipeWire(remote: server.socketPath), route: .pipewire)
    }

    /// The same through ALSA's `default`, which the rig makes pipewire-alsa's plugin on its
    /// server. (Originally the render thread spun in snd_pcm_recover once the server was gone,
    /// and the player answered "still not answering" for a minute after it was back.)
    @Test func theSamePlayerPlaysAgainAfterTheServerRestartsThroughPipeWireALSA() throws {
        _ = try PipeWireServer.pipeWireALSA.get()
        let server = try PipeWireServer()
        // libasound and the plugin in this process read their server from the environment.
        try withEnvironment(["ALSA_CONFIG_PATH": server.alsaConfigPath, "PIPEWIRE_RUNTIME_DIR": server.runtimeDirectory]) {
            try playerOutlivesItsServer(server, backend: .alsa, route: .alsa)
        }
    }

    func playerOutlivesItsServer(_ server: PipeWireServer, backend: PCMBackend, route: AudioBackend) throws {
        _ = try tone("crash.wav", seconds: 10)
        let after = try tone("after.wav", seconds: 0.5)
        let before = Set(Self.threads())
        // A long idle timeout: the next sound meets the stream that failed, not a fresh player state.
        var configuration = NotificationSoundPlayer.Configuration(appFolders: [folder.path], idleTimeout: 60, policy: SoundPolicy())
        configuration.pcmBackend = backend
        let player = NotificationSoundPlayer(configuration: configuration)
        defer { player.close() }

        let ended = Locked<(PlaybackReport, UInt64)?>(nil)
        try player.play(.named("crash.wav")) { report in ended.withLock { $0 = (report, monotonicNanoseconds()) } }
        try waitUntil("the stream's node on the server", timeout: 10) {
            !(try server.nodeProperties(where: "media.class", is: "Stream/Output/Audio")).isEmpty
        }
        usleep(500_000)
        server.killServer()
        let killed = monotonicNanoseconds()
        try waitUntil("the sound to end", timeout: 10) { ended.withLock { $0 != nil } }
        let (report, at) = try #require(ended.withLock { $0 })
        // Signed: the voice may fail before killServer() has seen its server end.
        let failedAfter = Double(Int64(at) - Int64(killed)) / 1e6
        if case .failed(.device(let error)) = report.result {
            #expect(error.backend == route, "\(error)")
        } else {
            Issue.record("the sound ended \(report.result), not failed by the device")
        }
        #expect(failedAfter < 100, "the sound failed \(failedAfter) ms after the server died: \(report.result)")

        // The player's threads (control, callbacks, render, decode worker, the backend's own)
        // are those started since it was made; none may spin while there is no server.
        let busiest = Self.busiestThreads(process: "self", among: Set(Self.threads()).subtracting(before))
        #expect(busiest.share < 0.05, "without a server \(busiest.description)")

        server.stop(SIGKILL)
        try server.start()
        try server.setSetting("clock.force-quantum", "512")  // one cycle length throughout (PipeWireTests)
        let restarted = monotonicNanoseconds()
        let next = Locked<PlaybackReport?>(nil)
        var asked: UInt64 = 0
        let recording = try server.record {
            asked = monotonicNanoseconds()
            try player.play(.named("after.wav")) { report in next.withLock { $0 = report } }
            try waitUntil("the next sound to end", timeout: 15) { next.withLock { $0 != nil } }
        }
        let played = try #require(next.withLock { $0 })
        #expect(played.result == .finished, "the next sound on the same player: \(played.result)")
        let firstWrite = played.stream?.firstWriteNanoseconds.map { (Double(Int64($0) - Int64(restarted)) / 1e6, Double(Int64($0) - Int64(asked)) / 1e6) }
        print("recovery (\(route)): failed \(failedAfter) ms after the kill; without a server \(busiest.description);"
              + " the next sound's first write \(firstWrite.map { "\($0.0) ms after the server was back, \($0.1) ms after it was asked for" } ?? "-")")
        let heardAny = PulseTests.soundingRange(recording) != nil  // not in #require: it would print the recording
        try #require(heardAny, "the sink heard nothing of the next sound")
        let alignment = try Self.alignment(of: recording, with: try Self.expected(after))
        if route == .pipewire {
            #expect(alignment.mismatch == nil && !alignment.endsEarly, "mismatch \(String(describing: alignment.mismatch)); \(alignment.gaps)")
        } else {
            // pipewire-alsa's first 100 ms only, as theRigsALSADefaultPlaysThroughPipeWireALSA.
            #expect(alignment.matchedFrames >= 4800, "\(alignment.matchedFrames) frames exact; \(alignment.gaps)")
        }
    }

    /// A server that restarts between sounds, while the player keeps its stream open for the
    /// next (its idle timeout): the next sound finds the new server. Natively the stream's
    /// connection says it was lost; ALSA says nothing until the next write fails, so through
    /// pipewire-alsa that sound failed ("it failed again after every recovery") with the new
    /// server there, and only the one after it played.
    @Test(arguments: [AudioBackend.pipewire, .alsa])
    func aServerRestartedBetweenSoundsIsFoundByTheNextSound(_ route: AudioBackend) throws {
        if route == .alsa { _ = try PipeWireServer.pipeWireALSA.get() }
        let server = try PipeWireServer()
        try withEnvironment(["ALSA_CONFIG_PATH": server.alsaConfigPath, "PIPEWIRE_RUNTIME_DIR": server.runtimeDirectory]) {
            _ = try tone("first.wav", seconds: 0.3)
            let next = try tone("next.wav", seconds: 0.5)
            var configuration = NotificationSoundPlayer.Configuration(appFolders: [folder.path], idleTimeout: 60, policy: SoundPolicy())
            configuration.pcmBackend = route == .alsa ? .alsa : .pipeWire(remote: server.socketPath)
            let player = NotificationSoundPlayer(configuration: configuration)
            defer { player.close() }
            let reports = Locked<[PlaybackReport]>([])
            try player.play(.named("first.wav")) { report in reports.withLock { $0.append(report) } }
            try waitUntil("the first sound to end", timeout: 10) { reports.withLock { $0.count == 1 } }
            #expect(reports.withLock { $0[0].result } == .finished)
            usleep(300_000)  // drained: the stream idles, open
            server.stop(SIGKILL)
            try server.start()
            try server.setSetting("clock.force-quantum", "512")
            let recording = try server.record {
                try player.play(.named("next.wav")) { report in reports.withLock { $0.append(report) } }
                try waitUntil("the next sound to end", timeout: 15) { reports.withLock { $0.count == 2 } }
            }
            #expect(reports.withLock { $0[1].result } == .finished, "the sound after the restart: \(reports.withLock { $0[1].result })")
            let heardAny = PulseTests.soundingRange(recording) != nil  // not in #require: it would print the recording
            try #require(heardAny, "the sink heard nothing of the sound after the restart")
            let alignment = try Self.alignment(of: recording, with: try Self.expected(next))
            if route == .pipewire {
                #expect(alignment.mismatch == nil && !alignment.endsEarly, "mismatch \(String(describing: alignment.mismatch)); \(alignment.gaps)")
            } else {
                #expect(alignment.matchedFrames >= 4800, "\(alignment.matchedFrames) frames exact; \(alignment.gaps)")
            }
        }
    }

    /// `noti-play listen` on the rig's session bus, natively and (noti-play.conf's `backend =
    /// alsa`) through pipewire-alsa: the same process fails the sound playing when the server is
    /// killed, says so within 100 ms, spins nowhere while it is down, and plays the next
    /// notification's sound once the server is back.
    @Test(arguments: [AudioBackend.pipewire, .alsa])
    func theSameListenerPlaysAgainAfterTheServerRestarts(_ route: AudioBackend) throws {
        if route == .alsa { _ = try PipeWireServer.pipeWireALSA.get() }
        let server = try PipeWireServer()
        let rig = try ListenRig()
        try FileManager.default.createDirectory(atPath: rig.folder.file("config/noti-play"), withIntermediateDirectories: true)
        try "backend = \(route.rawValue)\n".write(toFile: rig.folder.file("config/noti-play/noti-play.conf"), atomically: true, encoding: .utf8)
        let long = try tone("listen-crash.wav", seconds: 10), after = try tone("listen-after.wav", seconds: 0.5)
        _ = try rig.startServer()
        let listener = try rig.startListener(["--interval", "0"], environment: Self.audio(of: server))

        try rig.notifySend(["-a", "chat", "-h", "string:sound-file:\(long)"])
        try listener.waitForLog("chat: plays")
        try waitUntil("the stream's node on the server", timeout: 10) {
            !(try server.nodeProperties(where: "media.class", is: "Stream/Output/Audio")).isEmpty
        }
        usleep(500_000)
        let lines = listener.logLines.count
        server.killServer()
        let killed = Date()
        var failure: String?
        try waitUntil("the listener to report the sound failed", timeout: 10) {
            failure = listener.logLines.dropFirst(lines).first { $0.hasPrefix("chat: no sound: ") }
            return failure != nil
        }
        let failedAfter = Date().timeIntervalSince(killed) * 1000
        let name = route == .pipewire ? "PipeWire" : "ALSA"
        #expect(failure?.hasPrefix("chat: no sound: audio device 'default' (\(name)): ") == true, "\(failure ?? "")")
        #expect(failedAfter < 100, "listen said the sound failed \(failedAfter) ms after the server died: \(failure ?? "")")

        let busiest = Self.busiestThreads(process: String(listener.pid), among: nil)
        #expect(busiest.share < 0.05, "without a server \(busiest.description)")

        server.stop(SIGKILL)
        try server.start()
        try server.setSetting("clock.force-quantum", "512")
        let again = listener.logLines.count
        let recording = try server.record {
            try rig.notifySend(["-a", "mail", "-h", "string:sound-file:\(after)"])
            try listener.waitForLog("mail: ", after: again)
            try waitUntil("the next sound to end", timeout: 15) {
                listener.logLines.dropFirst(again).contains { $0.hasPrefix("mail: ") && !$0.hasPrefix("mail: plays") }
            }
        }
        #expect(listener.logLines.dropFirst(again).contains("mail: finished"), "\(listener.logLines.dropFirst(again))")
        #expect(listener.poll() == nil, "the listener ended: \(listener.stderr)")
        print("listen recovery (\(route)): failed \(failedAfter) ms after the kill; without a server \(busiest.description)")
        let heardAny = PulseTests.soundingRange(recording) != nil  // not in #require: it would print the recording
        try #require(heardAny, "the sink heard nothing of the next sound")
        let alignment = try Self.alignment(of: recording, with: try Self.expected(after))
        if route == .pipewire {
            #expect(alignment.mismatch == nil && !alignment.endsEarly, "mismatch \(String(describing: alignment.mismatch)); \(alignment.gaps)")
        } else {
            #expect(alignment.matchedFrames >= 4800, "\(alignment.matchedFrames) frames exact; \(alignment.gaps)")
        }
    }

    /// The same for `listen`, whose player keeps its stream open 5 s after a sound: the server
    /// restarted in that time, the next notification's sound is heard.
    @Test(arguments: [AudioBackend.pipewire, .alsa])
    func theSameListenerFindsAServerRestartedBetweenSounds(_ route: AudioBackend) throws {
        if route == .alsa { _ = try PipeWireServer.pipeWireALSA.get() }
        let server = try PipeWireServer()
        let rig = try ListenRig()
        try FileManager.default.createDirectory(atPath: rig.folder.file("config/noti-play"), withIntermediateDirectories: true)
        try "backend = \(route.rawValue)\n".write(toFile: rig.folder.file("config/noti-play/noti-play.conf"), atomically: true, encoding: .utf8)
        let first = try tone("listen-first.wav", seconds: 0.3), next = try tone("listen-next.wav", seconds: 0.5)
        _ = try rig.startServer()
        let listener = try rig.startListener(["--interval", "0"], environment: Self.audio(of: server))
        try rig.notifySend(["-a", "chat", "-h", "string:sound-file:\(first)"])
        try listener.waitForLog("chat: finished")
        usleep(300_000)  // drained: the stream idles, open
        let restarting = Date()
        server.stop(SIGKILL)
        try server.start()
        try server.setSetting("clock.force-quantum", "512")
        let lines = listener.logLines.count
        let recording = try server.record {
            try rig.notifySend(["-a", "mail", "-h", "string:sound-file:\(next)"])
            try waitUntil("the next sound to end", timeout: 15) {
                listener.logLines.dropFirst(lines).contains { $0.hasPrefix("mail: ") && !$0.hasPrefix("mail: plays") }
            }
        }
        // Within listen's 5 s idle timeout, or the stream was not the one kept open.
        #expect(Date().timeIntervalSince(restarting) < 5, "the restart took \(Date().timeIntervalSince(restarting)) s")
        #expect(listener.logLines.dropFirst(lines).contains("mail: finished"), "\(listener.logLines.dropFirst(lines))")
        let heardAny = PulseTests.soundingRange(recording) != nil  // not in #require: it would print the recording
        try #require(heardAny, "the sink heard nothing of the sound after the restart")
        let alignment = try Self.alignment(of: recording, with: try Self.expected(next))
        if route == .pipewire {
            #expect(alignment.mismatch == nil && !alignment.endsEarly, "mismatch \(String(describing: alignment.mismatch)); \(alignment.gaps)")
        } else {
            #expect(alignment.matchedFrames >= 4800, "\(alignment.matchedFrames) frames exact; \(alignment.gaps)")
        }
    }

    // MARK: Three rates on one stream

    /// Sounds at 44.1, 48 and 96 kHz played at once by one player: one stream, at the graph's
    /// 48 kHz, carries all three, each converted by the player. What the sink hears is their
    /// mix: each tone at its own pitch and level, and nothing else (a sound played at the wrong
    /// rate would be off pitch, one lost would be missing, a slip or a click would be left
    /// over). Fitted in blocks of 50 ms, so that silence the sink inserts between two of the
    /// stream's buffers on a busy machine (a shift in time, not a change of sound: see
    /// `theSinkHearsEveryDecodedSampleExactlyAndInOrder`) is told apart and left out.
    @Test func threeRatesPlayAtOnceAndTheSinkHearsTheirMix() throws {
        let server = try PipeWireServer()
        try server.setSetting("clock.force-quantum", "512")
        // Each a tone of its own, at its own level: the mix peaks at 0.75, below the limiter.
        let sounds = [(name: "r44.wav", rate: 44100, frequency: 500.0, level: 0.2),
                      (name: "r48.wav", rate: 48000, frequency: 1100.0, level: 0.25),
                      (name: "r96.wav", rate: 96000, frequency: 2300.0, level: 0.3)]
        for sound in sounds {
            try TestTools.runChecked("sox", ["-n", "-r", String(sound.rate), "-c", "2", "-b", "16", folder.file(sound.name),
                                             "synth", "2", "sine", String(sound.frequency), "vol", String(sound.level)])
        }
        var configuration = NotificationSoundPlayer.Configuration(appFolders: [folder.path], policy: SoundPolicy(),
                                                                  streamProperties: StreamProperties(applicationID: "org.example.Rates"))
        configuration.pcmBackend = .pipeWire(remote: server.socketPath)
        let player = NotificationSoundPlayer(configuration: configuration)
        defer { player.close() }
        let reports = Locked<[PlaybackReport]>([])
        var streams = 0
        let recording = try server.record {
            for sound in sounds { try player.play(.named(sound.name)) { report in reports.withLock { $0.append(report) } } }
            usleep(1_000_000)
            streams = try server.nodeProperties(where: "application.id", is: "org.example.Rates").count
            try waitUntil("the three sounds to end", timeout: 15) { reports.withLock { $0.count == 3 } }
        }
        let ended = reports.withLock { $0 }
        #expect(ended.map(\.result) == [.finished, .finished, .finished])
        #expect(streams == 1, "\(streams) streams on the server")
        #expect(ended.allSatisfy { $0.stream?.format.sampleRate == 48000 }, "\(ended.map { $0.stream?.format.sampleRate as Any })")
        #expect(Set(ended.compactMap(\.soundSampleRate)) == [44100, 48000, 96000])

        // Where all three sound: the sink's sounding range less its first and last quarter second.
        let sounding = PulseTests.soundingRange(recording)  // not in #require: it would print the recording
        let range = try #require(sounding, "the sink heard nothing")
        let block = 2400
        let frames = (range.lowerBound + 12000)..<(range.upperBound - 12000)
        var fitted = 0, withInsertedSilence = 0, worstResidual = -Double.infinity, worstLevel = 0.0
        for start in stride(from: frames.lowerBound, to: frames.upperBound - block, by: block) {
            let left = (start..<(start + block)).map { Double(recording[2 * $0]) / 32768 }
            let right = (start..<(start + block)).map { Double(recording[2 * $0 + 1]) / 32768 }
            if Self.hasSilentRun(left, right) { withInsertedSilence += 1; continue }
            fitted += 1
            for channel in [left, right] {
                let fit = Self.toneFit(channel, frequencies: sounds.map(\.frequency), rate: 48000)
                for (sound, amplitude) in zip(sounds, fit.amplitudes) {
                    let dB = 20 * log10(amplitude / sound.level)
                    worstLevel = max(worstLevel, abs(dB))
                    #expect(abs(dB) < 0.1, "block at frame \(start): the \(sound.rate) Hz sound's tone at \(20 * log10(amplitude)) dBFS, not \(20 * log10(sound.level))")
                }
                worstResidual = max(worstResidual, fit.residualDB)
                #expect(fit.residualDB < -60, "block at frame \(start): \(fit.residualDB) dBFS of something other than the three tones")
            }
        }
        print("three rates: \(fitted) blocks fitted, \(withInsertedSilence) with inserted silence; levels within \(worstLevel) dB, worst residual \(worstResidual) dBFS")
        // 1.5 s of blocks: most of them hold no inserted silence, or nothing was measured.
        #expect(fitted >= 10, "only \(fitted) blocks without inserted silence (\(withInsertedSilence) with)")
    }

    // MARK: A ringtone closed by its notification

    /// `listen` rings a call (the x-noti-play-ringtone hint, a 3 s sound looped) on PipeWire,
    /// its stream a notification's; CloseNotification stops it. Every sample up to the close is
    /// heard, exactly and in order, the loop seamless; after it, within a second (its loop
    /// would have run 1.5 s more, and an unclosed ringtone rings 30 s), the sink is silent and
    /// stays so.
    @Test func aListenRingtoneOnPipeWireStopsWhenItsNotificationIsClosed() throws {
        let server = try PipeWireServer()
        try server.setSetting("clock.force-quantum", "512")
        let rig = try ListenRig()
        let ring = try tone("ring.wav", seconds: 3)
        _ = try rig.startServer()
        let listener = try rig.startListener(["--interval", "0"], environment: Self.audio(of: server))
        var node: [String: String] = [:]
        var closedAt = 0, startedAt = 0
        let recording = try server.record(tail: 2) { framesSoFar in
            let id = try rig.notifySend(["-a", "voip", "-h", "boolean:x-noti-play-ringtone:true", "-h", "string:sound-file:\(ring)"])
            try listener.waitForLog("voip: plays")
            startedAt = framesSoFar()
            try waitUntil("the stream's node on the server", timeout: 10) {
                node = (try server.nodeProperties(where: "media.class", is: "Stream/Output/Audio").first ?? [:]).compactMapValues { $0 as? String }
                return !node.isEmpty
            }
            // Into the ringtone's second loop, half way.
            usleep(useconds_t(max(0, 4.5 - Double(framesSoFar() - startedAt) / 48000) * 1_000_000))
            closedAt = framesSoFar()
            let closed = try rig.gdbus("CloseNotification", ["\(id)"])
            #expect(closed.status == 0, "\(closed.stderr)")
            try listener.waitForLog("voip: cancelled")
        }
        #expect(node["media.role"] == "Notification", "\(node)")
        #expect(node["application.name"] == "noti-play", "\(node)")

        let sounding = PulseTests.soundingRange(recording)
        let range = try #require(sounding, "the sink heard nothing")
        let expected = try Self.expected(ring)
        let looped = Array(repeating: expected, count: 3).flatMap { $0 }
        let alignment = try Self.alignment(of: recording, with: looped)
        // Heard up to the close (the mark may be a parec fragment early): every sample, the loop seamless.
        let heardExactly = range.lowerBound + alignment.matchedFrames + alignment.silentFrames
        #expect(heardExactly >= closedAt, "the ringtone was heard exactly only to frame \(heardExactly), closed at \(closedAt); \(alignment.gaps)")
        let stoppedAfter = Double(range.upperBound - closedAt) / 48000
        #expect(stoppedAfter < 1, "the ringtone was heard \(stoppedAfter) s after CloseNotification was sent")
        // The sink went on recording after it, silent: the ringtone stopped, not paused.
        let silentAfter = Double(recording.count / 2 - range.upperBound) / 48000
        #expect(silentAfter > 1.5, "only \(silentAfter) s of silence recorded after the ringtone")
        print("ringtone: stopped at the sink \(stoppedAfter * 1000) ms after CloseNotification was sent; \(alignment.gaps.count) runs of inserted silence")
    }

    // MARK: Helpers

    /// The rig's server for a process on a ListenRig: its runtime folder, PulseAudio and ALSA
    /// configuration, but the ListenRig's session bus, configuration and home.
    static func audio(of server: PipeWireServer) -> [String: String] {
        server.environment.filter { !["DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME", "HOME", "XDG_STATE_HOME"].contains($0.key) }
    }

    /// Runs `body` with `variables` set in this process's environment, then puts the old values back.
    func withEnvironment(_ variables: [String: String], _ body: () throws -> Void) throws {
        let old = variables.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
        for (key, value) in variables { setenv(key, value, 1) }
        defer { for (key, value) in old { if let value { setenv(key, value, 1) } else { unsetenv(key) } } }
        try body()
    }

    /// The thread of `process` (a pid, or "self") that used the most CPU over one second, among
    /// `among` (nil: all), by its scheduler runtime (/proc/…/schedstat, in nanoseconds: a
    /// clock tick's 10 ms would be a fifth of the 5 % allowed).
    static func busiestThreads(process: String, among: Set<String>?) -> (share: Double, description: String) {
        func runtimes() -> [String: (name: String, nanoseconds: Int)] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/task")) ?? []
            var values: [String: (String, Int)] = [:]
            for task in tasks where among?.contains(task) ?? true {
                guard let stat = try? String(contentsOfFile: "/proc/\(process)/task/\(task)/schedstat", encoding: .utf8),
                      let runtime = stat.split(separator: " ").first.flatMap({ Int($0) }) else { continue }
                let name = (try? String(contentsOfFile: "/proc/\(process)/task/\(task)/comm", encoding: .utf8)) ?? "?"
                values[task] = (name.trimmingCharacters(in: .whitespacesAndNewlines), runtime)
            }
            return values
        }
        let first = runtimes(), start = monotonicNanoseconds()
        usleep(1_000_000)
        let second = runtimes(), elapsed = Double(monotonicNanoseconds() - start)
        let used = second.compactMap { task, now in first[task].map { (now.name, Double(now.nanoseconds - $0.nanoseconds) / elapsed) } }
        let busiest = used.max { $0.1 < $1.1 }
        let total = used.reduce(0) { $0 + $1.1 }
        return (busiest?.1 ?? 0, "\(used.count) threads used \(String(format: "%.2f", total * 100)) % of a core in all,"
                + " the busiest (\(busiest?.0 ?? "none")) \(String(format: "%.2f", (busiest?.1 ?? 0) * 100)) %")
    }

    /// Whether both channels are exactly 0 for 8 frames or more: silence the sink inserted (a
    /// sum of tones is never 0 on both channels for that long).
    static func hasSilentRun(_ left: [Double], _ right: [Double]) -> Bool {
        var run = 0
        for (l, r) in zip(left, right) {
            run = l == 0 && r == 0 ? run + 1 : 0
            if run >= 8 { return true }
        }
        return false
    }

    /// The least-squares amplitude of each of `frequencies` in `samples` (a sine and a cosine
    /// each, and a constant), and the RMS of what they leave, in dB of full scale.
    static func toneFit(_ samples: [Double], frequencies: [Double], rate: Double) -> (amplitudes: [Double], residualDB: Double) {
        var basis: [[Double]] = []
        for f in frequencies {
            let step = 2 * Double.pi * f / rate
            basis.append(samples.indices.map { sin(step * Double($0)) })
            basis.append(samples.indices.map { cos(step * Double($0)) })
        }
        basis.append([Double](repeating: 1, count: samples.count))
        let n = basis.count
        // The normal equations, solved by Gaussian elimination with partial pivoting.
        func dot(_ x: [Double], _ y: [Double]) -> Double {
            var sum = 0.0
            for i in x.indices { sum += x[i] * y[i] }
            return sum
        }
        var a: [[Double]] = (0..<n).map { i in (0..<n).map { j in dot(basis[i], basis[j]) } + [dot(basis[i], samples)] }
        for column in 0..<n {
            let pivot = (column..<n).max { abs(a[$0][column]) < abs(a[$1][column]) }!
            a.swapAt(column, pivot)
            for row in 0..<n where row != column {
                let factor = a[row][column] / a[column][column]
                for k in column...n { a[row][k] -= factor * a[column][k] }
            }
        }
        let coefficients = (0..<n).map { a[$0][n] / a[$0][$0] }
        let amplitudes = frequencies.indices.map { hypot(coefficients[2 * $0], coefficients[2 * $0 + 1]) }
        var residual = 0.0
        for i in samples.indices {
            var model = 0.0
            for k in 0..<n { model += coefficients[k] * basis[k][i] }
            residual += (samples[i] - model) * (samples[i] - model)
        }
        return (amplitudes, 10 * log10(residual / Double(samples.count) + 1e-30))
    }
}
