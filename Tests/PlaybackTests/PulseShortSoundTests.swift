import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

extension PulseTests {
    /// Sounds shorter than a period through ALSA's pulse plugin reach the sink whole. Such a sound
    /// never reaches the start threshold: the play-out starts the stream itself, and the plugin's
    /// delay, interpolated by libpulse, reads 0 a moment later while the server has not yet taken
    /// the frames; stopping then (snd_pcm_drop: cork and flush) threw the whole sound away.
    @Test func soundsShorterThanAPeriodReachTheSinkWholeThroughThePlugin() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        // Every sample non-zero, so each sound is the recording's non-zero samples, in order.
        let lengths = [10, 100, 441]
        var paths: [String] = []
        for frames in lengths {
            let path = folder.file("short-\(frames).wav")
            try TestTools.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", path, "synth", "\(frames)s", "square", "50", "vol", "0.5"])
            paths.append(path)
        }
        var failures: [String] = []
        let recording = try pulse.record {
            for path in paths {
                let player = try ChildProcess(TestTools.notiPlay, [path, "--through-alsa"], environment: pulse.environment, in: folder)
                if player.wait() != 0 { failures.append(player.stderr) }
                usleep(100_000)
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        let expected = try paths.flatMap { try SoundDecoder(path: $0).readAll().map { Int16(($0 * 32768).rounded()) } }
        #expect(!expected.contains(0))
        let heard = recording.filter { $0 != 0 }
        let whole = heard == expected  // not in #expect: it would print both
        #expect(whole, "the sink heard \(heard.count / 2) frames of the \(expected.count / 2) in sounds of \(lengths) frames")
    }
}
