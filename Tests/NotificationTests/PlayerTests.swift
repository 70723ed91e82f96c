import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Synchronization
import Testing

/// The Swift library a daemon embeds, in this process, on ALSA's `file:` device (which writes
/// what it is given to a file, with no clock, so these run fast). Serialized: the idle test
/// counts the wake-ups of this suite's player threads.
@Suite(.serialized) struct PlayerTests {
    let folder = TemporaryDirectory("player")

    func tone(_ name: String, seconds: Double, rate: Int = 44100) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=660:d=\(seconds):r=\(rate)", "-ac", "2",
                                            "-c:a", "adpcm_ima_qt", "-y", path])
        return path
    }

    /// `limits`: none unless a test is about them, so that a test may play one app's
    /// notifications one after another.
    func player(capture: String, policy: SoundPolicy = SoundPolicy(), idleTimeout: Double = 0.5, cacheLimit: Int = 32 << 20,
                limits: SoundLimits = .none, afterLookup: @escaping @Sendable (String) -> Void = { _ in }) -> NotificationSoundPlayer {
        var configuration = NotificationSoundPlayer.Configuration(
            appFolders: [folder.path], device: "file:FILE=\(capture),FORMAT=raw", idleTimeout: idleTimeout, policy: policy,
            cacheLimit: cacheLimit, limits: limits)
        configuration.afterLookup = afterLookup
        return NotificationSoundPlayer(configuration: configuration)
    }

    /// A FIFO in the test's folder and ALSA's file plugin writing into it: opening the device
    /// blocks until the FIFO has a reader, and writing blocks once a reader takes nothing.
    func fifoDevice(_ name: String) -> (fifo: String, device: String) {
        let fifo = folder.file(name)
        #expect(mkfifo(fifo, 0o600) == 0)
        return (fifo, "file:FILE=\(fifo),FORMAT=raw")
    }

    func player(device: String) -> NotificationSoundPlayer {
        NotificationSoundPlayer(configuration: .init(appFolders: [folder.path], device: device, policy: SoundPolicy()))
    }

    func samples(_ capture: String) throws -> [Float] {
        try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Waits for reports on a semaphore (they arrive on the player's callback thread).
    final class Reports: @unchecked Sendable {
        let values = Mutex<[PlaybackReport]>([])
        let semaphore = DispatchSemaphore(value: 0)
        func add(_ report: PlaybackReport) { values.withLock { $0.append(report) }; semaphore.signal() }
        /// The reports so far, after waiting (at most 10 s each) for `count` of them.
        func wait(_ count: Int) -> [PlaybackReport] {
            for _ in 0..<count { _ = semaphore.wait(timeout: .now() + 10) }
            return values.withLock { $0 }
        }
        func results(_ count: Int) -> [PlaybackResult] { wait(count).map(\.result) }
    }

    @Test func aNamedSoundPlaysAndCompletesOnceWithItsID() throws {
        let sound = try tone("ping.caf", seconds: 0.2)
        let capture = folder.file("named.raw")
        let reports = Reports()
        let player = player(capture: capture)
        let id = try player.play(.named("ping.caf")) { reports.add($0) }
        let report = reports.wait(1).first
        #expect(report?.id == id && report?.result == .finished && report?.warnings == [])
        // What played, and on what: the file found and the stream's format (a mono or stereo
        // sound shares a stereo stream at its rate).
        #expect(report?.file == sound, "the full path of the file found in the app's folder")
        #expect(report?.stream?.format.sampleRate == 44100 && report?.stream?.format.channelCount == 2)
        player.close()
        #expect(try samples(capture) == (try SoundDecoder(path: sound).readAll()))
        usleep(100_000)
        #expect(reports.values.withLock { $0.count } == 1)
    }

    @Test func drainLetsTheSoundEndThenClosesTheDeviceWithoutTheIdleWait() throws {
        let sound = try tone("drain.caf", seconds: 0.3)
        let capture = folder.file("drain.raw")
        let reports = Reports()
        let player = player(capture: capture, idleTimeout: 60)
        let drained = Mutex<[StreamFigures]?>(nil)
        let answered = DispatchSemaphore(value: 0)
        try player.play(.named("drain.caf")) { reports.add($0) }
        player.drain { figures in
            drained.withLock { $0 = figures }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 10) == .success)
        // The sound ended first, and the device is closed an idle timeout early, its file whole.
        #expect(reports.values.withLock { $0.map(\.result) } == [.finished])
        #expect(!Self.isOpenHere(capture))
        #expect(try samples(capture) == (try SoundDecoder(path: sound).readAll()))
        let figures = drained.withLock { $0 } ?? []
        #expect(figures.count == 1)
        #expect(figures.first?.format.sampleRate == 44100 && figures.first?.deviceFailure == nil)
        if let first = figures.first?.firstWriteNanoseconds, let last = figures.first?.lastWriteNanoseconds { #expect(first < last) }
        else { Issue.record("the drained stream has no write times: \(figures)") }

        // With nothing playing and no device open, a drain answers at once, with no stream.
        player.drain { figures in
            drained.withLock { $0 = figures }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 10) == .success)
        #expect(drained.withLock { $0 } == [])
        player.close()
    }

    @Test func theSecondPlayOfASoundComesFromTheCacheAndIsIdentical() throws {
        let sound = try tone("twice.caf", seconds: 0.2)
        let capture = folder.file("twice.raw")
        let reports = Reports()
        let player = player(capture: capture)
        try player.play(.named("twice.caf")) { reports.add($0) }
        _ = reports.wait(1)
        try player.play(.named("twice.caf")) { reports.add($0) }
        #expect(reports.results(1) == [.finished, .finished])
        player.close()
        let decoded = try SoundDecoder(path: sound).readAll()
        #expect(try samples(capture) == decoded + decoded)
    }

    /// The stream opens at 44.1 kHz for the first sound; a 48 kHz sound played on it twice is
    /// converted once: the second play is the first's conversion, bit for bit, from the cache.
    @Test func aSoundPlayedAgainOnTheSameStreamIsNeitherDecodedNorConvertedAgain() throws {
        let first = try tone("first.caf", seconds: 0.1)
        let other = try tone("other.caf", seconds: 0.2, rate: 48000)
        let capture = folder.file("converted-twice.raw")
        let reports = Reports()
        let player = player(capture: capture)
        for name in ["first.caf", "other.caf", "other.caf"] {
            try player.play(.named(name)) { reports.add($0) }
            _ = reports.wait(1)
        }
        #expect(reports.values.withLock { $0.map(\.result) } == [.finished, .finished, .finished])
        // The report says what was converted to what: a 48 kHz sound on the 44.1 kHz stream.
        let second = reports.values.withLock { $0[1] }
        #expect(second.soundSampleRate == 48000 && second.soundChannelCount == 2 && second.stream?.format.sampleRate == 44100)
        let figures = player.cacheFigures
        player.close()
        let played = try samples(capture), decodedFirst = try SoundDecoder(path: first).readAll()
        let decodedOther = try SoundDecoder(path: other).readAll()
        let convertedCount = Int((Double(decodedOther.count / 2) * 44100 / 48000).rounded()) * 2
        try #require(played.count == decodedFirst.count + 2 * convertedCount)
        #expect(Array(played[..<decodedFirst.count]) == decodedFirst)
        let once = played[decodedFirst.count...].prefix(convertedCount), again = played.suffix(convertedCount)
        #expect(Array(once) == Array(again))
        #expect(once.contains { $0 != 0 })
        #expect(figures == SoundCacheFigures(
            bytes: (decodedFirst.count + decodedOther.count + convertedCount) * 4 + 3 * SoundCacheFigures.formOverhead,
            sounds: 2, fileOpens: 2, conversions: 1, recordings: 3, peakRecordingBytes: figures.peakRecordingBytes))
    }

    /// The limit counts every form: the conversion that does not fit with the rest lets the
    /// sound played least recently go, which is then read from its file again.
    @Test func aConversionCountsInTheCachesBytesAndPushesOutTheOldestSound() throws {
        _ = try tone("a.caf", seconds: 0.1)  // 35 kB decoded
        _ = try tone("b.caf", seconds: 0.2, rate: 48000)  // 77 kB decoded, 71 kB converted
        let reports = Reports()
        let player = player(capture: folder.file("evicted.raw"), cacheLimit: 150_000)
        for name in ["a.caf", "b.caf", "a.caf"] {
            try player.play(.named(name)) { reports.add($0) }
            _ = reports.wait(1)
        }
        #expect(reports.values.withLock { $0.map(\.result) } == [.finished, .finished, .finished])
        let figures = player.cacheFigures
        player.close()
        #expect(figures.fileOpens == 3, "a.caf was not let go: \(figures)")
        #expect(figures.bytes <= 150_000 && figures.conversions == 1, "\(figures)")
    }

    /// The sound played least recently is let go first: one played again stays (a daemon's
    /// default sound, played often, is not pushed out by every new one).
    @Test func theCacheLetsTheSoundPlayedLeastRecentlyGo() throws {
        for name in ["a", "b", "c"] { _ = try tone("\(name)-lru.caf", seconds: 0.1) }  // 35 kB decoded each
        let reports = Reports()
        let player = player(capture: folder.file("lru.raw"), cacheLimit: 100_000)  // two of them
        for name in ["a", "b", "a", "c", "a"] {
            try player.play(.named("\(name)-lru.caf")) { reports.add($0) }
            _ = reports.wait(1)
        }
        #expect(reports.values.withLock { $0.map(\.result) } == Array(repeating: .finished, count: 5))
        let figures = player.cacheFigures
        player.close()
        // a, b and c each read once: c pushed b out, not a.
        #expect(figures.fileOpens == 3 && figures.sounds == 2, "\(figures)")
    }

    /// A theme's Ogg, which libsndfile decodes, is cached too: played again it is not read,
    /// also when a notification's `sound-file` names it in its theme folder. A copy of it
    /// elsewhere (WAV, AIFF and CAF only there) fails as it would uncached: the lookup's length
    /// probe refuses it, and the cache would not serve it either.
    @Test func aThemeOggIsCachedButNotServedToASoundFileOutsideTheTheme() async throws {
        let theme = "/usr/share/sounds/freedesktop/stereo/message-new-instant.oga"
        let reference = try #require(LibSndFile.decode(theme), "the freedesktop sound theme is not installed")
        let copy = folder.file("message-new-instant.oga")
        try FileManager.default.copyItem(atPath: theme, toPath: copy)
        let capture = folder.file("theme-twice.raw")
        let player = player(capture: capture)
        for _ in 0..<2 {
            #expect(try await player.play(NotificationRequest(soundName: "message-new-instant")).result == .finished)
        }
        #expect(try await player.play(NotificationRequest(soundFile: SoundPath(theme))).result == .finished)
        let refused = try await player.play(NotificationRequest(soundFile: SoundPath(copy)))
        guard case .failed(.file(_, .unsupportedFormat, let why)) = refused.result else { Issue.record("\(refused)"); return }
        #expect(why.contains("a notification sound is WAV, AIFF/AIFC or CAF"), "\(why)")
        let figures = player.cacheFigures
        player.close()
        #expect(figures.fileOpens == 1 && figures.sounds == 1, "\(figures)")  // the first play only: the others were cached
        #expect(try samples(capture) == reference.samples + reference.samples + reference.samples)
    }

    /// A ringtone at another rate than its stream is converted as it loops (the filter runs
    /// across its seam), each time, and its conversion is never cached.
    @Test func aLoopingSoundIsConvertedEachTimeAndNotCached() throws {
        let first = try tone("first.caf", seconds: 0.05)
        let ring = try tone("ring48.caf", seconds: 0.05, rate: 48000)
        let reports = Reports()
        let player = player(capture: folder.file("ring-converted.raw"))
        try player.play(.named("first.caf")) { reports.add($0) }
        _ = reports.wait(1)
        for _ in 0..<2 {
            let id = try player.play(.ringtoneSoundNamed("ring48.caf")) { reports.add($0) }
            usleep(20_000)
            player.cancel(id)
            _ = reports.wait(1)
        }
        #expect(reports.values.withLock { $0.map(\.result) } == [.finished, .cancelled, .cancelled])
        let figures = player.cacheFigures
        player.close()
        #expect(figures.conversions == 2 && figures.fileOpens == 2, "\(figures)")
        let decoded = try SoundDecoder(path: first).readAll().count + SoundDecoder(path: ring).readAll().count
        #expect(figures.bytes == decoded * 4 + 2 * SoundCacheFigures.formOverhead, "\(figures)")
    }

    /// An update (`replaces_id`: a progress bar's next value) plays nothing unless it names its
    /// own sound or is critical; the tap holds exactly the two that played.
    @Test func anUpdateIsSilentUnlessItNamesItsOwnSoundOrIsCritical() async throws {
        let own = try tone("own.caf", seconds: 0.1)
        let capture = folder.file("updates.raw")
        let player = player(capture: capture, limits: SoundLimits())
        let progress = try await player.play(NotificationRequest(appName: "progress", isUpdate: true))
        #expect(progress.result == .silenced("an update of a notification names no sound of its own"))
        #expect(try await player.play(NotificationRequest(appName: "music", soundName: "own.caf", isUpdate: true)).result == .finished)
        let critical = try await player.play(NotificationRequest(appName: "alarm", urgency: .critical, volume: 0.5, isUpdate: true))
        player.close()
        #expect(critical.result == .finished)
        let alarm = try SoundDecoder(path: try #require(critical.file)).readAll()  // the bundled critical sound, mono
        #expect(try samples(capture) == (try SoundDecoder(path: own).readAll()) + alarm.flatMap { [$0 * Float(0.5), $0 * Float(0.5)] })
    }

    /// hintsOnly: a notification whose hints name no sound is silenced, not given the default
    /// sound; one with a sound-name plays it.
    @Test func hintsOnlyPlaysOnlyWhatTheHintsAskFor() async throws {
        let own = try tone("hinted.caf", seconds: 0.1)
        let capture = folder.file("hints-only.raw")
        let player = player(capture: capture, limits: SoundLimits())
        let bare = try await player.play(NotificationRequest(appName: "volume-osd", hintsOnly: true))
        #expect(bare.result == .silenced("the notification's hints name no sound, and only hinted sounds play"))
        #expect(try await player.play(NotificationRequest(appName: "chat", soundName: "hinted.caf", hintsOnly: true)).result == .finished)
        player.close()
        #expect(try samples(capture) == (try SoundDecoder(path: own).readAll()))
    }

    /// One sound per app per interval (60 s here, so that no timing decides): the second of one
    /// app is silenced with the reason, another app's plays, and a critical one always passes.
    @Test func aSecondSoundOfOneAppWithinTheIntervalIsSilencedButACriticalOnePasses() async throws {
        let own = try tone("rated.caf", seconds: 0.1)
        let capture = folder.file("rate.raw")
        let player = player(capture: capture, limits: SoundLimits(interval: 60))
        let chat = NotificationRequest(appName: "chat", soundName: "rated.caf")
        #expect(try await player.play(chat).result == .finished)
        #expect(try await player.play(chat).result == .silenced("rate limit: this app's last sound started less than 60.0 s ago"))
        var critical = chat
        critical.urgency = .critical
        #expect(try await player.play(critical).result == .finished)
        // A sound the host names itself is not a notification's: never rate limited.
        #expect(try await player.play(.named("rated.caf")).result == .finished)
        player.close()
        let samples = try SoundDecoder(path: own).readAll()
        #expect(try self.samples(capture) == samples + samples + samples)
    }

    /// A ringtone nobody cancels stops once it has rung the cap (1 s here; 30 s by default) and
    /// reports `finished`: a call nobody answered must not ring for ever. On /dev/null through
    /// ALSA's file plugin: the loop is not kept on disk.
    @Test func aRingtoneNobodyCancelsEndsAfterTheRingCap() throws {
        _ = try tone("capped.caf", seconds: 0.1)
        let reports = Reports()
        let player = NotificationSoundPlayer(configuration: .init(
            appFolders: [folder.path], device: "file:FILE=/dev/null,FORMAT=raw", policy: SoundPolicy(), limits: SoundLimits(ringCap: 1)))
        let clock = ContinuousClock(), asked = clock.now
        try player.play(.ringtoneSoundNamed("capped.caf")) { reports.add($0) }
        try player.play(NotificationRequest(appName: "phone", soundName: "capped.caf", category: "call.incoming")) { reports.add($0) }
        let results = reports.results(2)
        let rang = clock.now - asked
        player.close()
        #expect(results == [.finished, .finished])
        #expect(rang >= .seconds(1), "they rang \(rang), less than the cap")
    }

    @Test func cancellingAPausedRingtoneReportsCancelled() throws {
        _ = try tone("ring.caf", seconds: 0.2)
        let reports = Reports()
        let player = player(capture: folder.file("ring.raw"))
        let id = try player.play(.ringtoneSoundNamed("ring.caf")) { reports.add($0) }
        player.pause(id)
        player.resume(id)
        usleep(50_000)
        player.cancel(id)
        #expect(reports.results(1) == [.cancelled])
        player.close()
    }

    @Test func quietSilencesNormalSoundsAtOnceButNotCriticalOnes() async throws {
        _ = try tone("quiet.caf", seconds: 0.1)
        var policy = SoundPolicy()
        policy.doNotDisturb = true
        let player = player(capture: folder.file("quiet.raw"), policy: policy)
        #expect(try await player.play(.named("quiet.caf")).result == .silenced("do not disturb is on"))
        #expect(try await player.play(.named("quiet.caf"), suppressSound: false).result == .silenced("do not disturb is on"))
        #expect(try await player.play(.criticalSoundNamed("quiet.caf", withAudioVolume: 0.5)).result == .finished)
        player.setQuiet(false)
        #expect(try await player.play(.named("quiet.caf")).result == .finished)
        #expect(try await player.play(.named("quiet.caf"), suppressSound: true).result == .silenced("the notification asks for no sound (suppress-sound)"))
        player.close()
    }

    /// Quiet turned on while sounds play (a daemon's do-not-disturb, `dunstctl set-paused true`
    /// while a call rings): the non-critical sounds playing end, faded, reported silenced with the
    /// reason; a critical one plays on. Before, the call rang on, as if quiet applied only to
    /// sounds asked for later.
    @Test func quietTurnedOnEndsTheNonCriticalSoundsPlayingNotTheCriticalOnes() throws {
        _ = try tone("call.caf", seconds: 0.2)
        let reports = Reports()
        let player = player(capture: folder.file("quiet-on.raw"))
        var alarm = NotificationSound.criticalSoundNamed("call.caf", withAudioVolume: 0.5)
        alarm.isRingtone = true
        let critical = try player.play(alarm) { reports.add($0) }
        usleep(100_000)  // a critical sound fades those playing as it starts: the call comes after
        let call = try player.play(.ringtoneSoundNamed("call.caf")) { reports.add($0) }
        usleep(200_000)
        player.setQuiet(true)
        let first = reports.wait(1)
        #expect(first.map(\.id) == [call] && first.map(\.result) == [.silenced("do not disturb is on")], "\(first)")
        player.cancel(critical)
        let both = reports.wait(1)
        #expect(both.map(\.id) == [call, critical] && both.last?.result == .cancelled, "\(both)")
        player.close()
    }

    /// What can be checked without I/O is refused at once; a sound that is not there is the
    /// lookup's business, on the player's thread, and arrives as a report.
    @Test func refusedNamesAndBadVolumesThrowAMissingFileIsReported() async throws {
        let capture = folder.file("refused.raw")
        let player = player(capture: capture)
        #expect(throws: NotificationSoundError.self) { try player.play(.named("../etc/passwd")) }
        #expect(throws: NotificationSoundError.invalidVolume(1.5)) { try player.play(.criticalSoundNamed("x.caf", withAudioVolume: 1.5)) }
        #expect(throws: NotificationSoundError.invalidVolume(-0.5)) { try player.play(.named("x.caf"), gain: -0.5) }
        let report = try await player.play(.named("missing.caf"))
        guard case .failed(.notFound("missing.caf", _)) = report.result else { Issue.record("\(report)"); return }
        player.close()
        #expect(!FileManager.default.fileExists(atPath: capture))
    }

    // MARK: The daemon contract

    /// Completions run on a thread of their own: one that never returns holds up the
    /// completions after it, but no sound. Before, they ran on the decode worker, and a second
    /// sound stopped after its first ring (about 190 ms) while the first one's completion ran.
    @Test func aCompletionThatDoesNotReturnStallsNoSound() throws {
        _ = try tone("short.caf", seconds: 0.05)
        let long = try tone("long.caf", seconds: 1)
        let capture = folder.file("stalled.raw")
        let player = player(capture: capture)
        let release = DispatchSemaphore(value: 0)
        let inCallback = DispatchSemaphore(value: 0)
        try player.play(.named("short.caf")) { _ in inCallback.signal(); release.wait() }
        #expect(inCallback.wait(timeout: .now() + 10) == .success)
        let reports = Reports()
        try player.play(.named("long.caf")) { reports.add($0) }
        let expected = (try SoundDecoder(path: folder.file("short.caf")).readAll().count + SoundDecoder(path: long).readAll().count) * 4
        let deadline = Date() + 10
        while (try? FileManager.default.attributesOfItem(atPath: capture)[.size] as? Int) ?? 0 < expected && Date() < deadline { usleep(10_000) }
        #expect((try FileManager.default.attributesOfItem(atPath: capture)[.size] as? Int) == expected)
        #expect(reports.values.withLock { $0.isEmpty }, "callbacks come one at a time")
        release.signal()
        #expect(reports.results(1) == [.finished])
        player.close()
    }

    /// A device that blocks on open (ALSA's file plugin on a FIFO nobody reads) holds none of
    /// the caller's threads: play returns at once, the request fails after the 5 s deadline, and
    /// close returns while the open is still stuck.
    @Test func aDeviceThatBlocksOnOpenNeverBlocksTheCaller() throws {
        _ = try tone("blocked.caf", seconds: 0.1)
        let (fifo, device) = fifoDevice("blocked.fifo")
        let player = player(device: device)
        let reports = Reports()
        let started = Date()
        try player.play(.named("blocked.caf")) { reports.add($0) }
        try player.play(.named("blocked.caf")) { reports.add($0) }
        #expect(Date().timeIntervalSince(started) < 1, "play blocked for \(Date().timeIntervalSince(started)) s")
        let results = reports.results(2)
        #expect(results == Array(repeating: .failed(.deviceTimeout(device: "file:FILE=\(fifo),FORMAT=raw", backend: .alsa, seconds: 5)), count: 2))
        #expect(Date().timeIntervalSince(started) >= 5)
        let closing = Date()
        player.close()
        #expect(Date().timeIntervalSince(closing) < 1)
        // Let the stuck open go: its thread closes the device it opened too late.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        usleep(200_000)
        close(reader)
    }

    /// A stream whose device failed (here a pipe whose reader left, as a sound server that
    /// restarted) is not reused: the next sound opens the device again and plays. Before, every
    /// sound failed on the dead stream until it had been idle for 5 s.
    @Test func aFailedDeviceIsOpenedAgainForTheNextSound() throws {
        _ = try tone("first.caf", seconds: 1)
        let second = try tone("second.caf", seconds: 0.2)
        let capture = folder.file("reopened.raw")
        let sink = folder.file("sink.sh")
        // The first reader leaves at once; the ones after it keep what they are given.
        try """
            #!/bin/sh
            if [ ! -e "\(folder.file("left"))" ]; then touch "\(folder.file("left"))"; exit 0; fi
            exec cat >> "\(capture)"
            """.write(toFile: sink, atomically: true, encoding: .utf8)
        #expect(chmod(sink, 0o755) == 0)
        let player = NotificationSoundPlayer(configuration: .init(
            appFolders: [folder.path], device: "file:\"|\(sink)\",FORMAT=raw", idleTimeout: 30, policy: SoundPolicy()))
        let reports = Reports()
        try player.play(.named("first.caf")) { reports.add($0) }
        guard case .failed(.device(let error))? = reports.wait(1).first?.result else { Issue.record("\(reports.values.withLock { $0 })"); return }
        #expect(error.description.contains("its output was closed"), "\(error)")
        try player.play(.named("second.caf")) { reports.add($0) }
        #expect(reports.wait(1).dropFirst().map(\.result) == [.finished])
        player.close()  // the device closes on the player's thread: wait for cat to have it all
        let expected = try SoundDecoder(path: second).readAll()
        let deadline = Date() + 10
        while (try? samples(capture).count) ?? 0 < expected.count && Date() < deadline { usleep(20_000) }
        #expect(try samples(capture) == expected)
    }

    /// A device that stops taking sound while it plays (ALSA's file plugin on a FIFO whose reader
    /// reads nothing: writes block once the pipe is full) fails the sound after 5 s without
    /// progress, and leaves the player usable: close returns at once. Before, the sound was
    /// never answered.
    @Test func aDeviceThatStopsTakingSoundFailsTheSound() throws {
        _ = try tone("stall.caf", seconds: 2)
        let (fifo, device) = fifoDevice("stall.fifo")
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)  // present, and never reads
        defer { close(reader) }
        let player = player(device: device)
        let reports = Reports()
        let started = Date()
        try player.play(.named("stall.caf")) { reports.add($0) }
        #expect(reports.results(1) == [.failed(.deviceStalled(device: device, backend: .alsa, seconds: 5))])
        #expect(Date().timeIntervalSince(started) >= 5)
        let closing = Date()
        player.close()
        #expect(Date().timeIntervalSince(closing) < 1)
    }

    /// A pause that comes while the sound still waits for its device holds once it starts: the
    /// sound does not end until resumed. The device (the file plugin on a FIFO) cannot open
    /// before the test opens the FIFO's reader, after the pause; a thread then drains it (a paused
    /// voice writes silence, which a device without a clock takes as fast as it comes).
    @Test func aSoundPausedBeforeItsDeviceOpenedStartsPaused() throws {
        _ = try tone("early.caf", seconds: 0.1)
        let (fifo, device) = fifoDevice("early.fifo")
        let player = player(device: device)
        let reports = Reports()
        let id = try player.play(.named("early.caf")) { reports.add($0) }
        player.pause(id)
        usleep(100_000)  // the pause is handled; the device waits for a reader
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let reader = open(fifo, O_RDONLY)
            var sink = [UInt8](repeating: 0, count: 65536)
            while read(reader, &sink, sink.count) > 0 {}
            close(reader)
            drained.signal()
        }
        usleep(500_000)
        #expect(reports.values.withLock { $0.isEmpty }, "it played while paused: \(reports.values.withLock { $0 })")
        player.resume(id)
        #expect(reports.results(1) == [.finished])
        player.close()
        #expect(drained.wait(timeout: .now() + 10) == .success)
    }

    /// A cold burst on a device that blocks on open: at most 32 sounds wait, each holding its
    /// file (before, every request held one: 5,000 exhausted the host's descriptors); the others
    /// give way at once, the oldest first (`replaced`). Once the open is past its deadline, a new
    /// request fails at once instead of leaving another thread stuck in the device.
    @Test func aColdBurstOnABlockedDeviceHoldsBoundedFilesAndThreads() throws {
        let sound = try tone("burst.caf", seconds: 0.1)
        let (fifo, device) = fifoDevice("burst.fifo")
        let player = player(device: device)
        let reports = Reports()
        let ids = try (0..<100).map { _ in try player.play(.named("burst.caf")) { reports.add($0) } }
        let replaced = reports.wait(68)
        #expect(replaced.map(\.result) == Array(repeating: .replaced, count: 68))
        #expect(replaced.map(\.id) == Array(ids.prefix(68)), "the oldest give way")
        // The last one given way is reported while the control thread still holds the step's
        // list (one file over the bound, for a moment): the bound is what remains.
        let settled = Date() + 2
        while Self.descriptors(of: sound) > 32 && Date() < settled { usleep(10_000) }
        #expect(Self.descriptors(of: sound) <= 32)
        let timedOut = reports.wait(32).dropFirst(68)
        #expect(timedOut.map(\.result) == Array(repeating: .failed(.deviceTimeout(device: device, backend: .alsa, seconds: 5)), count: 32))
        // Reported before the control thread lets go of its list: give it a moment.
        let released = Date() + 2
        while Self.descriptors(of: sound) > 0 && Date() < released { usleep(10_000) }
        #expect(Self.descriptors(of: sound) == 0)
        let started = Date()
        try player.play(.named("burst.caf")) { reports.add($0) }
        #expect(reports.wait(1).last?.result == .failed(.deviceUnresponsive(device: device)))
        #expect(Date().timeIntervalSince(started) < 1)
        // Let the stuck open go: the device is tried again once it has returned.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        usleep(300_000)
        player.close()
        close(reader)
    }

    /// After close nothing is answered any more, and nothing opens a device again.
    @Test func closeDropsPendingCompletionsAndPlayAfterCloseThrows() async throws {
        _ = try tone("closing.caf", seconds: 0.3)
        let capture = folder.file("closing.raw")
        let player = player(capture: capture)
        var policy = SoundPolicy()
        policy.doNotDisturb = true
        let calls = Mutex(0)
        for _ in 0..<200 { try player.play(.named("closing.caf"), suppressSound: true) { _ in calls.withLock { $0 += 1 } } }
        player.close()
        let afterClose = calls.withLock { $0 }
        usleep(300_000)
        #expect(calls.withLock { $0 } == afterClose, "a completion ran after close returned")
        #expect(throws: NotificationSoundError.closed) { try player.play(.named("closing.caf")) }
        await #expect(throws: NotificationSoundError.closed) { try await player.play(.named("closing.caf")) }
        #expect(!FileManager.default.fileExists(atPath: capture))
    }

    /// An awaiting Task that is cancelled cancels its sound.
    @Test func cancellingTheAwaitingTaskCancelsTheSound() async throws {
        _ = try tone("task.caf", seconds: 0.2)
        let player = player(capture: folder.file("task.raw"))
        let task = Task { try await player.play(.ringtoneSoundNamed("task.caf")) }
        try await Task.sleep(nanoseconds: 100_000_000)
        task.cancel()
        let report = try await task.value
        #expect(report.result == .cancelled)
        #expect(report.id.rawValue > 0)
        player.close()
    }

    /// A critical sound fades out every other sound of the player, those of another rate too
    /// (they share the device's one stream); a sound that loses its voice to a newer one reports
    /// `.replaced`.
    @Test func preemptedAndReplacedAreTheirOwnOutcomes() throws {
        _ = try tone("ring48.caf", seconds: 0.2, rate: 48000)
        _ = try tone("alarm.caf", seconds: 0.1, rate: 44100)
        let reports = Reports()
        let player = player(capture: folder.file("preempt.raw"))
        let ringtone = try player.play(.ringtoneSoundNamed("ring48.caf")) { reports.add($0) }
        usleep(100_000)
        let alarm = try player.play(.criticalSoundNamed("alarm.caf", withAudioVolume: 0.5)) { reports.add($0) }
        let results = Dictionary(reports.wait(2).map { ($0.id, $0.result) }) { a, _ in a }
        #expect(results == [ringtone: .preempted, alarm: .finished])

        // 16 voices a stream: the seventeenth ringtone takes the first one's place.
        let replaced = Reports()
        let ids = try (0..<17).map { _ in try player.play(.ringtoneSoundNamed("ring48.caf")) { replaced.add($0) } }
        #expect(replaced.wait(1).map(\.id) == [ids[0]])
        #expect(replaced.values.withLock { $0 }.map(\.result) == [.replaced])
        player.close()
    }

    // MARK: Issue 23: the rule's header, the queue

    /// A 16-bit mono WAV of `frames` frames of a tone, its header saying `rate`.
    static func toneWAV(frames: Int, rate: Int) -> [UInt8] {
        func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func u16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let data = frames * 2
        let samples = (0..<frames).flatMap { u16(Int(Int16((sin(Double($0) * 0.1) * 8000).rounded())) & 0xFFFF) }
        return Array("RIFF".utf8) + u32(36 + data) + Array("WAVEfmt ".utf8) + u32(16) + u16(1) + u16(1)
            + u32(rate) + u32(rate * 2) + u16(2) + u16(16) + Array("data".utf8) + u32(data) + samples
    }

    /// Overwrites `path` in place with `bytes` (the same inode, so the descriptor the player
    /// holds reads them), as a sender who controls the file would.
    static func rewrite(_ path: String, with bytes: [UInt8]) {
        let descriptor = open(path, O_WRONLY)
        #expect(descriptor >= 0 && pwrite(descriptor, bytes, bytes.count, 0) == bytes.count)
        close(descriptor)
    }

    /// The 30-second rule and the play read one header (issue 23): a file rewritten between the
    /// rule's look and the play (here at the seam between them; a sender races it with 3
    /// notifications a second) plays as it was judged, never more frames than it promised.
    /// A WAV whose rate field says 44.1 kHz at the rule (0.7 s) and 1 kHz after it (31 s):
    /// before, the play parsed the header again and played 31 s. A FLAC and an Ogg Vorbis of
    /// 0.2 s (libsndfile, through its descriptor) overwritten with 31 s ones: before, 31 s played.
    @Test(arguments: ["wav", "flac", "ogg"])
    func aFileRewrittenAfterTheThirtySecondRulePlaysAsItWasJudged(format: String) throws {
        let path = folder.file("judged.\(format)")
        let judged: [UInt8], swapped: [UInt8], expected: [Float]?
        if format == "wav" {
            judged = Self.toneWAV(frames: 31_000, rate: 44100)
            swapped = Array(judged[..<24]) + [0xE8, 0x03, 0, 0, 0xD0, 0x07, 0, 0] + Array(judged[32...])  // 1000 Hz, 2000 bytes/s
            try Data(judged).write(to: URL(fileURLWithPath: path))
            expected = try SoundDecoder(path: path).readAll().flatMap { [$0, $0] }  // mono on a stereo stream
        } else {
            let codec = format == "flac" ? ["-c:a", "flac"] : ["-c:a", "libvorbis"]
            for (name, seconds) in [("judged", 0.2), ("swapped", 31.0)] {
                try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=660:d=\(seconds):r=44100"] + codec
                                                    + ["-y", folder.file("\(name)-source.\(format)")])
            }
            judged = Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("judged-source.\(format)"))))
            swapped = Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("swapped-source.\(format)"))))
            try Data(judged).write(to: URL(fileURLWithPath: path))
            expected = nil
        }
        let promised = try #require(LibSndFile.decode(path)).frameCount
        let capture = folder.file("judged-\(format).raw")
        let player = player(capture: capture) { looked in
            if looked == path { Self.rewrite(path, with: swapped) }
        }
        let reports = Reports()
        if format == "wav" {
            try player.play(NotificationRequest(soundFile: SoundPath(path))) { reports.add($0) }  // what `listen` plays
        } else {
            try player.play(.file(path)) { reports.add($0) }
        }
        let report = try #require(reports.wait(1).first)
        player.close()
        #expect(report.result == .finished && report.warnings == [], "\(report)")
        #expect(report.soundSampleRate == 44100 && report.stream?.format.sampleRate == 44100, "\(report)")
        let played = try samples(capture)
        #expect(played.count / 2 <= promised, "\(played.count / 2) frames played; the rule judged \(promised)")
        if let expected {
            let asJudged = played == expected  // a Bool: a failure message spelling out 2.7 million samples would take minutes
            #expect(asJudged, "\(played.count) samples played, \(expected.count) judged")
        }
    }

    /// A flood is refused at once on the caller's thread, past 256 requests waiting of its kind,
    /// and a critical request is looked up before the others waiting (issue 23: 0.5 s of calls
    /// queued 473k requests, 176 MB, and a critical sound asked next was answered 7.2 s later).
    /// The control thread is held at a first sound's lookup meanwhile, so that what waits is
    /// known; missing names make every answer the lookup's own, in the order of the lookups.
    @Test func aFloodIsRefusedAtOnceAndACriticalRequestIsLookedUpFirst() throws {
        _ = try tone("hold.caf", seconds: 0.05)
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let player = player(capture: folder.file("flood.raw")) { path in
            if path.hasSuffix("hold.caf") { held.signal(); release.wait() }
        }
        let reports = Reports()
        try player.play(.named("hold.caf")) { reports.add($0) }
        #expect(held.wait(timeout: .now() + 10) == .success)

        var waiting: [PlaybackID] = [], refused: [NotificationSoundError] = []
        for _ in 0..<1000 {
            do { waiting.append(try player.play(.named("missing.caf")) { reports.add($0) }) } catch { refused.append(error) }
        }
        #expect(waiting.count == 256 && refused.count == 744)
        #expect(refused.allSatisfy { $0 == .busy(waiting: 256, critical: false) }, "\(refused.first.map(String.init(describing:)) ?? "")")
        #expect(refused.first?.description == "too many sounds asked for at once: 256 requests are already waiting to be looked up, so this one is refused")
        // A critical request is not refused for them; its own kind has its own bound.
        var critical: [PlaybackID] = []
        for _ in 0..<256 { critical.append(try player.play(.criticalSoundNamed("missing-critical.caf", withAudioVolume: 1)) { reports.add($0) }) }
        #expect(throws: NotificationSoundError.busy(waiting: 256, critical: true)) {
            try player.play(.criticalSoundNamed("missing-critical.caf", withAudioVolume: 1))
        }
        release.signal()

        let order = reports.wait(1 + 256 + 256).map(\.id)
        player.close()
        let place = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        let lastCritical = critical.compactMap { place[$0] }.max(), firstOther = waiting.compactMap { place[$0] }.min()
        #expect(critical.allSatisfy { place[$0] != nil } && waiting.allSatisfy { place[$0] != nil }, "\(order.count) answered")
        #expect(lastCritical != nil && firstOther != nil && lastCritical! < firstOther!,
                "the critical requests were answered up to place \(lastCritical ?? -1), the others from \(firstOther ?? -1)")
    }

    /// The 30-second rule's warning travels with the report.
    @Test func warningsReachTheCaller() throws {
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "31",
                                            "-c:a", "pcm_mulaw", "-y", folder.file("long.wav")])
        let reports = Reports()
        let player = player(capture: folder.file("warning.raw"))
        try player.play(.named("long.wav")) { reports.add($0) }
        let report = try #require(reports.wait(1).first)
        #expect(report.result == .finished)
        #expect(report.warnings.map(\.kind) == [.tooLong] && report.warnings[0].text.contains("lasts 31.0 s"), "\(report.warnings)")
        player.close()
    }

    /// A sound that ends before `play` has even been handled leaves nothing behind: the device
    /// closes after the idle time (before, such a sound's entry stayed, and the device never
    /// closed), and then the player's threads sleep: no wake-up in a second.
    @Test func anIdlePlayerClosesItsDeviceAndSleeps() throws {
        _ = try tone("blip.caf", seconds: 0.01)
        let capture = folder.file("idle.raw")
        let before = Self.playerThreads()
        let player = player(capture: capture, idleTimeout: 0.2)
        let reports = Reports()
        for _ in 0..<5 { try player.play(.named("blip.caf")) { reports.add($0) } }
        #expect(reports.results(5) == Array(repeating: .finished, count: 5))
        let deadline = Date() + 5
        while Self.isOpenHere(capture) && Date() < deadline { usleep(20_000) }
        #expect(!Self.isOpenHere(capture), "the device is still open")
        // The control and the callback thread (and, rarely, those of a player another suite has
        // just made and closes at once: only threads there at both looks are compared).
        let threads = Self.playerThreads().subtracting(before)
        #expect(threads.count >= 2, "\(threads)")
        let woken = Self.wakeUps(threads)
        sleep(1)
        let after = Self.wakeUps(threads)
        let both = Set(woken.keys).intersection(after.keys)
        #expect(both.count >= 2 && both.allSatisfy { woken[$0] == after[$0] }, "an idle player woke up: \(woken) then \(after)")
        player.close()
    }

    /// A canonical 16-bit mono 44.1 kHz WAV of `frames` silent frames.
    static func silentWAV(frames: Int) -> Data {
        func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func u16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let data = frames * 2
        let header = Array("RIFF".utf8) + u32(36 + data) + Array("WAVEfmt ".utf8) + u32(16) + u16(1) + u16(1)
            + u32(44100) + u32(88200) + u16(2) + u16(16) + Array("data".utf8) + u32(data)
        return Data(header + [UInt8](repeating: 0, count: data))
    }

    /// Keeping a sound costs more than its samples: its file's identity, its entry, each form's
    /// array. A limit that counts samples alone bounds nothing for sounds with (almost) none: a
    /// sender that names a new empty file per notification (or rewrites one, a new identity each
    /// time) grows the player without end. 4096 bytes cannot hold 64 sounds of any length.
    @Test func theCacheLimitBoundsHowManySoundsItKeepsEvenEmptyOnes() throws {
        let reports = Reports()
        let player = player(capture: folder.file("empty.raw"), cacheLimit: 4096)
        for index in 0..<100 {
            try Self.silentWAV(frames: index % 2).write(to: URL(fileURLWithPath: folder.file("empty-\(index).wav")))
            try player.play(.named("empty-\(index).wav")) { reports.add($0) }
            _ = reports.wait(1)
        }
        #expect(reports.values.withLock { $0.map(\.result) } == Array(repeating: .finished, count: 100))
        let figures = player.cacheFigures
        player.close()
        #expect(figures.sounds > 0 && figures.sounds * 64 <= 4096, "\(figures)")
        #expect(figures.bytes <= 4096, "\(figures)")
    }

    @Test func aSoundLongerThanTheCacheIsNotRecorded() throws {
        let path = try tone("big.caf", seconds: 0.5)
        let small = RecordingDecoderSource(try SoundDecoder(path: path), recordingLimit: 1000) { _ in }
        #expect(!small.isRecording)
        let kept = Mutex<DecodedSound?>(nil)
        let fits = RecordingDecoderSource(try SoundDecoder(path: path)) { sound in kept.withLock { $0 = sound } }
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
        defer { buffer.deallocate() }
        while try fits.read(into: buffer) > 0 {}
        #expect(kept.withLock { $0?.samples } == (try SoundDecoder(path: path).readAll()))
    }

    // MARK: Notification hints

    @Test func hintsMapToSounds() {
        #expect(NotificationRequest(suppressSound: true).suppressSound)
        #expect(NotificationRequest(soundFile: SoundPath("/a.wav"), soundName: "bell", category: "im.received").sound.source
            == .notificationFile(SoundPath("/a.wav")))
        #expect(NotificationRequest(soundFile: SoundPath("file:///a%20b%C3%A9.wav")).sound.source == .notificationFile(SoundPath("/a bé.wav")))
        #expect(NotificationRequest(soundFile: SoundPath("file://localhost/x%2")).sound.source == .notificationFile(SoundPath("/x%2")))
        #expect(NotificationRequest(soundFile: SoundPath("file://host/x")).sound.source == .notificationFile(SoundPath("file://host/x")))
        #expect(NotificationRequest(soundName: "bell", category: "im.received").sound.source == .themeName("bell"))
        #expect(NotificationRequest(category: "im.received").sound.source == .themeName("message-new-instant"))
        #expect(NotificationRequest(category: "email.arrived").sound.source == .themeName("message-new-email"))
        #expect(NotificationRequest(category: "device.added").sound.source == .themeName("device-added"))
        #expect(NotificationRequest(category: "x-vendor.thing").sound == .default)
        #expect(NotificationRequest().sound == .default)
        let call = NotificationRequest(category: "call.incoming").sound
        #expect(call.isRingtone && call.source == .themeName("phone-incoming-call"))
        let critical = NotificationRequest(urgency: .critical, volume: 0.7).sound
        #expect(critical.isCritical && critical.criticalVolume == 0.7)
    }

    /// A notification's hints through the player: a sound-file that is a FIFO (refused, never
    /// waited on), a missing name (the default plays, with a warning), suppress-sound. (The
    /// desktop entry's folder is checked through the C daemon, in a child's environment.)
    @Test func aNotificationsHintsPlay() async throws {
        let own = try tone("own.caf", seconds: 0.1)
        let fifo = folder.file("hint.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let player = player(capture: folder.file("hints.raw"))
        defer { player.close() }
        #expect(try await player.play(NotificationRequest(soundFile: SoundPath(own))).result == .finished)
        let refused = try await player.play(NotificationRequest(soundFile: SoundPath(fifo)))
        guard case .failed(.file(_, .unreadable, let why)) = refused.result else { Issue.record("\(refused)"); return }
        #expect(why.contains("not a regular file"), "\(why)")
        let relative = try await player.play(NotificationRequest(soundFile: SoundPath("Sounds/default.caf")))
        guard case .failed(.file(_, .unreadable, let because)) = relative.result else { Issue.record("\(relative)"); return }
        #expect(because == "a notification's sound-file must be an absolute path")
        let missing = try await player.play(NotificationRequest(soundName: "no-such-sound-anywhere"))
        #expect(missing.result == .finished)
        #expect(missing.warnings.contains { $0.kind == .notFound && $0.text.contains("the default sound plays instead") }, "\(missing.warnings)")
        let suppressed = try await player.play(NotificationRequest(category: "im.received", suppressSound: true))
        #expect(suppressed.result == .silenced("the notification asks for no sound (suppress-sound)"))
    }

    // MARK: Helpers

    /// This process's threads named by the player ("noti-play-ctl", "noti-play-cb", "noti-play-mix", "noti-play-dec"), by id.
    static func playerThreads() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("noti-play-")
        })
    }

    /// Context switches of `threads` so far: every wake-up of a sleeping thread adds one.
    /// (A thread that has ended is left out.)
    static func wakeUps(_ threads: Set<String>) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: threads.compactMap { task -> (String, Int)? in
            guard let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else { return nil }
            let switches = status.split(separator: "\n").filter { $0.contains("ctxt_switches") }
                .compactMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") }
            return (task, switches.reduce(0, +))
        })
    }

    /// How many of this process's descriptors are open on `path`.
    static func descriptors(of path: String) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
    }

    /// Whether this process has `path` open.
    static func isOpenHere(_ path: String) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }
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
