import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// Playback against a real clock: a private PulseAudio server with a null sink, which ALSA's
/// configuration names as its default (`type pulse`), its monitor recorded with parec.
/// Serialized: they share the sink.
@Suite(.serialized) struct PulseTests {
    let folder = TemporaryDirectory("pulse-tests")

    /// The two ways the command reaches the server: libpulse directly (its default), or ALSA's
    /// pulse plugin (`--through-alsa`, and the library's way).
    enum Route: String, CaseIterable, CustomTestStringConvertible {
        case direct, plugin
        var arguments: [String] { self == .plugin ? ["--through-alsa"] : [] }
        var testDescription: String { rawValue }
    }

    /// The first number on `--verbose`'s line with `label` ("period:", "underruns:").
    static func verboseFigure(_ label: String, in stderr: String) -> Int? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains(label) }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first
    }

    /// The period `--verbose` reports: the unit in which noti-play writes to the device.
    static func period(_ stderr: String) -> Int? { verboseFigure("period:", in: stderr) }

    func tone(_ name: String, seconds: Double, amplitude: Double = 0.5) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("sox", [
            "-n", "-r", "44100", "-c", "2", "-b", "16", path, "synth", String(seconds), "sine", "440", "sine", "660",
            "vol", String(amplitude),
        ])
        return path
    }

    /// Frames of the recording's left channel between its first and last non-zero sample.
    static func soundingRange(_ stereo: [Int16]) -> Range<Int>? {
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        guard let first = left.firstIndex(where: { $0 != 0 }), let last = left.lastIndex(where: { $0 != 0 }) else { return nil }
        return first..<(last + 1)
    }

    /// The sink received every decoded sample, exactly (the server's Float32 → S16 conversion
    /// returns a 16-bit source exactly) and in order, from the first to the last.
    ///
    /// What the machine's load may change, and this test therefore allows: silence the sink
    /// inserted where noti-play's stream ran dry, which comes between two of noti-play's writes,
    /// so at a whole period of the sound. (Seen under other load: 1–13 such runs of 219–1971
    /// frames, at frames 220, 2640, 4400, ...; every other sample exact.) Silence anywhere else,
    /// or any sample lost, changed or out of order, is noti-play's. How often the sink runs dry
    /// under load, beside aplay, is PulseUnderStress's business.
    /// The stream says it is an alert sound (media.role=event), so the desktop's event volume and
    /// role rules apply, unless the user chose otherwise in the environment.
    @Test(arguments: [nil, "music"]) func theStreamIsAnEvent(userRole: String?) throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        try pulse.ensureRunning()
        let path = try tone("role.wav", seconds: 3)
        var environment = pulse.environment
        if let userRole { environment["PULSE_PROP_media.role"] = userRole }
        let player = try ChildProcess(TestTools.notiPlay, [path], environment: environment, in: folder)
        var properties = ""
        let deadline = Date() + 5
        while !properties.contains("media.role") && Date() < deadline {
            usleep(50_000)
            properties = try TestTools.run("pactl", ["list", "sink-inputs"], environment: pulse.environment).stdoutText
        }
        player.signal(SIGINT)
        _ = player.wait()
        #expect(properties.contains("media.role = \"\(userRole ?? "event")\""), "\(properties)")
        #expect(properties.contains("application.id = \"noti-play\""), "\(properties)")
    }

    @Test(arguments: Route.allCases) func theSinkHearsEveryDecodedSampleInOrderInRealTime(route: Route) throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        let path = try tone("real-time.wav", seconds: 1.5)
        var player: ChildProcess?
        var wall: TimeInterval = 0
        let recording = try pulse.record {
            let start = Date()
            player = try ChildProcess(TestTools.notiPlay, [path, "--verbose"] + route.arguments, environment: pulse.environment, in: folder)
            player?.wait()
            wall = Date().timeIntervalSince(start)
        }
        let played = try #require(player)
        #expect(played.wait() == 0, "\(played.stderr)")
        // The policies: 20 ms periods through ALSA; directly, the server's answer to 125 ms requests.
        #expect(played.stderr.contains("route:       PulseAudio ") == (route == .direct), "\(played.stderr)")
        #expect(played.stderr.contains(route == .direct ? ", directly" : "route:       ALSA 'default' through the pulse plugin"), "\(played.stderr)")
        let period = try #require(Self.period(played.stderr), "\(played.stderr)")
        #expect(route == .direct ? period > 4410 : period == 882, "\(played.stderr)")

        let decoded = try SoundDecoder(path: path).readAll()
        let expected = decoded.map { Int(($0 * 32768).rounded()) }
        let soundStart = try #require(expected.firstIndex { $0 != 0 })
        let range = try #require(Self.soundingRange(recording), "the sink heard nothing")
        let alignment = SinkAlignment(expected: expected, recorded: recording, channels: 2,
                                      expectedStart: soundStart / 2, recordedStart: range.lowerBound)
        let seen = "\(alignment.gaps.count) runs of inserted silence (\(alignment.gaps)); \(played.stderr)"
        #expect(alignment.mismatch == nil, "sample lost, changed or out of order at \(String(describing: alignment.mismatch)); \(seen)")
        #expect(!alignment.endsEarly, "the recording ends after \(alignment.matchedFrames) frames; \(seen)")
        #expect(alignment.gaps.allSatisfy { $0.isAtPeriodBoundary(period) }, "silence inside a period: \(seen)")
        // Real time: the sound's duration plus the silence the sink inserted, plus start-up and
        // the drain (0.1 s measured under two concurrent builds at a 20 ms × 3 buffer; 0.5 s allowed).
        let silence = Double(alignment.silentFrames) / 44100
        #expect(wall >= 1.5 && wall < 1.5 + silence + 0.5, "took \(wall) s with \(silence) s of inserted silence; \(seen)")
    }

    /// --list-devices lists the server's sinks, by the names --device takes, and one plays.
    @Test func theServersSinksAreListedAndPlayable() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        try pulse.ensureRunning()
        let listed = try TestTools.run(TestTools.notiPlay, ["--list-devices"], environment: pulse.environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        let line = try #require(listed.stdoutText.split(separator: "\n").first { $0.hasPrefix("pulse:\(pulse.sinkName) ") },
                                "\(listed.stdoutText)")
        #expect(line.contains("PulseAudio: "), "\(line)")
        let path = try tone("sink.wav", seconds: 0.3)
        let played = try TestTools.run(TestTools.notiPlay, [path, "--device", "pulse:\(pulse.sinkName)", "--verbose"],
                                       environment: pulse.environment)
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stderr.contains(", directly, sink \(pulse.sinkName)"), "\(played.stderr)")
    }

    /// A server plays at most 32 channels: a wider sound is mapped onto 32, as onto a device
    /// with fewer channels, and heard, not refused.
    @Test func aSoundOfFortyChannelsIsMappedOntoTheServersMost() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        let path = folder.file("forty.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "44100", "-c", "40", "-b", "16", path, "synth", "0.5", "sine", "440", "vol", "0.3"])
        var player: ChildProcess?
        let recording = try pulse.record {
            player = try ChildProcess(TestTools.notiPlay, [path, "--verbose"], environment: pulse.environment, in: folder)
            player?.wait()
        }
        let played = try #require(player)
        #expect(played.wait() == 0, "\(played.stderr)")
        #expect(played.stderr.contains("sound:       44100 Hz, 40 channel(s), mapped onto 32 channel(s)"), "\(played.stderr)")
        #expect(Self.soundingRange(recording) != nil, "the sink heard nothing")
    }

    /// PulseAudio's ALSA plugin names no speakers, yet hands its server a 6-channel stream as
    /// ALSA's FL FR RL RR FC LFE; directly, noti-play tells the server WAVE's order. Either way a
    /// 5.1 WAV whose only sound is its centre must reach the stereo sink as a centre does, on
    /// both speakers alike; through the plugin in WAVE's order its centre would be the rear left,
    /// on the left speaker alone.
    @Test(arguments: Route.allCases) func aFiveOneCentreReachesBothSpeakers(route: Route) throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        let path = folder.file("centre.wav")
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=0|0|0.5*sin(2*PI*440*t)|0|0|0:c=5.1:s=44100:d=0.5",
            "-c:a", "pcm_s16le", "-y", path,
        ])
        var player: ChildProcess?
        let recording = try pulse.record {
            player = try ChildProcess(TestTools.notiPlay, [path, "--verbose"] + route.arguments, environment: pulse.environment, in: folder)
            player?.wait()
        }
        let played = try #require(player)
        #expect(played.wait() == 0, "\(played.stderr)")
        let speakers = route == .direct ? "FL FR FC LFE RL RR\n" : "FL FR RL RR FC LFE\n"
        #expect(played.stderr.contains("6 channel(s) " + speakers), "\(played.stderr)")
        let power = (0..<2).map { side in
            stride(from: side, to: recording.count, by: 2).reduce(0.0) { $0 + Double(recording[$1]) * Double(recording[$1]) }
        }
        #expect(power[0] > 0 && power[1] > 0.9 * power[0] && power[1] < 1.1 * power[0], "left \(power[0]), right \(power[1])")
    }

    /// SIGINT fades the sound and the command exits once the fade has been heard: through ALSA
    /// after what the device buffer holds (60 ms); directly, the server's 450 ms queue is
    /// replaced by a fade of it from just after the position heard, which must continue the
    /// sound exactly (a jump where the fade begins is a click too). Issue 13's figure, within
    /// 100 ms, is a real-time figure that moves with the machine's load (103 ms once beside a CI
    /// run on both cores, 55–65 ms unloaded through ALSA, about 15 ms directly):
    /// `scripts/measure/playback.py` measures it. This bound tells the policies from a regression
    /// (the whole 450 ms queue played, a drain that waits out the 5 s stall rule) on a busy machine.
    /// A second SIGINT 5 ms after the first must not cut the fade short (it once could have
    /// ended the drain that lets the fade be heard).
    @Test(arguments: [(Route.direct, 1), (.plugin, 1), (.direct, 2)])
    func sigintEndsALongSoundWithAFadeNotAClick(route: Route, signals: Int) throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        let path = try tone("long.wav", seconds: 5)
        var stopTime: TimeInterval = 0
        var status: Int32 = 0
        var stderr = ""
        let recording = try pulse.record {
            let player = try ChildProcess(TestTools.notiPlay, [path, "--verbose"] + route.arguments, environment: pulse.environment, in: folder)
            usleep(1_000_000)
            let signalled = Date()
            player.signal(SIGINT)
            if signals == 2 {
                usleep(5_000)
                player.signal(SIGINT)
            }
            status = player.wait()
            stopTime = Date().timeIntervalSince(signalled)
            stderr = player.stderr
        }
        #expect(status == 130, "\(stderr)")
        #expect(stopTime < 0.250, "SIGINT to exit took \(stopTime * 1000) ms")

        let range = try #require(Self.soundingRange(recording))
        #expect(range.count < 44100 * 2, "the sound went on after SIGINT: \(range.count) frames")
        // Every sample up to the stop, then the same sound under a falling gain, then silence.
        let expected = try SoundDecoder(path: path).readAll().map { Int(($0 * 32768).rounded()) }
        let alignment = SinkAlignment(expected: expected, recorded: recording, channels: 2,
                                      expectedStart: try #require(expected.firstIndex { $0 != 0 }) / 2, recordedStart: range.lowerBound)
        if let problem = Self.fadeProblem(expected: expected, recorded: recording, alignment: alignment) {
            Issue.record("\(problem); \(alignment.gaps.count) runs of inserted silence (\(alignment.gaps))")
        }
    }

    /// The command's fade when a signal or --for stops a sound: 5 ms.
    static let fadeFrames = 221

    /// What is wrong with the recording after its last exact frame, if anything. It must be the
    /// sound itself (the frames that would have come next) under a gain that falls from 1 to 0
    /// within the fade, then silence: a cut is a click, and so is a fade of other samples than
    /// those next (a jump in the sound where the fade begins), or a gain that rises again. Silence
    /// the sink inserted just before the fade is forgiven, as anywhere between two writes.
    static func fadeProblem(expected: [Int], recorded: [Int16], alignment: SinkAlignment) -> String? {
        guard let (expectedFrame, recordedStart) = alignment.mismatch else {
            return "no fade: the recording matched to \(alignment.endsEarly ? "its" : "the sound's") end"
        }
        var recordedFrame = recordedStart
        while recordedFrame * 2 + 1 < recorded.count && recorded[recordedFrame * 2] == 0 && recorded[recordedFrame * 2 + 1] == 0 {
            recordedFrame += 1
        }
        let fadeEnd = fadeFrames + 40  // the 16-bit rounding of the last frames, and a frame's slack
        guard (expectedFrame + fadeEnd + 441) * 2 <= expected.count, (recordedFrame + fadeEnd + 441) * 2 <= recorded.count else {
            return "the recording or the sound ends inside the fade (frame \(expectedFrame))"
        }
        var gain = 1.0
        for offset in 0..<fadeEnd {
            for channel in 0..<2 {
                let sound = Double(expected[(expectedFrame + offset) * 2 + channel])
                guard abs(sound) >= 4000 else { continue }
                let heard = Double(recorded[(recordedFrame + offset) * 2 + channel]) / sound
                if heard < -0.02 || heard > gain + 0.03 {
                    return "\(offset) frames into the fade (sound frame \(expectedFrame)) the sink heard \(heard) × the sound after \(gain) ×: not the sound under a falling gain"
                }
                gain = min(gain, heard)
            }
        }
        let after = recorded[((recordedFrame + fadeEnd) * 2)..<((recordedFrame + fadeEnd + 441) * 2)].map { abs(Int($0)) }.max()!
        return after <= 2 ? nil : "the sound goes on after the fade (level \(after))"
    }

    /// `--for 1`: the ringtone loops, exactly its samples pass after pass with no silence at a
    /// seam, until a second after the device opened, and then fades as a stop does. Through
    /// ALSA the fade used to come after the device buffer (60 ms late); directly it comes at
    /// the second (the sound heard from the moment it started: a little less than the second).
    @Test func aRingtoneLoopsUntilItsTimeIsUp() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        let path = try tone("ring.wav", seconds: 0.25)
        var status: Int32 = -1
        var wall: TimeInterval = 0
        var stderr = ""
        let recording = try pulse.record {
            let start = Date()
            let player = try ChildProcess(TestTools.notiPlay, ["--ringtone", path, "--for", "1", "--verbose"], environment: pulse.environment, in: folder)
            status = player.wait()
            wall = Date().timeIntervalSince(start)
            stderr = player.stderr
        }
        #expect(status == 0, "\(stderr)")
        // 11025 frames is no whole number of periods, so silence the sink inserts under load,
        // which comes at period boundaries, cannot pass for a gap between loops.
        let once = try SoundDecoder(path: path).readAll().map { Int(($0 * 32768).rounded()) }
        let expected = Array([[Int]](repeating: once, count: 6).joined())
        let soundStart = try #require(expected.firstIndex { $0 != 0 })
        let range = try #require(Self.soundingRange(recording), "the sink heard nothing")
        let alignment = SinkAlignment(expected: expected, recorded: recording, channels: 2,
                                      expectedStart: soundStart / 2, recordedStart: range.lowerBound)
        let seen = "\(alignment.gaps.count) runs of inserted silence (\(alignment.gaps)); \(stderr)"
        let period = try #require(Self.period(stderr), "\(stderr)")
        #expect(alignment.gaps.allSatisfy { $0.isAtPeriodBoundary(period) }, "silence inside a period (a seam?): \(seen)")
        // Three passes and more (the device opened before the sound started), and not past the
        // second by more than a busy machine's delay of the timer.
        let heard = alignment.mismatch?.expectedFrame ?? alignment.matchedFrames
        #expect(heard > 3 * 11025 && heard < 44100 + 11025, "the ringtone played \(heard) frames before its fade; \(seen)")
        if let problem = Self.fadeProblem(expected: expected, recorded: recording, alignment: alignment) { Issue.record("\(problem); \(seen)") }
        let silence = Double(alignment.silentFrames) / 44100
        #expect(wall >= 1.0 && wall < 1.0 + silence + 0.5, "took \(wall) s with \(silence) s of inserted silence")
    }
}

/// The alignment the PulseTests judge recordings by: it forgives only silence inserted between
/// whole periods, and catches a sample lost, changed or silenced inside a period.
@Suite struct SinkAlignmentTests {
    // A stereo ramp that is never silent: frame n is (n + 1, -(n + 1)).
    let expected = (0..<2000).flatMap { [$0 + 1, -($0 + 1)] }
    func recorded(_ frames: [Int]) -> [Int16] { frames.map { Int16($0) } }

    @Test func silenceBetweenPeriodsIsTheOnlyThingForgiven() {
        var frames = [0, 0, 0, 0] + expected  // leading silence before the sound
        frames.insert(contentsOf: [Int](repeating: 0, count: 219 * 2), at: (4 + 440 * 2))
        let alignment = SinkAlignment(expected: expected, recorded: recorded(frames), channels: 2, expectedStart: 0, recordedStart: 2)
        #expect(alignment.mismatch == nil && !alignment.endsEarly)
        #expect(alignment.gaps.count == 1 && alignment.gaps[0].frame == 440 && alignment.gaps[0].frames == 219)
        #expect(alignment.gaps.allSatisfy { $0.isAtPeriodBoundary(220) })
    }

    @Test func aLostChangedOrMidPeriodSilencedSampleIsCaught() {
        var lost = expected
        lost.removeSubrange(1000..<1002)  // frame 500 missing
        #expect(SinkAlignment(expected: expected, recorded: recorded(lost), channels: 2, expectedStart: 0, recordedStart: 0).mismatch?.expectedFrame == 500)
        var changed = expected
        changed[1001] += 1
        #expect(SinkAlignment(expected: expected, recorded: recorded(changed), channels: 2, expectedStart: 0, recordedStart: 0).mismatch?.expectedFrame == 500)
        var silenced = expected
        silenced.insert(contentsOf: [0, 0, 0, 0], at: 1000)  // silence before frame 500, inside a period
        let alignment = SinkAlignment(expected: expected, recorded: recorded(silenced), channels: 2, expectedStart: 0, recordedStart: 0)
        #expect(alignment.gaps.count == 1 && !alignment.gaps[0].isAtPeriodBoundary(220))
        #expect(SinkAlignment(expected: expected, recorded: recorded(Array(expected.prefix(1000))), channels: 2, expectedStart: 0, recordedStart: 0).endsEarly)
    }
}
