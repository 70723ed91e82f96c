import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayTestSupport
import Synchronization
import Testing

/// The Swift library a daemon embeds, in this process, on ALSA's `file:` device (which writes
/// what it is given to a file, with no clock, so these run fast).
@Suite struct PlayerTests {
    let folder = TemporaryDirectory("player")

    func tone(_ name: String, seconds: Double) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=660:d=\(seconds)", "-ac", "2",
                                            "-c:a", "adpcm_ima_qt", "-y", path])
        return path
    }

    func player(capture: String, policy: SoundPolicy = SoundPolicy()) -> NotificationSoundPlayer {
        NotificationSoundPlayer(configuration: .init(
            appFolders: [folder.path], device: "file:FILE=\(capture),FORMAT=raw", idleTimeout: 0.5, policy: policy))
    }

    /// Waits for completions on a semaphore (callbacks arrive on the player's thread).
    final class Results: @unchecked Sendable {
        let values = Mutex<[PlaybackResult]>([])
        let semaphore = DispatchSemaphore(value: 0)
        func add(_ result: PlaybackResult) { values.withLock { $0.append(result) }; semaphore.signal() }
        func wait(_ count: Int) -> [PlaybackResult] {
            for _ in 0..<count { _ = semaphore.wait(timeout: .now() + 10) }
            return values.withLock { $0 }
        }
    }

    @Test func aNamedSoundPlaysAndCompletesOnce() throws {
        let sound = try tone("ping.caf", seconds: 0.2)
        let capture = folder.file("named.raw")
        let results = Results()
        let player = player(capture: capture)
        try player.play(.named("ping.caf")) { results.add($0) }
        #expect(results.wait(1) == [.finished])
        player.close()
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(written == (try SoundDecoder(path: sound).readAll()))
        usleep(100_000)
        #expect(results.values.withLock { $0.count } == 1)
    }

    @Test func theSecondPlayOfASoundComesFromTheCacheAndIsIdentical() throws {
        let sound = try tone("twice.caf", seconds: 0.2)
        let capture = folder.file("twice.raw")
        let results = Results()
        let player = player(capture: capture)
        try player.play(.named("twice.caf")) { results.add($0) }
        _ = results.wait(1)
        try player.play(.named("twice.caf")) { results.add($0) }
        #expect(results.wait(2) == [.finished, .finished])
        player.close()
        let decoded = try SoundDecoder(path: sound).readAll()
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(written == decoded + decoded)
    }

    @Test func cancellingAPausedRingtoneReportsCancelled() throws {
        _ = try tone("ring.caf", seconds: 0.2)
        let results = Results()
        let player = player(capture: folder.file("ring.raw"))
        let id = try player.play(.ringtoneSoundNamed("ring.caf")) { results.add($0) }
        player.pause(id)
        player.resume(id)
        usleep(50_000)
        player.cancel(id)
        #expect(results.wait(1) == [.cancelled])
        player.close()
    }

    @Test func quietSilencesNormalSoundsAtOnceButNotCriticalOnes() async throws {
        _ = try tone("quiet.caf", seconds: 0.1)
        var policy = SoundPolicy()
        policy.doNotDisturb = true
        let player = player(capture: folder.file("quiet.raw"), policy: policy)
        #expect(try await player.play(.named("quiet.caf")) == .silenced("do not disturb is on"))
        #expect(try await player.play(.named("quiet.caf"), suppressSound: false) == .silenced("do not disturb is on"))
        #expect(try await player.play(.criticalSoundNamed("quiet.caf", withAudioVolume: 0.5)) == .finished)
        player.setQuiet(false)
        #expect(try await player.play(.named("quiet.caf")) == .finished)
        #expect(try await player.play(.named("quiet.caf"), suppressSound: true) == .silenced("the notification asks for no sound (suppress-sound)"))
        player.close()
    }

    @Test func refusedNamesAndBadVolumesThrowBeforeAnythingPlays() throws {
        let player = player(capture: folder.file("refused.raw"))
        #expect(throws: NotificationSoundError.self) { try player.play(.named("../etc/passwd")) }
        #expect(throws: NotificationSoundError.invalidVolume(1.5)) { try player.play(.criticalSoundNamed("x.caf", withAudioVolume: 1.5)) }
        #expect(throws: NotificationSoundError.self) { try player.play(.named("missing.caf")) }
        player.close()
        #expect(!FileManager.default.fileExists(atPath: folder.file("refused.raw")))
    }

    @Test func soundNamesAreFileNamesOnly() {
        for bad in ["", ".", "..", "a/b", "/abs", "nul\u{0}byte", "tab\tname", String(repeating: "x", count: 256)] {
            #expect(throws: NotificationSoundError.self, "\(bad.debugDescription)") { try SoundName.validate(bad) }
        }
        for good in ["ping.caf", "Glass.aiff", "émoji 🔔.wav", "..hidden.caf", String(repeating: "x", count: 255)] {
            #expect(throws: Never.self) { try SoundName.validate(good) }
        }
    }

    @Test func quietHoursMayPassMidnight() {
        var policy = SoundPolicy.parse("quiet-hours = 22:30-07:00").policy
        #expect(policy.isQuiet(atMinute: 22 * 60 + 30))
        #expect(policy.isQuiet(atMinute: 3 * 60))
        #expect(!policy.isQuiet(atMinute: 7 * 60))
        #expect(!policy.isQuiet(atMinute: 12 * 60))
        policy = SoundPolicy.parse("quiet-hours = 13:00-14:00").policy
        #expect(policy.isQuiet(atMinute: 13 * 60 + 59))
        #expect(!policy.isQuiet(atMinute: 14 * 60))
        for bad in ["25:00-07:00", "7-8", "22:00", "aa:bb-cc:dd"] {
            let (parsed, warnings) = SoundPolicy.parse("quiet-hours = \(bad)")
            #expect(parsed.quietHours == nil)
            #expect(warnings == ["configuration:1: quiet-hours must be HH:MM-HH:MM (00:00 to 24:00): '\(bad)' is not a window of that form"])
        }
    }
}
