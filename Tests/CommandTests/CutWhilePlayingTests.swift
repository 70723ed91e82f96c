import Foundation
import NotiPlayTestSupport
import Testing

/// A sound file cut by another process while noti-play plays it: the one line says how many
/// bytes the file really holds now, not how far the read had got.
@Suite struct CutWhilePlayingTests {
    let folder = TemporaryDirectory("cut")

    @Test func theMessageSaysWhatTheCutFileHolds() throws {
        // 10 s of mono 16-bit 44.1 kHz: 882,044 bytes, read a chunk at a time while it plays.
        let path = folder.file("cut.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "44100", "-c", "1", "-b", "16", path, "synth", "10", "sine", "440"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)

        // The device: ALSA's file plugin writing into a FIFO that the test reads, so that the
        // sound is under way (its first samples came out) before the file is cut.
        let fifo = folder.file("device.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        // Read and write: the plugin's open never waits, and the FIFO never reads as ended.
        let device = open(fifo, O_RDWR | O_CLOEXEC)
        try #require(device >= 0)
        defer { close(device) }
        let config = folder.file("asound.conf")
        try "pcm.!default { type file slave.pcm { type null } file \"\(fifo)\" format \"raw\" }\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let player = try ChildProcess(TestTools.notiPlay, [path], environment: ["ALSA_CONFIG_PATH": config], in: folder)

        func readDevice(timeout seconds: Int32) -> Int {
            var ready = pollfd(fd: device, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, seconds * 1000) == 1 else { return 0 }
            var chunk = [UInt8](repeating: 0, count: 65536)
            return max(0, read(device, &chunk, chunk.count))
        }
        // Generous: only a noti-play that never plays would take it.
        #expect(readDevice(timeout: 20) > 0, "no sound came out: \(player.stderr)")
        // Far less than the header and the first chunk it has read: the next read finds less.
        let left = 1000
        #expect(truncate(path, off_t(left)) == 0)
        while player.poll() == nil { _ = readDevice(timeout: 1) }

        #expect(player.wait() == 1)
        #expect(player.stderr == "noti-play: \(path): the file was cut while it was read (\(left) of \(size) bytes are left)\n")
    }
}
