import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayResampler
import Synchronization

/// Sounds kept for replay, by file identity (device, inode, size, modification time): each as
/// it was decoded and as it was converted for each stream it played on, so a sound played again
/// on the same stream is neither decoded nor converted again. At most `limit` bytes in all,
/// samples and each form's keeping; the sound played least recently is let go first, with all
/// its forms (a daemon's default sound, played often, stays). A sound's first play streams from
/// the file and records what it decodes and what its conversion puts out; the recordings arrive
/// on the engine's decode worker, hence the lock.
///
/// Recordings in flight are bounded too: one per file and form at a time (16 voices of one
/// file, started together, make one recording, which the plays after it share from the cache;
/// the others stream from the file), and at most `limit` bytes in all. Each recording reserves
/// its whole room before it starts (issue 23: every voice recorded its own 32 MiB decode and its
/// conversion, 16 voices of one 16.7 MB WAV peaked at 604 MB).
final class SoundCache: Sendable {
    /// What a stream takes: the rate, channels and speakers (the device's channel map, where it
    /// names them) a cached conversion was made for.
    struct StreamShape: Hashable {
        var sampleRate: Int
        var channelCount: Int
        var speakers: [ChannelLayout.Speaker]?
    }

    /// What a file's header said when a form of it was made. A form is served only to a play
    /// whose header says the same: a file rewritten in place with its size and modification
    /// time kept is another sound, which must not play as the one its identity names.
    fileprivate struct Header: Equatable {
        var sampleRate: Double
        var channelCount: Int
        var frameCount: Int

        init(_ sound: ParsedSound) {
            (sampleRate, channelCount, frameCount) = (sound.sampleRate, sound.channelCount, sound.frameCount)
        }
    }

    /// One file's forms.
    struct Entry {
        fileprivate let header: Header
        /// As decoded: nil when only a conversion was recorded (its decode alone was over the limit).
        var decoded: DecodedSound?
        /// The speakers the file names for its channels.
        var layout: ChannelLayout?
        /// The formats it was read under when libsndfile read it (a theme's Ogg); nil when the
        /// pure-Swift decoder did, whose formats every request allows. A request that does not
        /// allow them (a `sound-file` naming that Ogg through a hard link outside the theme
        /// folders) is not served from here, so the cache never plays what the file itself
        /// would be refused for.
        var readByLibsndfileAs: SoundFormats?
        var converted: [StreamShape: DecodedSound] = [:]
        /// Its place in the play order (``State/uses``): when it was last played or recorded.
        fileprivate var lastUse = 0

        var bytes: Int {
            converted.values.reduce(decoded.map(Self.bytes) ?? 0) { $0 + Self.bytes($1) }
        }
        /// A form's samples and its keeping (``SoundCacheFigures/formOverhead``).
        static func bytes(_ sound: DecodedSound) -> Int {
            sound.samples.count * MemoryLayout<Float>.size + SoundCacheFigures.formOverhead
        }
    }

    /// A sound looked up for a play: its cached forms and, when they do not hold its decode, its
    /// file opened for streaming. Which form plays is decided once the stream's shape is known
    /// (``frames(of:on:)``); until then it waits for its device holding this.
    struct Opened {
        fileprivate enum Decode {
            case cached(DecodedSound)
            case file(any FrameSource)
        }
        fileprivate let identity: FileIdentity
        fileprivate let header: Header
        fileprivate let loops: Bool
        fileprivate let decode: Decode
        /// The conversions cached for it when it was looked up.
        fileprivate let conversions: [StreamShape: DecodedSound]
        fileprivate let layout: ChannelLayout?

        var sampleRate: Double { header.sampleRate }
        var channelCount: Int { header.channelCount }
    }

    /// A form of a file: as decoded, or as converted for a stream.
    private enum Form: Hashable {
        case decoded
        case converted(StreamShape)
    }

    private struct RecordingKey: Hashable {
        var identity: FileIdentity
        var form: Form
    }

    /// The room one recording in flight holds, from the moment it may start until it is handed
    /// to the cache or let go: its recorder (which holds this) is released with the source that
    /// records, when the voice ends, is cancelled or waits no more, or the recording stops.
    private final class Reservation: Sendable {
        let cache: SoundCache
        let key: RecordingKey
        let bytes: Int

        init(_ cache: SoundCache, _ key: RecordingKey, bytes: Int) {
            (self.cache, self.key, self.bytes) = (cache, key, bytes)
        }

        deinit {
            cache.state.withLock { state in
                state.recording.remove(key)
                state.recordingBytes -= bytes
            }
        }
    }

    private struct State {
        var entries: [FileIdentity: Entry] = [:]
        /// The play order: an identity is appended at each play or recording of its entry, and
        /// only its last place counts (its entry's `lastUse`, place `i` being `firstUse + i`); the
        /// places before `oldest` are gone. No search and no shifting (an array searched at each
        /// play and shifted at each sound let go made a cache of many short sounds quadratic to
        /// fill, under the lock the engine's decode worker takes); the places that no longer
        /// count are dropped once the order is more than twice as long as the entries.
        var uses: [FileIdentity] = []
        var firstUse = 0
        var oldest = 0
        var bytes = 0
        /// The forms being recorded, and the room their recordings reserved.
        var recording: Set<RecordingKey> = []
        var recordingBytes = 0
        var figures = SoundCacheFigures()

        /// Makes `identity`'s entry, if there is one, the one played last.
        mutating func use(_ identity: FileIdentity) {
            guard entries[identity] != nil else { return }
            entries[identity]!.lastUse = firstUse + uses.count
            uses.append(identity)
            guard uses.count > 2 * entries.count + 64 else { return }
            var kept: [FileIdentity] = []
            kept.reserveCapacity(entries.count)
            let next = firstUse + uses.count  // after every place so far: no old place can match
            for index in oldest..<uses.count where entries[uses[index]]?.lastUse == firstUse + index {
                entries[uses[index]]!.lastUse = next + kept.count
                kept.append(uses[index])
            }
            (uses, firstUse, oldest) = (kept, next, 0)
        }

        /// The entry played least recently, which stays first until it is let go or played.
        mutating func leastRecentlyUsed() -> FileIdentity? {
            while oldest < uses.count {
                if entries[uses[oldest]]?.lastUse == firstUse + oldest { return uses[oldest] }
                oldest += 1
            }
            return nil
        }
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = max(0, limit) }

    /// `sound`'s cached forms, if its file has not changed since they were made and its header
    /// says what theirs did; else its decode from the file, recorded for the cache when no other
    /// play records it and there is room (see ``recorder(_:of:header:frames:_:)``).
    func open(_ sound: ParsedSound, loops: Bool) throws(NotificationSoundError) -> Opened {
        let identity = sound.file.file.identity, header = Header(sound)
        let cached = state.withLock { state in
            state.use(identity)
            return state.entries[identity].flatMap { $0.header == header ? $0 : nil }
        }
        if let cached, let decoded = cached.decoded, cached.readByLibsndfileAs.map(sound.file.formats.allowsAll) ?? true {
            return Opened(identity: identity, header: header, loops: loops, decode: .cached(decoded), conversions: cached.converted,
                          layout: cached.layout)
        }
        let layout = sound.channelLayout, formats = sound.file.formats
        let played: any FrameSource
        switch try sound.takeDecoder() {
        case .swift(let decoder):
            let record = recorder(.decoded, of: identity, header: header, frames: decoder.framesRemaining) { entry, decoded in
                entry.decoded = decoded
                entry.layout = layout
            }
            played = RecordingDecoderSource(decoder, loops: loops, recordingLimit: limit / MemoryLayout<Float>.size, onComplete: record)
        case .foreign(let source):
            // libsndfile's or libFLAC's decode is recorded here (the pure-Swift decoder records its
            // own): a theme's Ogg or FLAC, played at the stream's rate, is not decoded again either.
            // Only if it ends at the length the file stated (see ``RecordingSource/endedShort``).
            source.loops = loops
            let record = loops ? nil : recorder(.decoded, of: identity, header: header, frames: source.frameCount) { entry, decoded in
                entry.decoded = decoded
                entry.layout = layout
                entry.readByLibsndfileAs = formats
            }
            played = record.map { RecordingSource(source, limit: limit / MemoryLayout<Float>.size, statedFrames: source.frameCount, onComplete: $0) }
                ?? source
        }
        state.withLock { $0.figures.fileOpens += 1 }
        return Opened(identity: identity, header: header, loops: loops, decode: .file(played), conversions: cached?.converted ?? [:],
                      layout: layout)
    }

    /// The frames `sound` plays on a stream of `shape`: its cached conversion for that stream,
    /// or its decode converted as it plays (``ConvertingSource``) and recorded for the next
    /// time; as it is when the stream takes it unconverted. A looping sound is always converted
    /// as it plays: the filter runs across its seam, which a one-shot recording does not hold.
    func frames(of sound: Opened, on shape: StreamShape) throws(Resampler.SetupError) -> any FrameSource {
        if !sound.loops, let converted = sound.conversions[shape] {
            return DecodedSoundSource(converted)
        }
        let decode: any FrameSource, recordedDecode: RecordingSource?
        switch sound.decode {
        case .cached(let decoded): (decode, recordedDecode) = (DecodedSoundSource(decoded, loops: sound.loops), nil)
        case .file(let source): (decode, recordedDecode) = (source, source as? RecordingSource)
        }
        guard let converting = try ConvertingSource.converting(
            decode, layout: sound.layout, to: shape.sampleRate, channels: shape.channelCount, speakers: shape.speakers) else { return decode }
        state.withLock { $0.figures.conversions += 1 }
        guard !sound.loops, let record = recorder(.converted(shape), of: sound.identity, header: sound.header,
                                                  frames: RecordingSource.expectedFrames(of: converting), { entry, converted in
            entry.converted[shape] = converted
        }) else { return converting }
        return RecordingSource(converting, limit: limit / MemoryLayout<Float>.size) { converted in
            // Nor the conversion of a decode that ended short: it is of no more than that.
            guard recordedDecode?.endedShort != true else { return }
            record(converted)
        }
    }

    /// What hands a whole recording of `identity`'s `form` (`frames` frames, by the header) to
    /// the cache, if this play may make it: nil while another play records that form (the
    /// plays after it share its recording, from the cache), or when the recordings in flight
    /// would then hold more than `limit` bytes (this play streams, unrecorded). The room is
    /// reserved from now until the recorder is released (``Reservation``).
    private func recorder(
        _ form: Form, of identity: FileIdentity, header: Header, frames: Int?,
        _ add: @escaping @Sendable (inout Entry, DecodedSound) -> Void
    ) -> (@Sendable (DecodedSound) -> Void)? {
        let key = RecordingKey(identity: identity, form: form)
        let channels = switch form {
        case .decoded: header.channelCount
        case .converted(let shape): shape.channelCount
        }
        let limitSamples = limit / MemoryLayout<Float>.size
        guard let frames, frames >= 0, frames <= limitSamples / channels else { return nil }
        let bytes = frames * channels * MemoryLayout<Float>.size + SoundCacheFigures.formOverhead
        let granted = state.withLock { state in
            guard !state.recording.contains(key), state.recordingBytes + bytes <= limit else { return false }
            state.recording.insert(key)
            state.recordingBytes += bytes
            state.figures.recordings += 1
            state.figures.peakRecordingBytes = max(state.figures.peakRecordingBytes, state.recordingBytes)
            return true
        }
        guard granted else { return nil }
        let reservation = Reservation(self, key, bytes: bytes)
        // Strong: the cache holds no recorder, so there is no cycle; it lives while the sound
        // plays. (A weak reference's side table is what LeakSanitizer reported at every exit
        // of the command, which plays through a player since its one play path.)
        return { [self] recorded in
            withExtendedLifetime(reservation) { remember(identity, header) { add(&$0, recorded) } }
        }
    }

    /// The places the play order holds, gone or not (for the tests).
    var playOrderLength: Int { state.withLock { $0.uses.count } }

    var figures: SoundCacheFigures {
        state.withLock { state in
            var figures = state.figures
            figures.bytes = state.bytes
            figures.sounds = state.entries.count
            return figures
        }
    }

    /// Puts a form in `identity`'s entry (made afresh if it has none, or one made from another
    /// header), unless the entry would then exceed the whole limit; then lets the least recently
    /// played entries go until the cache is within its limit.
    private func remember(_ identity: FileIdentity, _ header: Header, _ add: (inout Entry) -> Void) {
        state.withLock { state in
            let old = state.entries[identity]
            var entry = old.flatMap { $0.header == header ? $0 : nil } ?? Entry(header: header)
            let before = old?.bytes ?? 0
            add(&entry)
            guard entry.bytes <= limit else { return }
            state.entries[identity] = entry
            state.use(identity)
            state.bytes += entry.bytes - before
            // `identity` is the newest, and within the limit alone: the others go before it.
            while state.bytes > limit, let oldest = state.leastRecentlyUsed(), oldest != identity {
                state.bytes -= state.entries.removeValue(forKey: oldest)?.bytes ?? 0
            }
        }
    }
}

/// What a player's cache holds and did, for the tests and the figures.
package struct SoundCacheFigures: Equatable, Sendable {
    /// What keeping a form costs besides its samples (its array, its place in its file's entry,
    /// and that entry and the file's identity), counted against the limit with them: without it,
    /// empty or one-frame sounds cost nothing and were kept without end.
    package static let formOverhead = 256
    /// Bytes held: samples, and `formOverhead` for each form.
    package var bytes = 0
    /// Files held (each with one form or more).
    package var sounds = 0
    /// Plays that opened their file: its decode was not cached (a cached conversion may still
    /// be what plays).
    package var fileOpens = 0
    /// Plays converted to their stream as they played (not from a cached conversion).
    package var conversions = 0
    /// Recordings begun (of a decode or a conversion), each with its room reserved.
    package var recordings = 0
    /// The most bytes the recordings in flight held at once, with `formOverhead` each: at most
    /// the cache's limit.
    package var peakRecordingBytes = 0

    package init(bytes: Int = 0, sounds: Int = 0, fileOpens: Int = 0, conversions: Int = 0, recordings: Int = 0, peakRecordingBytes: Int = 0) {
        self.bytes = bytes
        self.sounds = sounds
        self.fileOpens = fileOpens
        self.conversions = conversions
        self.recordings = recordings
        self.peakRecordingBytes = peakRecordingBytes
    }
}

/// Hands out another source's frames and keeps a copy of them; at their end, if they all fit
/// in the room its duration gives (at most `limit` samples) and the source did not end short,
/// gives the whole recording to `onComplete`, once. For a source that ends.
final class RecordingSource: FrameSource {
    private let source: any FrameSource
    private let statedFrames: Int?
    private var framesRead = 0
    private var recorded: [Float] = []
    /// Its room, reserved at the first frames: the whole recording by the source's duration.
    private var expectedSamples = 0
    private var onComplete: ((DecodedSound) -> Void)?
    /// Whether the source ended before the `statedFrames` it was said to hold: libsndfile stops
    /// at the length a file's header states (FLAC's STREAMINFO, Ogg's last granule position),
    /// and reports a read error as an early end. Such a recording is not the file's sound, and
    /// is not handed on: it is what a damaged or lying file plays as, or a failed read that a
    /// later play would not repeat; and its room, reserved for the stated length, would be kept
    /// with it uncounted (a FLAC stating 20 s that holds 0.1 s: 3.8 MB for 19 kB).
    private(set) var endedShort = false

    /// `statedFrames`: the frames the source says it holds, where that is exact (libsndfile's
    /// `frames`), else nil.
    init(_ source: any FrameSource, limit: Int, statedFrames: Int? = nil, onComplete: @escaping (DecodedSound) -> Void) {
        self.source = source
        self.statedFrames = statedFrames
        if let frames = Self.expectedFrames(of: source), frames <= limit / source.channelCount {
            self.onComplete = onComplete
            expectedSamples = frames * source.channelCount
        }
    }

    /// The frames a recording of `source` holds at most, by its duration (rounded up: a
    /// conversion puts out round(N × out / in) frames); nil when it does not say.
    static func expectedFrames(of source: any FrameSource) -> Int? {
        guard let frames = source.duration.map({ ($0 * source.sampleRate).rounded(.up) }), frames.isFinite, frames < 0x1p62 else { return nil }
        return Int(frames)
    }

    var sampleRate: Double { source.sampleRate }
    var channelCount: Int { source.channelCount }
    var duration: Double? { source.duration }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let frames = try source.read(into: buffer)
        framesRead += frames
        if frames == 0, let statedFrames, framesRead < statedFrames { endedShort = true }
        guard let onComplete else { return frames }
        let samples = frames * source.channelCount
        if frames == 0 {
            if !endedShort {
                onComplete(DecodedSound(sampleRate: source.sampleRate, channelCount: source.channelCount, samples: recorded))
            }
            stop()
        } else if recorded.count + samples > expectedSamples {  // past its room (and so never past `limit`)
            stop()
        } else {
            if recorded.isEmpty { recorded.reserveCapacity(expectedSamples) }
            recorded.append(contentsOf: buffer.prefix(samples))
        }
        return frames
    }

    private func stop() {
        onComplete = nil
        recorded = []
    }
}

extension SoundFormats {
    /// Whether a request for these formats allows every file `other` does: the three nest
    /// (notification sounds within theme sounds within whatever libsndfile reads).
    fileprivate func allowsAll(_ other: SoundFormats) -> Bool {
        func rank(_ formats: SoundFormats) -> Int {
            switch formats {
            case .notificationSound: 0
            case .themeSound: 1
            case .anyReadable: 2
            }
        }
        return rank(self) >= rank(other)
    }
}
