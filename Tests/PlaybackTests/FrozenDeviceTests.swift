import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// An ALSA device whose poll descriptor never wakes again (a sound server stopped behind its ALSA
/// plugin; pipewire-alsa losing its wake-up under load): the render thread must not wait on it
/// for ever. The device is Tests/ALSAPlugins/pcm_once.c started frozen (`OneOpenDevice`'s
/// `freezePath`): its clock stands still and nothing ever wakes a writer.
@Suite struct FrozenDeviceTests {
    let folder = TemporaryDirectory("frozen-device")

    /// A stereo 48 kHz 32-bit float WAV of `seconds`: the device's rate and format, so the stream
    /// carries the file's samples unchanged.
    func tone(_ name: String, seconds: Double, frequency: Int) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("sox", ["-n", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32", path,
                                         "synth", String(seconds), "sine", String(frequency), "vol", "0.5"])
        return path
    }

    /// `noti-play listen` plays a sound into the frozen device: the sound fails as stalled within
    /// the stall deadline, nothing spins meanwhile, the stream is let go (its render thread
    /// returns from the device), and the same listener plays the next notification's sound,
    /// exactly. (Its render thread was blocked in snd_pcm_writei's poll without a timeout: the
    /// stream could never be closed, and every later sound was refused with "still not
    /// answering" for the life of the process.)
    @Test func aFrozenDeviceFailsTheSoundAndTheSameListenerPlaysTheNext() throws {
        let freeze = folder.file("frozen")
        try #require(FileManager.default.createFile(atPath: freeze, contents: nil))
        let device = try OneOpenDevice(in: folder, rate: 48000, freezePath: freeze)
        let first = try tone("first.wav", seconds: 2, frequency: 440), next = try tone("next.wav", seconds: 0.5, frequency: 660)
        let rig = try ListenRig()
        try FileManager.default.createDirectory(atPath: rig.folder.file("config/noti-play"), withIntermediateDirectories: true)
        try "backend = alsa\n".write(toFile: rig.folder.file("config/noti-play/noti-play.conf"), atomically: true, encoding: .utf8)
        _ = try rig.startServer()
        let listener = try rig.startListener(["--interval", "0"], environment: device.environment)

        try rig.notifySend(["-a", "chat", "-h", "string:sound-file:\(first)"])
        try waitUntil("the device to start frozen", timeout: 10) { try device.events().contains { $0.kind == "frozen" } }
        let frozenAt = Date()
        // Frozen, the listener's threads wait: one wake-up per bounded wait, not a spin.
        let busiest = PipeWireTests.busiestThreads(process: String(listener.pid), among: nil)
        #expect(busiest.share < 0.05, "while the device is frozen \(busiest.description)")

        let failed = try listener.waitForLog("chat: no sound: ", timeout: 15)
        let stalledAfter = Date().timeIntervalSince(frozenAt)
        #expect(listener.logLines[failed] == "chat: no sound: audio device 'default' (ALSA): stopped taking sound: nothing played for 5 s",
                "\(listener.logLines[failed])")
        #expect(stalledAfter < 9, "the sound failed \(stalledAfter) s after the device froze")

        // The next notification, once the device plays again. The thread that closes the stalled
        // stream tells the player just after the close returned: until then a sound is refused
        // at once ("still not answering"), and one asked for a little later plays.
        unlink(freeze)
        var answer = ""
        let asking = Date()
        repeat {
            let lines = listener.logLines.count
            try rig.notifySend(["-a", "mail", "-h", "string:sound-file:\(next)"])
            try waitUntil("the next sound to end", timeout: 15) {
                listener.logLines.dropFirst(lines).contains { $0.hasPrefix("mail: ") && !$0.hasPrefix("mail: plays") }
            }
            answer = listener.logLines.dropFirst(lines).first { $0.hasPrefix("mail: ") && !$0.hasPrefix("mail: plays") } ?? ""
            if answer.contains("still not answering") { usleep(100_000) } else { break }
        } while Date().timeIntervalSince(asking) < 5
        #expect(answer == "mail: finished", "the next sound on the same listener: \(answer)")

        // The frozen stream was closed, and the device's next open carried the next sound, exactly.
        let events = try device.events()
        let closes = events.filter { $0.kind == "close" }
        #expect(events.filter { $0.kind == "open" }.count == 2 && closes.count >= 1, "\(events)")
        let frozenFrames = try #require(closes.first?.fields["frames"].flatMap { Int($0) }, "the frozen stream was never closed: \(events)")
        let captured = try device.captured()
        let nextSamples = captured.dropFirst(frozenFrames * 8).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let expected = try SoundDecoder(path: next).readAll()
        #expect(nextSamples == expected, "the second open took \(nextSamples.count) samples, the sound has \(expected.count)")
        #expect(listener.poll() == nil, "the listener ended: \(listener.stderr)")
        print("frozen device: the sound failed \(stalledAfter) s after the device froze; while frozen \(busiest.description)")
    }
}
