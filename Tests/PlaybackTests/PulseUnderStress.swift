import Foundation
import NotiPlayTestSupport
import Testing

/// Real time under load: part of PulseTests (serialized, run on their own by scripts/test.sh).
extension PulseTests {
    /// stress-ng keeps both cores busy (one CPU hog per core, at normal priority) while an 8 s
    /// sound plays through the null sink: the render thread still never lets the device run dry.
    @Test func aLongSoundPlaysWithoutUnderrunWhileEveryCoreIsBusy() throws {
        let pulse = try #require(PulseServer.shared, "PulseAudio did not start")
        try pulse.ensureRunning()
        let path = try tone("under-load.wav", seconds: 8)
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let stress = try ChildProcess("stress-ng", ["--cpu", String(cores), "--cpu-method", "matrixprod", "--timeout", "12s", "--quiet"], in: folder)
        defer { stress.signal(SIGKILL); stress.wait() }
        usleep(500_000)  // the hogs are running
        let start = Date()
        let player = try ChildProcess(TestTools.notiPlay, [path, "--verbose"], environment: pulse.environment, in: folder)
        let status = player.wait()
        let wall = Date().timeIntervalSince(start)
        #expect(status == 0, "\(player.stderr)")
        #expect(player.stderr.contains("underruns:   0 device"), "\(player.stderr)")
        #expect(wall >= 8 && wall < 8.5, "took \(wall) s; \(player.stderr)")
    }
}
