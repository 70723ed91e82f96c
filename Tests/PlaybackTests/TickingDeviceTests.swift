import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// An ALSA device whose poll descriptor only ticks (Tests/ALSAPlugins/pcm_once.c: a timer, once a
/// period once started, none before): unlike a card's, it does not say "room" while there is
/// room, so a writer that waits for its next tick before looking leaves the device one period
/// to play and it runs dry at every tick.
@Suite struct TickingDeviceTests {
    let folder = TemporaryDirectory("ticking-device")

    /// `noti-play FILE` fills the device's buffer rather than waiting a tick between periods:
    /// no underruns (it underran at 99 of a 2 s sound's 100 periods), and every sample arrives.
    @Test func theCommandKeepsATickingDevicesBufferFull() throws {
        let device = try OneOpenDevice(in: folder, rate: 48000)
        let path = folder.file("tone.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32", path,
                                         "synth", "2", "sine", "440", "vol", "0.5"])
        let player = try ChildProcess(TestTools.notiPlay, [path, "--backend", "alsa", "--verbose"], environment: device.environment, in: folder)
        #expect(player.wait() == 0, "\(player.stderr)")
        let underruns = try #require(PulseTests.verboseFigure("underruns:", in: player.stderr), "\(player.stderr)")
        // Waiting a tick per period costs every one; a loaded machine may cost some, never half.
        #expect(underruns < 50, "\(underruns) underruns in 100 periods; \(player.stderr)")
        let captured = try device.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let expected = try SoundDecoder(path: path).readAll()
        let exact = captured == expected  // not in #expect: it would print both
        #expect(exact, "the device took \(captured.count / 2) frames of \(expected.count / 2)")
    }
}
