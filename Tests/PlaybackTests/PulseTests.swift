import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// Playback against a real clock: a private PulseAudio server with a null sink, reached through
/// ALSA's pulse plugin, its monitor recorded with parec. Serialized: they share the sink.
@Suite(.serialized) struct PulseTests {
    let folder = TemporaryDirectory("pulse-tests")

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

    /// noti-play's period at 44.1 kHz (20 ms), the unit in which it writes to the device.
    static let period = 882

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

    @Test func theSinkHearsEveryDecodedSampleInOrderInRealTime() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        let path = try tone("real-time.wav", seconds: 1.5)
        var player: ChildProcess?
        var wall: TimeInterval = 0
        let recording = try pulse.record {
            let start = Date()
            player = try ChildProcess(TestTools.notiPlay, [path, "--verbose"], environment: pulse.environment, in: folder)
            player?.wait()
            wall = Date().timeIntervalSince(start)
        }
        let played = try #require(player)
        #expect(played.wait() == 0, "\(played.stderr)")
        #expect(played.stderr.contains("period:      \(Self.period) frames"), "\(played.stderr)")

        let decoded = try SoundDecoder(path: path).readAll()
        let expected = decoded.map { Int(($0 * 32768).rounded()) }
        let soundStart = try #require(expected.firstIndex { $0 != 0 })
        let range = try #require(Self.soundingRange(recording), "the sink heard nothing")
        let alignment = SinkAlignment(expected: expected, recorded: recording, channels: 2,
                                      expectedStart: soundStart / 2, recordedStart: range.lowerBound)
        let seen = "\(alignment.gaps.count) runs of inserted silence (\(alignment.gaps)); \(played.stderr)"
        #expect(alignment.mismatch == nil, "sample lost, changed or out of order at \(String(describing: alignment.mismatch)); \(seen)")
        #expect(!alignment.endsEarly, "the recording ends after \(alignment.matchedFrames) frames; \(seen)")
        #expect(alignment.gaps.allSatisfy { $0.isAtPeriodBoundary(Self.period) }, "silence inside a period: \(seen)")
        // Real time: the sound's duration plus the silence the sink inserted, plus start-up and
        // the drain of a 60 ms buffer (0.1 s measured under two concurrent builds at a 20 ms one; 0.5 s allowed).
        let silence = Double(alignment.silentFrames) / 44100
        #expect(wall >= 1.5 && wall < 1.5 + silence + 0.5, "took \(wall) s with \(silence) s of inserted silence; \(seen)")
    }

    /// PulseAudio's ALSA plugin names no speakers, yet hands its server a 6-channel stream as
    /// ALSA's FL FR RL RR FC LFE. A 5.1 WAV whose only sound is its centre must reach the stereo
    /// sink as a centre does, on both speakers alike; sent in WAVE's order its centre would be
    /// the rear left, on the left speaker alone.
    @Test func aFiveOneCentreReachesBothSpeakersThroughThePulsePlugin() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        let path = folder.file("centre.wav")
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=0|0|0.5*sin(2*PI*440*t)|0|0|0:c=5.1:s=44100:d=0.5",
            "-c:a", "pcm_s16le", "-y", path,
        ])
        var player: ChildProcess?
        let recording = try pulse.record {
            player = try ChildProcess(TestTools.notiPlay, [path, "--verbose"], environment: pulse.environment, in: folder)
            player?.wait()
        }
        let played = try #require(player)
        #expect(played.wait() == 0, "\(played.stderr)")
        #expect(played.stderr.contains("6 channel(s) FL FR RL RR FC LFE"), "\(played.stderr)")
        let power = (0..<2).map { side in
            stride(from: side, to: recording.count, by: 2).reduce(0.0) { $0 + Double(recording[$1]) * Double(recording[$1]) }
        }
        #expect(power[0] > 0 && power[1] > 0.9 * power[0] && power[1] < 1.1 * power[0], "left \(power[0]), right \(power[1])")
    }

    /// SIGINT fades the sound and the command exits once the fade has been heard, after what the
    /// device buffer holds (60 ms). Issue 13's figure, within 100 ms, is a real-time figure that
    /// moves with the machine's load (103 ms once beside a CI run on both cores, 55–65 ms
    /// unloaded): `scripts/measure-playback.py` measures it. This bound tells that policy from a
    /// regression (a 300 ms buffer, a drain that waits out the 5 s stall rule) on a busy machine.
    @Test func sigintEndsALongSoundAfterItsBufferWithAFadeNotAClick() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        let path = try tone("long.wav", seconds: 5)
        var stopTime: TimeInterval = 0
        var status: Int32 = 0
        var stderr = ""
        let recording = try pulse.record {
            let player = try ChildProcess(TestTools.notiPlay, [path], environment: pulse.environment, in: folder)
            usleep(1_000_000)
            let signalled = Date()
            player.signal(SIGINT)
            status = player.wait()
            stopTime = Date().timeIntervalSince(signalled)
            stderr = player.stderr
        }
        #expect(status == 130, "\(stderr)")
        #expect(stopTime < 0.250, "SIGINT to exit took \(stopTime * 1000) ms")

        let range = try #require(Self.soundingRange(recording))
        let left = stride(from: 0, to: recording.count, by: 2).map { Int(recording[$0]) }
        #expect(range.count < 44100 * 2, "the sound went on after SIGINT: \(range.count) frames")
        // No click: the last 5 ms fall smoothly to silence. A cut would leave a step of about
        // 16000 (the tone's amplitude) at the end; a 440 Hz sine at this level moves at most
        // ~1400 per frame, less as the fade shrinks it.
        let tail = left[(range.upperBound - 221)..<range.upperBound]
        let steps = zip(tail, tail.dropFirst()).map { abs($0 - $1) }
        #expect(steps.max()! < 1500)
        #expect(abs(left[range.upperBound - 1]) < 1000, "ends at \(left[range.upperBound - 1])")
        let before = left[(range.upperBound - 1100)..<(range.upperBound - 600)].map(abs).max()!
        let last = tail.suffix(40).map(abs).max()!
        #expect(last < before / 4, "the level fell from \(before) to \(last)")
    }

    @Test func aRingtoneLoopsUntilItsTimeIsUp() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        let path = try tone("ring.wav", seconds: 0.25)
        var status: Int32 = -1
        var wall: TimeInterval = 0
        let recording = try pulse.record {
            let start = Date()
            let player = try ChildProcess(TestTools.notiPlay, ["--ringtone", path, "--for", "1"], environment: pulse.environment, in: folder)
            status = player.wait()
            wall = Date().timeIntervalSince(start)
        }
        #expect(status == 0)
        // Four passes of the 0.25 s sound, back to back: exactly its samples four times over,
        // with no silence at a seam (11025 frames is no whole number of 882-frame periods, so
        // silence the sink inserts under load, which comes at period boundaries, cannot pass for
        // a gap between loops).
        let once = try SoundDecoder(path: path).readAll().map { Int(($0 * 32768).rounded()) }
        let expected = Array([[Int]](repeating: once, count: 4).joined())
        let soundStart = try #require(expected.firstIndex { $0 != 0 })
        let range = try #require(Self.soundingRange(recording), "the sink heard nothing")
        let alignment = SinkAlignment(expected: expected, recorded: recording, channels: 2,
                                      expectedStart: soundStart / 2, recordedStart: range.lowerBound)
        let seen = "\(alignment.gaps.count) runs of inserted silence (\(alignment.gaps))"
        #expect(alignment.mismatch == nil, "sample lost, changed or out of order at \(String(describing: alignment.mismatch)); \(seen)")
        #expect(!alignment.endsEarly, "the recording ends after \(alignment.matchedFrames) of 44100 frames; \(seen)")
        #expect(alignment.gaps.allSatisfy { $0.isAtPeriodBoundary(Self.period) }, "silence inside a period (a seam?): \(seen)")
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
