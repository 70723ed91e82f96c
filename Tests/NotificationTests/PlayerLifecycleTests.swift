import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension PlayerTests {
    /// The player's side of the daemon contract on scripted devices (`PCMBackend`) instead of
    /// ALSA: a device that blocks on open, fails writes, stalls inside a write or fails to open,
    /// with deadlines of 1 s instead of 5. Nested in `PlayerTests`, and so serialized with them:
    /// these players' threads wake up while the idle test counts wake-ups.
    @Suite struct Lifecycle {
        static let device = "scripted"

        func player(_ device: ScriptedDevice) -> NotificationSoundPlayer {
            var configuration = NotificationSoundPlayer.Configuration(
                appFolders: [Repository.path + "/Sounds"], device: Self.device, policy: SoundPolicy())
            configuration.pcmBackend = device.backend
            configuration.deviceDeadlines = DeviceDeadlines.Seconds(open: 1, stall: 1)
            return NotificationSoundPlayer(configuration: configuration)
        }

        /// Runs `body` with a player on `device`, then closes the player and lets go of every
        /// thread the device still holds.
        func withPlayer(on device: ScriptedDevice, _ body: (NotificationSoundPlayer, Reports) throws -> Void) rethrows {
            let player = player(device)
            defer {
                player.close()
                device.release()
            }
            try body(player, Reports())
        }

        /// The default sound as the player's stereo stream receives it, at `volume`.
        func expectedSamples(volume: Float) throws -> [Float] {
            try SoundDecoder(path: Repository.path + "/Sounds/default.caf").readAll().flatMap { [$0 * volume, $0 * volume] }
        }

        @Test func aDeviceThatBlocksOnOpenFailsAtTheDeadlineAndIsClosedWhenItReturns() throws {
            let device = ScriptedDevice(opening: .blocks)
            try withPlayer(on: device) { player, reports in
                let clock = ContinuousClock()
                let started = clock.now
                var durations: [Duration] = []
                for _ in 0..<5 {
                    let call = clock.now
                    try player.play(.named("default.caf")) { reports.add($0) }
                    durations.append(clock.now - call)
                }
                // Bounds that tell "returned" from "waited for the device" (1 s here) on a loaded
                // machine; the figures themselves (tens of µs) are scripts/measure/library.py's.
                #expect(durations.sorted()[2] < .milliseconds(50), "play took \(durations)")
                let timeout = PlaybackResult.failed(.deviceTimeout(device: Self.device, backend: .alsa, seconds: 1))
                #expect(reports.results(5) == Array(repeating: timeout, count: 5))
                let failedAfter = clock.now - started
                #expect(failedAfter >= .seconds(1) && failedAfter < .seconds(3), "failed after \(failedAfter)")
                #expect(device.counts == ScriptedDevice.Counts(openAttempts: 1, blockedOpens: 1))

                let closing = clock.now
                player.close()
                let closed = clock.now - closing
                #expect(closed < .milliseconds(50), "close took \(closed)")  // not the 100 ms wait for a device
                #expect(device.counts.blockedOpens == 1, "the open returned before close did")
                // The open returns after close: its thread closes the device it got, and tells nobody.
                device.release()
                #expect(device.wait { $0.closes == 1 }, "\(device.counts)")
                #expect(device.counts.opens == 1)
                #expect(reports.values.withLock { $0.count } == 5, "a completion ran after close returned")
            }
        }

        /// A sound still waiting for its device when the player closes is never answered, and
        /// the device that opens afterwards is closed.
        @Test func closingWhileTheDeviceOpensAnswersNothingAfterwards() throws {
            let device = ScriptedDevice(opening: .blocks)
            try withPlayer(on: device) { player, reports in
                try player.play(.named("default.caf")) { reports.add($0) }
                #expect(device.wait { $0.blockedOpens == 1 })
                let clock = ContinuousClock()
                let closing = clock.now
                player.close()
                let closed = clock.now - closing
                #expect(closed < .milliseconds(50), "close took \(closed)")  // not the 100 ms wait for a device
                device.release()
                #expect(device.wait { $0.closes == 1 }, "\(device.counts)")
                #expect(reports.values.withLock { $0.isEmpty }, "a completion ran after close returned: \(reports.values.withLock { $0 })")
            }
        }

        /// A stream whose writes fail is not reused: the next sound opens a new one and plays.
        @Test func aDeviceWhoseWritesFailIsOpenedAgainForTheNextSound() throws {
            let device = ScriptedDevice(writing: .failsAfter(frames: 4410, code: -EIO))
            try withPlayer(on: device) { player, reports in
                try player.play(.named("default.caf")) { reports.add($0) }
                let first = reports.results(1)
                guard case .failed(.device(let error))? = first.first else { Issue.record("\(first)"); return }
                #expect(error.description == "audio device '\(Self.device)' (ALSA): stopped playing: Input/output error")

                device.writing = .takes
                try player.play(.named("default.caf"), gain: 0.5) { reports.add($0) }
                #expect(reports.results(1).last == .finished)
                #expect(device.counts == ScriptedDevice.Counts(openAttempts: 2, opens: 2, closes: 1))
                #expect(device.samples(ofStream: 1) == (try expectedSamples(volume: 0.5)))
            }
        }

        /// A device that stops taking sound mid-write fails the sound at the stall deadline. While
        /// that stream's close is stuck in the write, a new sound fails at once instead of leaving
        /// another thread in the device; once the write returns, sounds play again.
        @Test func aDeviceThatStallsInAWriteIsLetGoAndOpenedAgainOnceItReturns() throws {
            let device = ScriptedDevice(writing: .stallsAfter(frames: 4410))
            try withPlayer(on: device) { player, reports in
                let clock = ContinuousClock()
                let started = clock.now
                try player.play(.named("default.caf")) { reports.add($0) }
                #expect(reports.results(1) == [.failed(.deviceStalled(device: Self.device, backend: .alsa, seconds: 1))])
                let failedAfter = clock.now - started
                // Looks a second apart: the first sees progress, the next none.
                #expect(failedAfter >= .seconds(1) && failedAfter < .seconds(4), "failed after \(failedAfter)")
                #expect(device.counts == ScriptedDevice.Counts(openAttempts: 1, opens: 1, blockedWrites: 1))

                let refused = clock.now
                try player.play(.named("default.caf")) { reports.add($0) }
                #expect(reports.results(1).last == .failed(.deviceUnresponsive(device: Self.device)))
                #expect(clock.now - refused < .milliseconds(500))
                #expect(device.counts.openAttempts == 1, "a second open was tried while the first stream was stuck")

                device.writing = .takes
                device.release()
                #expect(device.wait { $0.closes == 1 }, "\(device.counts)")
                // The thread that closed it tells the player just after the close returned, an event
                // the test cannot see: until the player has heard it, a sound is refused at once.
                var result: PlaybackResult?
                let deadline = clock.now + .seconds(5)
                repeat {
                    result = try playToTheEnd(player)
                    if result == .failed(.deviceUnresponsive(device: Self.device)) { usleep(1000) } else { break }
                } while clock.now < deadline
                #expect(result == .finished)
                #expect(device.counts == ScriptedDevice.Counts(openAttempts: 2, opens: 2, closes: 1))
                #expect(device.samples(ofStream: 1) == (try expectedSamples(volume: 1)))
            }
        }

        @Test func aDeviceThatFailsToOpenFailsTheSoundWithItsError() async throws {
            let device = ScriptedDevice(opening: .fails(code: -EBUSY))
            let player = player(device)
            defer { player.close() }
            let report = try await player.play(.named("default.caf"))
            guard case .failed(.device(let error)) = report.result else { Issue.record("\(report)"); return }
            #expect(error.description == "audio device '\(Self.device)' (ALSA): cannot open: Device or resource busy")
            #expect(error.code == -EBUSY)
            #expect(device.counts == ScriptedDevice.Counts(openAttempts: 1))
        }

        func playToTheEnd(_ player: NotificationSoundPlayer) throws -> PlaybackResult? {
            let reports = Reports()
            try player.play(.named("default.caf")) { reports.add($0) }
            return reports.results(1).first
        }
    }
}
