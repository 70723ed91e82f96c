import Foundation
import NotiPlayTestSupport
import Testing

extension WatchdogTests {
    /// `--ringtone --for SECONDS` starts its clock when the sound is asked for, not when it
    /// starts: since the command plays through the player (dca3b99) the time runs while the
    /// device opens. A device that takes 1.5 s to open (a sound server starting, a Bluetooth
    /// sink waking; here ALSA's file plugin on a FIFO whose reader comes late) and `--for 1`:
    /// the ringtone is cancelled before a frame reaches the device, and the command exits 0,
    /// the status of a ringtone whose time was up. At 8b4e5fa it rang once the device opened
    /// (61 MB through the FIFO, exit 0 after 2.6 s). It should ring for its time, or fail.
    @Test func aRingtoneWithForRingsWhenItsDeviceOpensLate() throws {
        let path = try tone("late-ring.wav", seconds: 0.5)
        let fifo = folder.file("late.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let received = Locked(0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            usleep(1_500_000)
            // Non-blocking: if noti-play has gone, there is no writer to wait for.
            let fd = open(fifo, O_RDONLY | O_NONBLOCK)
            usleep(100_000)  // a writer waiting in its open has returned from it by now
            var chunk = [UInt8](repeating: 0, count: 65536)
            while fd >= 0 {
                let n = read(fd, &chunk, chunk.count)
                if n > 0 { received.withLock { $0 += n }; continue }
                if n < 0 && errno == EAGAIN { usleep(10_000); continue }
                break  // end of file: the writer closed it, or there never was one
            }
            if fd >= 0 { close(fd) }
            done.signal()
        }
        let child = try ChildProcess(TestTools.notiPlay, [path, "--ringtone", "--for", "1", "--device", "file:FILE=\(fifo),FORMAT=raw"],
                                     in: folder)
        let status = child.wait()
        #expect(done.wait(timeout: .now() + 30) == .success)
        let bytes = received.withLock { $0 }
        #expect(bytes > 0 || status != 0, "exit \(status), \(bytes) bytes reached the device; stderr: \(child.stderr)")
    }
}
