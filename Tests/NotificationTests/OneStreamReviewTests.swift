import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension PlayerTests {
    /// What the review of "one stream per device" (90f7814, e11dc91) and of the player's drain
    /// (dca3b99) found: each test states what should happen, and fails where it does not. On
    /// scripted devices (`PCMBackend`) unless a test says otherwise; nested in `PlayerTests` to be
    /// serialized with its idle test.
    @Suite struct OneStreamReview {
        let folder = TemporaryDirectory("one-stream-review")

        /// A 32-bit float WAV written here, byte for byte: any rate the decoder takes
        /// (1 to 1,536,000 Hz), which ffmpeg's generators do not all reach.
        @discardableResult
        func wav(_ name: String, rate: Int, channels: Int = 2, frames: Int, _ sample: (_ frame: Int) -> Float) throws -> String {
            var data: [UInt8] = []
            func le32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
            func le16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data += $0 } }
            let bytes = frames * channels * 4
            data += Array("RIFF".utf8); le32(UInt32(36 + bytes)); data += Array("WAVE".utf8)
            data += Array("fmt ".utf8); le32(16); le16(3); le16(UInt16(channels)); le32(UInt32(rate))
            le32(UInt32(rate * channels * 4)); le16(UInt16(channels * 4)); le16(32)
            data += Array("data".utf8); le32(UInt32(bytes))
            for frame in 0..<frames {
                let value = sample(frame)
                for _ in 0..<channels { le32(value.bitPattern) }
            }
            let path = folder.file(name)
            try Data(data).write(to: URL(fileURLWithPath: path))
            return path
        }

        func player(_ device: ScriptedDevice, output: NotificationSoundPlayer.Output = .init()) -> NotificationSoundPlayer {
            var configuration = NotificationSoundPlayer.Configuration(
                appFolders: [folder.path, Repository.path + "/Sounds"], device: "scripted", policy: SoundPolicy(), output: output)
            configuration.pcmBackend = device.backend
            return NotificationSoundPlayer(configuration: configuration)
        }

        /// Runs `body` with a player on `device`, then closes the player and lets go of every
        /// thread the device still holds.
        func withPlayer(
            on device: ScriptedDevice, output: NotificationSoundPlayer.Output = .init(),
            _ body: (NotificationSoundPlayer, Reports) throws -> Void
        ) rethrows {
            let player = player(device, output: output)
            defer {
                player.close()
                device.release()
            }
            try body(player, Reports())
        }

        func rms(_ samples: ArraySlice<Float>) -> Double {
            (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
        }

        /// A sound at an absurd rate (1 kHz here; the decoder takes 1 Hz to 1.536 MHz, from a
        /// notification's `sound-file` too) opens the device's one stream at that rate, and the
        /// stream stays for the idle timeout (5 s, renewed by every sound). A critical alert that
        /// comes meanwhile must still play. Before one stream per device it had a stream of its
        /// own rate; now 44.1 kHz → 1 kHz is beyond the resampler's 32× and the alert fails:
        /// `cannot resample from 44100 Hz to 1000 Hz (at most 32 times down or 64 times up)`.
        @Test func aSoundAtAnAbsurdRateDoesNotSilenceTheCriticalAlertAfterIt() throws {
            try wav("slow.wav", rate: 1000, frames: 100) { _ in 0.25 }
            let device = ScriptedDevice()
            try withPlayer(on: device) { player, reports in
                try player.play(.named("slow.wav")) { reports.add($0) }
                #expect(reports.results(1) == [.finished])
                try player.play(.criticalSoundNamed("default.caf", withAudioVolume: 1)) { reports.add($0) }
                let critical = reports.results(1).last
                #expect(critical == .finished, "the critical alert after a 1 kHz sound: \(String(describing: critical))")
            }
        }

        /// A stream opened by an 8 kHz sound (a telephone-band beep) keeps 8 kHz for as long as
        /// sounds come: a 44.1 kHz sound after it is low-passed to 4 kHz. Here a 6 kHz tone at
        /// amplitude 0.5 (RMS 0.354) plays as silence, and its report says `finished`.
        @Test func a44kHzSoundAfterAn8kHzSoundKeepsWhatIsAbove4kHz() throws {
            try wav("beep8k.wav", rate: 8000, frames: 800) { _ in 0 }
            try wav("tone44k.wav", rate: 44100, frames: 13230) { Float(0.5 * sin(2 * Double.pi * 6000 * Double($0) / 44100)) }
            let device = ScriptedDevice()
            try withPlayer(on: device) { player, reports in
                try player.play(.named("beep8k.wav")) { reports.add($0) }
                #expect(reports.results(1) == [.finished])
                try player.play(.named("tone44k.wav")) { reports.add($0) }
                let second = reports.wait(1).last
                #expect(second?.result == .finished)
                let rate = second?.stream?.format.sampleRate ?? 0
                let captured = device.samples(ofStream: 0)
                let streamChannels = device.format(ofStream: 0)?.channelCount ?? 2
                // The tone's middle third, wherever the stream's rate put it (after the beep's frames).
                let beepFrames = 800 * rate / 8000
                let toneFrames = 13230 * rate / 44100
                let from = streamChannels * (beepFrames + toneFrames / 3), to = streamChannels * (beepFrames + 2 * toneFrames / 3)
                let level = to <= captured.count ? rms(captured[from..<to]) : 0
                #expect(level > 0.3, "the 6 kHz tone played at RMS \(level) on a \(rate) Hz stream")
            }
        }

        /// `drain` closes the device on a thread of its own, after the tail has played; a sound
        /// asked for then opens a second stream before the first has closed. A device that
        /// allows one open (a `hw:` device, as `ScriptedDevice(exclusive:)` is) refuses it with
        /// EBUSY and the sound fails; ALSA's file plugin would truncate the first stream's file.
        /// 100 ms periods make the tail (up to 300 ms) long enough to be sure to meet it.
        /// (A play that reaches the control thread with the drain, in one batch, plays.)
        @Test func aSoundPlayedJustAfterADrainPlaysOnADeviceThatAllowsOneOpen() throws {
            let device = ScriptedDevice(paced: true, exclusive: true)
            try withPlayer(on: device, output: .init(periodMicroseconds: 100_000, periodsPerBuffer: 3)) { player, reports in
                try player.play(.named("default.caf")) { reports.add($0) }
                #expect(reports.results(1) == [.finished])
                let drained = DispatchSemaphore(value: 0)
                player.drain { _ in drained.signal() }
                // After the control thread has handled the drain (a play in the same batch of
                // commands would take the open stream), while the tail plays.
                usleep(30_000)
                try player.play(.named("default.caf")) { reports.add($0) }
                let second = reports.results(1).last
                #expect(second == .finished, "the sound asked for after drain: \(String(describing: second)); \(device.counts)")
                #expect(drained.wait(timeout: .now() + 10) == .success)
            }
        }

        /// A drain while the device is still opening for a sound that was cancelled meanwhile
        /// lets go of the open and counts its thread as stuck, as if it had passed its deadline:
        /// every sound asked for until that open returns fails at once with `deviceUnresponsive`
        /// ("still not answering"), though nothing has timed out. Without the drain, the next
        /// sound would wait for the open and play. (A slow open is ordinary: a sound server
        /// starting, a Bluetooth sink waking.)
        @Test func aDrainDuringASlowOpenDoesNotRefuseTheNextSound() throws {
            let device = ScriptedDevice(opening: .blocks)
            try withPlayer(on: device) { player, reports in
                let first = try player.play(.named("default.caf")) { reports.add($0) }
                #expect(device.wait { $0.blockedOpens == 1 })
                player.cancel(first)
                #expect(reports.results(1) == [.cancelled])
                let drained = DispatchSemaphore(value: 0)
                player.drain { _ in drained.signal() }
                #expect(drained.wait(timeout: .now() + 10) == .success)
                try player.play(.named("default.caf")) { reports.add($0) }
                usleep(100_000)
                device.release()  // the open returns, well within its 5 s
                let second = reports.results(1).last
                #expect(second == .finished, "the sound after the drain: \(String(describing: second))")
            }
        }

        /// A rate just under 32 × the stream's with no small ratio (1,411,199 Hz → 44.1 kHz) would
        /// need a 20 MB filter table (1,025 interpolated phases × 4,800 taps) and about 0.13 s of
        /// the control thread to design, and such a sound is a valid WAV that a notification's
        /// `sound-file` may name. The player refuses it in one line, before designing anything
        /// (tables over 2 MB), so eight of them neither hold memory nor the other sounds up;
        /// the stream plays on. (Found in review: kept by count, eight designs held 160 MB.)
        @Test func filterDesignsForHostileRatesAreRefusedBeforeTheyCostMemory() throws {
            let rates = (0..<8).map { 1_411_199 - 2 * $0 }
            for rate in rates { try wav("hostile-\(rate).wav", rate: rate, channels: 1, frames: rate / 100) { _ in 0.1 } }
            let device = ScriptedDevice()
            try withPlayer(on: device) { player, reports in
                try player.play(.named("default.caf")) { reports.add($0) }  // a 44.1 kHz stream
                #expect(reports.results(1) == [.finished])
                let before = ProcessMemory.residentKiB() ?? 0
                for rate in rates {
                    try player.play(.named("hostile-\(rate).wav")) { reports.add($0) }
                    let result = reports.results(1).last
                    guard case .failed(let error)? = result else {
                        Issue.record("a \(rate) Hz sound: \(String(describing: result))")
                        continue
                    }
                    #expect(error.description == "cannot resample from \(rate) Hz to 44100 Hz here: its filter would take 20 MB (44100 Hz is the rate the device's stream is open at)")
                }
                try player.play(.named("default.caf")) { reports.add($0) }
                #expect(reports.results(1).last == .finished)
                let grown = ((ProcessMemory.residentKiB() ?? 0) - before) / 1024
                #expect(grown < 16, "resident memory grew by \(grown) MiB after \(rates.count) refused sounds")
            }
        }

        /// One decode worker fills every voice's ring, and a sound is converted with all its
        /// channels before they are mapped onto the stream's two. A valid 64-channel WAV at
        /// 1,411,199 Hz on a 44.1 kHz stream costs 2 × 4,800 taps per output frame per channel:
        /// `noti-play convert` (release build) takes 0.63 s of CPU for 0.2 s of it, 3.2 × real
        /// time. While it plays, the worker cannot keep the other voices' rings filled: a sound
        /// that was playing before it starves, its 0.9 s stretched with gaps at the device (in a
        /// release build by about the conversion's excess, 0.4 s here; in this debug build, by
        /// seconds). 0.4 s of slack covers the paced device's start and a loaded machine.
        /// It should not: the cost of one sound's conversion must not hold up another's
        /// (convert after mapping to the stream's channels, bound the cost, or refuse the sound).
        @Test func anExpensiveConversionDoesNotStarveTheSoundsAlreadyPlaying() throws {
            let rate = 1_411_199, channels = 64, frames = 1_411_199 / 5  // 0.2 s
            var bytes = Data(count: 44 + frames * channels * 2)  // 16-bit silence: the cost is the same
            func put(_ offset: Int, _ value: UInt32, _ size: Int) {
                for i in 0..<size { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
            }
            bytes.replaceSubrange(0..<4, with: Array("RIFF".utf8)); put(4, UInt32(bytes.count - 8), 4)
            bytes.replaceSubrange(8..<16, with: Array("WAVEfmt ".utf8)); put(16, 16, 4); put(20, 1, 2); put(22, UInt32(channels), 2)
            put(24, UInt32(rate), 4); put(28, UInt32(rate * channels * 2), 4); put(32, UInt32(channels * 2), 2); put(34, 16, 2)
            bytes.replaceSubrange(36..<40, with: Array("data".utf8)); put(40, UInt32(frames * channels * 2), 4)
            try bytes.write(to: URL(fileURLWithPath: folder.file("wide.wav")))

            let device = ScriptedDevice(paced: true)
            try withPlayer(on: device) { player, reports in
                let clock = ContinuousClock()
                let started = clock.now
                let firstEnded = Mutex<Duration?>(nil)
                try player.play(.named("default.caf")) { report in  // 0.9 s, opens a 44.1 kHz stream
                    firstEnded.withLock { $0 = clock.now - started }
                    reports.add(report)
                }
                usleep(100_000)
                try player.play(.named("wide.wav")) { reports.add($0) }
                let firstReport = reports.wait(2).first { $0.file?.hasSuffix("/default.caf") == true }
                let ended = firstEnded.withLock { $0 }
                #expect(firstReport?.result == .finished)
                let starved = firstReport?.stream?.starvedWaits ?? -1
                #expect(starved == 0, "periods in which every voice waited for the decoder: \(starved)")
                #expect((ended ?? .seconds(99)) < .milliseconds(1300), "the 0.9 s sound ended after \(String(describing: ended))")
            }
        }

        /// `Configuration.output` is public and unchecked: values a host may pass by mistake
        /// trap in integer arithmetic on the device's opener thread (the period in frames, the
        /// buffer, the channel count, the voice slots), which ends the host's process. They
        /// should be refused (a failed report, or a clamp), never crash. Exit tests: a trap here
        /// ends the child, not the test run.
        @Test func outputSettingsOutOfRangeDoNotCrashTheHost() async {
            await #expect(processExitsWith: .success, "periodMicroseconds: .max") {
                try? ReviewHost.play(output: .init(periodMicroseconds: .max))
            }
            await #expect(processExitsWith: .success, "periodsPerBuffer: .max") {
                try? ReviewHost.play(output: .init(periodsPerBuffer: .max))
            }
            await #expect(processExitsWith: .success, "voiceCapacity: .max") {
                try? ReviewHost.play(output: .init(voiceCapacity: .max))
            }
            await #expect(processExitsWith: .success, "streamChannels: -1") {
                try? ReviewHost.play(output: .init(streamChannels: -1))
            }
        }
    }
}

/// A host of the player in an exit test's child process: plays the default sound into a file
/// through ALSA's file plugin with `output`, and waits for the report.
enum ReviewHost {
    static func play(output: NotificationSoundPlayer.Output) throws {
        let folder = TemporaryDirectory("review-host")
        let player = NotificationSoundPlayer(configuration: .init(
            appFolders: [Repository.path + "/Sounds"], device: "file:FILE=\(folder.file("out.raw")),FORMAT=raw",
            policy: SoundPolicy(), output: output))
        defer { player.close() }
        let done = DispatchSemaphore(value: 0)
        try player.play(.named("default.caf")) { _ in done.signal() }
        _ = done.wait(timeout: .now() + 10)
    }
}
