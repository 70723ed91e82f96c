import Foundation
@testable import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// The player's cache on its own, without a device: what it keeps, for which requests, and what
/// keeping it costs. A play here is what the player does: `open`, then `frames(of:on:)` on a
/// stream of the sound's own rate and channels, read to its end as the engine's decode worker
/// reads it. Serialized: one test measures time.
@Suite(.serialized) struct SoundCacheTests {
    let folder = TemporaryDirectory("sound-cache")
    static let themeSound = "/usr/share/sounds/freedesktop/stereo/message-new-instant.oga"

    /// A 16-bit PCM WAVE file of `frames` frames (a ramp).
    func wave(_ name: String, frames: Int, channels: Int = 1, rate: Int = 48000) throws -> String {
        func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        let data = frames * channels * 2
        var bytes = Array("RIFF".utf8) + le(UInt32(36 + data)) + Array("WAVEfmt ".utf8) + le(UInt32(16))
        bytes += le(UInt16(1)) + le(UInt16(channels)) + le(UInt32(rate)) + le(UInt32(rate * channels * 2))
        bytes += le(UInt16(channels * 2)) + le(UInt16(16)) + Array("data".utf8) + le(UInt32(data))
        bytes += [UInt8](repeating: 0, count: data)
        let path = folder.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A tone made by ffmpeg, with the given codec and container.
    func tone(_ name: String, codec: String, seconds: Double = 0.1) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=660:d=\(seconds):r=48000", "-c:a", codec, "-y", path])
        return path
    }

    func file(_ path: String, _ formats: SoundFormats) throws -> SoundFile {
        SoundFile(try RegularFile(path: path), formats: formats)
    }

    /// Plays `file` through `cache` (on a stream at `rate`, else at its own) to its end, or for
    /// `frames` frames (then drops it, as a cancelled play is dropped); the samples.
    @discardableResult
    func play(
        _ file: SoundFile, on cache: SoundCache, rate: Int? = nil, loops: Bool = false, frames limit: Int = .max
    ) throws -> [Float] {
        let opened = try cache.open(ParsedSound(file), loops: loops)
        let shape = SoundCache.StreamShape(sampleRate: rate ?? Int(opened.sampleRate), channelCount: opened.channelCount, speakers: nil)
        return try read(cache.frames(of: opened, on: shape), frames: limit)
    }

    /// `source`'s samples, to its end or for `frames` frames, read as the engine's decode worker reads them.
    func read(_ source: any FrameSource, frames limit: Int = .max) throws -> [Float] {
        var samples: [Float] = []
        var buffer = [Float](repeating: 0, count: 4096 * source.channelCount)
        let wanted = limit == .max ? .max : limit * source.channelCount
        while samples.count < wanted {
            let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            if frames == 0 { return samples }
            samples += buffer.prefix(frames * source.channelCount)
        }
        return Array(samples.prefix(wanted))
    }

    /// What the file plays as, read from the file without any cache.
    func uncached(_ file: SoundFile) throws -> [Float] {
        let source = try SoundSources.open(file)
        var samples: [Float] = [], buffer = [Float](repeating: 0, count: 4096 * source.channelCount)
        while case let frames = try buffer.withUnsafeMutableBufferPointer({ try source.read(into: $0) }), frames > 0 {
            samples += buffer.prefix(frames * source.channelCount)
        }
        return samples
    }

    /// The same file under another modification time: another identity, so another entry.
    func reopened(_ path: String, version: Int) throws -> RegularFile {
        let fd = open(path, O_WRONLY)
        #expect(fd >= 0)
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: version), timespec(tv_sec: 1_000_000, tv_nsec: version)]
        #expect(futimens(fd, &times) == 0)
        close(fd)
        return try RegularFile(path: path)
    }

    /// A cache full of tiny sounds (as many as its limit allows: each form counts 256 bytes)
    /// keeps a play order no longer than about twice its sounds, and a sound as large as the
    /// whole cache lets every one go. (The play order was an array searched at each play and
    /// shifted at each sound let go: 20,000 tiny sounds took 8 s to fill, the last tenths six
    /// times as long as the first; now 0.9 s. Timings are not asserted here.)
    @Test func aCacheFullOfTinySoundsKeepsItsPlayOrderShortAndLetsThemAllGo() throws {
        let count = 20_000
        let tiny = try wave("tiny.wav", frames: 1)
        let cache = SoundCache(limit: count * (4 + SoundCacheFigures.formOverhead))
        for version in 0..<count {
            try play(SoundFile(reopened(tiny, version: version), formats: .notificationSound), on: cache)
        }
        #expect(cache.figures.sounds == count && cache.figures.bytes == cache.limit, "\(cache.figures)")
        #expect(cache.playOrderLength <= 2 * count + 64 + 1, "\(cache.playOrderLength)")
        // A sound as large as the whole cache pushes every tiny one out.
        let frames = (cache.limit - SoundCacheFigures.formOverhead) / 4
        let samples = try play(file(wave("large.wav", frames: frames), .notificationSound), on: cache)
        #expect(samples.count == frames)
        #expect(cache.figures.sounds == 1 && cache.figures.bytes == cache.limit, "\(cache.figures)")
    }

    /// The sound played least recently goes first, however often the others were played; the
    /// play order keeps no more than about twice as many places as there are sounds.
    @Test func theSoundPlayedLeastRecentlyGoesAndThePlayOrderStaysShort() throws {
        let paths = try Dictionary(uniqueKeysWithValues: ["a", "b", "c"].map { ($0, try wave("\($0).wav", frames: 2)) })
        let cache = SoundCache(limit: 2 * (8 + SoundCacheFigures.formOverhead))  // two of them
        func play(_ name: String) throws { try self.play(file(paths[name]!, .notificationSound), on: cache) }
        try play("a")
        try play("b")
        for _ in 0..<1000 { try play("a") }
        #expect(cache.playOrderLength <= 2 * 2 + 64 + 1, "\(cache.playOrderLength)")
        try play("c")  // b goes
        try play("a")
        #expect(cache.figures.fileOpens == 3 && cache.figures.sounds == 2, "\(cache.figures)")
        try play("b")  // c goes
        try play("a")
        #expect(cache.figures.fileOpens == 4, "\(cache.figures)")
        try play("c")
        #expect(cache.figures.fileOpens == 5 && cache.figures.sounds == 2, "\(cache.figures)")
        #expect(cache.playOrderLength <= 2 * 2 + 64 + 1, "\(cache.playOrderLength)")
    }

    /// 16 voices of one file started together (16 notifications naming it) make one recording
    /// of its decode and one of its conversion, which the plays after them share from the
    /// cache; the other voices stream from the file and convert, unrecorded. Before, every
    /// voice recorded both (issue 23: 16 notifications naming one 16.7 MB WAV, 192 kHz stereo,
    /// peaked at 604 MB in `listen`, 931 MB converted from 176.4 kHz).
    @Test func voicesOfOneFilePlayedTogetherMakeOneRecordingOfEachForm() throws {
        let path = try tone("shared.wav", codec: "pcm_s16le", seconds: 1)  // 48,000 frames, mono
        let cache = SoundCache(limit: 1 << 20)  // the decode and its conversion fit; 16 of each would not
        let shape = SoundCache.StreamShape(sampleRate: 44100, channelCount: 1, speakers: nil)
        let voices = try (0..<16).map { _ in
            try cache.frames(of: cache.open(ParsedSound(file(path, .notificationSound)), loops: false), on: shape)
        }
        let played = try voices.map { try read($0) }
        #expect(played[0].count == 44100 && played.allSatisfy { $0 == played[0] })
        var figures = cache.figures
        #expect(figures.recordings == 2 && figures.fileOpens == 16 && figures.conversions == 16, "\(figures)")
        #expect(figures.peakRecordingBytes == (48000 + 44100) * 4 + 2 * SoundCacheFigures.formOverhead, "\(figures)")
        // The next play is the recordings': neither read nor converted.
        #expect(try play(file(path, .notificationSound), on: cache, rate: 44100) == played[0])
        figures = cache.figures
        #expect(figures.fileOpens == 16 && figures.conversions == 16 && figures.sounds == 1, "\(figures)")
    }

    /// The recordings in flight hold at most the cache's limit in all: a sound whose recording
    /// would pass it, while another's is under way, streams unrecorded (and is recorded at a
    /// later play, when there is room).
    @Test func recordingsInFlightStayWithinTheLimit() throws {
        let first = try tone("first.wav", codec: "pcm_s16le", seconds: 1), second = try tone("second.wav", codec: "pcm_s16le", seconds: 1)
        let cache = SoundCache(limit: 300_000)  // one decode of 48,000 frames (192 kB) at a time
        func voice(_ path: String) throws -> any FrameSource {
            let opened = try cache.open(ParsedSound(file(path, .notificationSound)), loops: false)
            return try cache.frames(of: opened, on: SoundCache.StreamShape(sampleRate: 48000, channelCount: 1, speakers: nil))
        }
        let (a, b) = (try voice(first), try voice(second))
        #expect(try read(a) == uncached(file(first, .notificationSound)))
        #expect(try read(b) == uncached(file(second, .notificationSound)))
        var figures = cache.figures
        #expect(figures.recordings == 1 && figures.peakRecordingBytes == 48000 * 4 + SoundCacheFigures.formOverhead, "\(figures)")
        #expect(figures.sounds == 1, "\(figures)")
        try play(file(second, .notificationSound), on: cache)
        figures = cache.figures
        #expect(figures.recordings == 2 && figures.peakRecordingBytes <= cache.limit, "\(figures)")
    }

    /// A decode libsndfile made is served only to a request whose formats allow what it was
    /// read under; one that does not is refused as the file itself refuses it. (The player's
    /// 30-second probe refuses those before the cache is asked; this is the cache's own rule.)
    @Test func aLibsndfileDecodeIsServedOnlyToRequestsThatAllowIt() throws {
        let theme = try #require(try? file(Self.themeSound, .themeSound), "the freedesktop sound theme is not installed")
        let cache = SoundCache(limit: 32 << 20)
        let played = try play(theme, on: cache)
        #expect(try played == uncached(theme) && cache.figures.sounds == 1 && cache.figures.fileOpens == 1)
        #expect(throws: NotificationSoundError.self) { try cache.open(ParsedSound(file(Self.themeSound, .notificationSound)), loops: false) }
        #expect(try play(file(Self.themeSound, .anyReadable), on: cache) == played)
        #expect(try play(file(Self.themeSound, .themeSound), on: cache) == played)
        #expect(cache.figures.fileOpens == 1, "\(cache.figures)")

        // Sun AU: a path may name it (libsndfile reads it), a theme may not.
        let au = try tone("tone.au", codec: "pcm_s16be")
        try play(file(au, .anyReadable), on: cache)
        #expect(cache.figures.sounds == 2 && cache.figures.fileOpens == 2, "\(cache.figures)")
        #expect(throws: NotificationSoundError.self) { try cache.open(ParsedSound(file(au, .themeSound)), loops: false) }
        #expect(throws: NotificationSoundError.self) { try cache.open(ParsedSound(file(au, .notificationSound)), loops: false) }
    }

    /// Only a whole one-shot play of a libsndfile sound is kept: not a looping one (it never
    /// ends), nor one dropped before its end (a cancelled sound).
    @Test func aLibsndfileSoundIsKeptOnlyOncePlayedToItsEnd() throws {
        let theme = try #require(try? file(Self.themeSound, .themeSound), "the freedesktop sound theme is not installed")
        let whole = try uncached(theme), frames = whole.count / (try SoundSources.open(theme).channelCount)
        let cache = SoundCache(limit: 32 << 20)
        let looped = try play(theme, on: cache, loops: true, frames: 2 * frames)
        #expect(Array(looped.prefix(whole.count)) == whole && Array(looped.suffix(whole.count)) == whole)
        try play(theme, on: cache, frames: frames / 2)
        #expect(cache.figures.sounds == 0 && cache.figures.bytes == 0, "\(cache.figures)")
        #expect(try play(theme, on: cache) == whole)
        #expect(cache.figures.bytes == whole.count * 4 + SoundCacheFigures.formOverhead, "\(cache.figures)")
        #expect(try play(theme, on: cache, loops: true, frames: 2 * frames) == looped)
        #expect(cache.figures.fileOpens == 3, "the looping play after the whole one is the cache's: \(cache.figures)")
    }

    /// libsndfile takes a file's length from its header and stops there; a file that ends
    /// before it plays as far as it goes, and is not kept, decoded or converted: that may be a
    /// read error (libsndfile reports one as an early end), and the recording's room, reserved
    /// for the stated length, was kept with it uncounted. A file stating less than it holds
    /// plays, and is kept, as far as it states.
    @Test func aLibsndfileSoundThatEndsBeforeItsStatedLengthIsNotKept() throws {
        let flac = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tone("tone.flac", codec: "flac"))))  // 4,800 frames
        /// The file with STREAMINFO's 36-bit sample count set to `frames`.
        func stating(_ frames: UInt64, _ name: String) throws -> SoundFile {
            var bytes = flac
            let header = (18..<26).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[$1]) }
            let patched = header & ~((1 << 36) - 1) | frames
            for index in 0..<8 { bytes[18 + index] = UInt8(truncatingIfNeeded: patched >> (56 - 8 * UInt64(index))) }
            try Data(bytes).write(to: URL(fileURLWithPath: folder.file(name)))
            return try file(folder.file(name), .anyReadable)
        }
        let cache = SoundCache(limit: 32 << 20)
        let long = try stating(960_000, "long.flac")  // 20 s stated
        let first = try play(long, on: cache)
        #expect(try first.count == 4800 && first == uncached(long))
        let converted = try play(long, on: cache, rate: 44100)
        #expect(converted.count == 4410)
        #expect(cache.figures.sounds == 0 && cache.figures.bytes == 0, "\(cache.figures)")
        #expect(try play(long, on: cache) == first)
        #expect(try play(long, on: cache, rate: 44100) == converted)
        #expect(cache.figures.fileOpens == 4 && cache.figures.conversions == 2, "\(cache.figures)")

        let short = try stating(1000, "short.flac")
        #expect(try play(short, on: cache) == Array(first.prefix(1000)))
        try play(short, on: cache, rate: 44100)
        #expect(try play(short, on: cache) == Array(first.prefix(1000)))
        try play(short, on: cache, rate: 44100)
        #expect(cache.figures.bytes == (1000 + 919) * 4 + 2 * SoundCacheFigures.formOverhead, "\(cache.figures)")
        #expect(cache.figures.fileOpens == 5 && cache.figures.conversions == 3, "\(cache.figures)")
    }
}
