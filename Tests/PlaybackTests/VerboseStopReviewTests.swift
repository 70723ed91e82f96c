import Foundation
import NotiPlayTestSupport
import Testing

extension PulseTests {
    /// `--verbose` after a signal says when the fade was written relative to the signal
    /// (`lastWriteNanoseconds - signalled`, unsigned). A signal that comes after the last
    /// write — the whole sound is in the device buffer and the command waits for its drain —
    /// prints the difference wrapped around: "fade written 18446744073348.9 ms after the
    /// signal". 1 s periods put a 0.5 s sound in the buffer at once, so a SIGINT at 0.3 s always
    /// comes during the drain. (Found in review; 8b4e5fa printed the same.)
    @Test func aSignalDuringTheDrainPrintsNoWrappedFadeTime() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        try pulse.ensureRunning()
        let path = try tone("drain-signal.wav", seconds: 0.5)
        let player = try ChildProcess(TestTools.notiPlay, [path, "--verbose", "--period-ms", "1000"], environment: pulse.environment, in: folder)
        usleep(300_000)
        player.signal(SIGINT)
        let status = player.wait()
        let stopped = player.stderr.split(separator: "\n").first { $0.contains("stopped:") }.map(String.init) ?? ""
        // "noti-play: stopped:     fade written X ms after the signal; device drained at Y ms"
        let figure = stopped.split(separator: " ").compactMap { Double($0) }.first ?? 0
        #expect(status == 130)
        #expect(figure < 10_000, "\(stopped)")
    }
}
