import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// The stall watchdog judges the device's progress, not the wall clock: a device that is slow
/// but takes sound, or a process stopped and continued, plays to the end; a file cut while it
/// plays is a failure, not a short success.
///
/// The device is ALSA's file plugin writing into a FIFO that this test reads at a chosen pace:
/// a real device whose speed the test sets.
@Suite struct WatchdogTests {
    let folder = TemporaryDirectory("watchdog")

    /// A mono 44.1 kHz 16-bit WAV of `seconds`.
    func tone(_ name: String, seconds: Double) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=\(seconds)", "-ac", "1",
                                            "-c:a", "pcm_s16le", "-y", path])
        return path
    }

    /// ALSA's default device writing raw FLOAT samples into a FIFO, and a reader draining it at
    /// `bytesPerSecond` on a thread of its own until the writer closes it.
    final class PacedDevice: @unchecked Sendable {
        let fifo: String
        let configPath: String
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        private let done = DispatchSemaphore(value: 0)

        init(in folder: TemporaryDirectory, name: String, bytesPerSecond: Int) throws {
            fifo = folder.file("\(name).fifo")
            configPath = folder.file("\(name).conf")
            try #require(mkfifo(fifo, 0o600) == 0, "mkfifo \(fifo): \(String(cString: strerror(errno)))")
            try "pcm.!default { type file slave.pcm { type null } file \"\(fifo)\" format \"raw\" }\n"
                .write(toFile: configPath, atomically: true, encoding: .utf8)
            let path = fifo
            Thread.detachNewThread { [self] in
                let fd = open(path, O_RDONLY)  // waits for noti-play to open the device
                var chunk = [UInt8](repeating: 0, count: max(1, bytesPerSecond / 20))
                while fd >= 0 {
                    let n = read(fd, &chunk, chunk.count)
                    if n <= 0 { break }
                    lock.withLock { bytes += chunk[0..<n] }
                    usleep(50_000)
                }
                if fd >= 0 { close(fd) }
                done.signal()
            }
        }

        var environment: [String: String] { ["ALSA_CONFIG_PATH": configPath] }

        /// What the device took, once the writer has closed it.
        func samples() -> [Float] {
            _ = done.wait(timeout: .now() + 30)
            return lock.withLock { bytes }.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
    }

    func run(_ arguments: [String], device: PacedDevice, during: (ChildProcess) -> Void = { _ in }) throws -> (status: Int32, stderr: String, seconds: Double) {
        let started = Date()
        let child = try ChildProcess(TestTools.notiPlay, arguments + ["--sample-format", "FLOAT"], environment: device.environment, in: folder)
        let killer = DispatchWorkItem { child.signal(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 40, execute: killer)
        during(child)
        let status = child.wait()
        killer.cancel()
        return (status, child.stderr, Date().timeIntervalSince(started))
    }

    /// 1 s of sound (176 KB of FLOAT) through a device taking 16 KB/s: about 7 s, well past the
    /// sound's length + 5 s where the old wall-clock deadline gave up.
    @Test func aSlowButWorkingDevicePlaysTheWholeSound() throws {
        let path = try tone("slow.wav", seconds: 1)
        let device = try PacedDevice(in: folder, name: "slow", bytesPerSecond: 16_000)
        let result = try run([path], device: device)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.seconds > 6, "the device was meant to take longer than the sound + 5 s; took \(result.seconds) s")
        #expect(device.samples() == (try SoundDecoder(path: path).readAll()))
    }

    /// Stopped (SIGSTOP) for 7 s mid-sound and continued: not a stalled device.
    @Test func aProcessStoppedAndContinuedPlaysToTheEnd() throws {
        let path = try tone("stopped.wav", seconds: 1)
        let device = try PacedDevice(in: folder, name: "stopped", bytesPerSecond: 100_000)
        let result = try run([path], device: device) { child in
            usleep(400_000)
            child.signal(SIGSTOP)
            sleep(7)
            child.signal(SIGCONT)
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(device.samples() == (try SoundDecoder(path: path).readAll()))
    }

    /// A 10 s sound cut to its first 200 KB while it plays: status 1 and a line, not "finished".
    @Test func aSoundCutWhileItPlaysFailsWithOneLine() throws {
        let path = try tone("cut.wav", seconds: 10)
        let original = try SoundDecoder(path: path).readAll()
        let device = try PacedDevice(in: folder, name: "cut", bytesPerSecond: 64_000)
        let result = try run([path], device: device) { _ in
            usleep(300_000)
            #expect(truncate(path, 200_000) == 0)
        }
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cut.wav: the file was cut while it was read"), "\(result.stderr)")
        // What played is the sound's start, exactly, and no more than the cut file held.
        let played = device.samples()
        #expect(played.count <= (200_000 - 44) / 2)
        #expect(played == Array(original.prefix(played.count)))
    }

    /// SIGHUP (the terminal went away) ends a sound as SIGINT and SIGTERM do: faded, 129.
    @Test func aHangupEndsTheSoundWith129() throws {
        let path = try tone("hangup.wav", seconds: 2)
        let device = try PacedDevice(in: folder, name: "hangup", bytesPerSecond: 100_000)
        let result = try run([path], device: device) { child in
            usleep(500_000)
            child.signal(SIGHUP)
        }
        #expect(result.status == 129, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let played = device.samples()
        #expect(played.count < 2 * 44100)
    }

    /// A SIGINT the command inherited as ignored (a shell's background job) stays ignored.
    @Test func anInheritedIgnoredInterruptIsIgnored() throws {
        let path = try tone("ignored.wav", seconds: 1)
        let device = try PacedDevice(in: folder, name: "ignored", bytesPerSecond: 176_400)
        let child = try ChildProcess("/bin/sh", ["-c", "trap '' INT; exec '\(TestTools.notiPlay)' '\(path)' --sample-format FLOAT"],
                                     environment: device.environment, in: folder)
        usleep(400_000)
        child.signal(SIGINT)
        #expect(child.wait() == 0, "\(child.stderr)")
        #expect(device.samples() == (try SoundDecoder(path: path).readAll()))
    }
}
