import NotiPlayDecoder
import Synchronization

/// Where a voice's frames come from: a streaming decoder, a sound decoded earlier, or anything
/// else that yields interleaved Float32 frames (libsndfile for Ogg Vorbis theme sounds).
///
/// The engine calls `read` from its decode worker, never from the render thread.
public protocol FrameSource: AnyObject {
    var sampleRate: Double { get }
    var channelCount: Int { get }
    /// Fills `buffer` with interleaved frames; returns the frames written, 0 once the sound ended.
    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int
    /// Seconds of sound (one pass of a looping source), where the source knows it.
    var duration: Double? { get }
}

extension FrameSource {
    public var duration: Double? { nil }
}

extension SoundDecoder: FrameSource {
    public var sampleRate: Double { description.sampleRate }
    public var channelCount: Int { description.channelCount }
    public var duration: Double? { description.duration }
}

/// A whole sound decoded into memory, shared by every voice that plays it (a daemon's cache).
public final class DecodedSound: Sendable {
    public let sampleRate: Double
    public let channelCount: Int
    /// Interleaved Float32.
    public let samples: [Float]

    public init(sampleRate: Double, channelCount: Int, samples: [Float]) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.samples = samples
    }

    public var frameCount: Int { samples.count / channelCount }
    public var duration: Double { Double(frameCount) / sampleRate }
}

/// Plays a `DecodedSound` from its start, once or looping.
public final class DecodedSoundSource: FrameSource {
    public let sound: DecodedSound
    private let loops: Bool
    private var position = 0  // in samples

    public init(_ sound: DecodedSound, loops: Bool = false) {
        self.sound = sound
        self.loops = loops
    }

    public var sampleRate: Double { sound.sampleRate }
    public var channelCount: Int { sound.channelCount }
    public var duration: Double? { sound.duration }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let channels = sound.channelCount
        let capacity = buffer.count / channels * channels
        var written = 0
        sound.samples.withUnsafeBufferPointer { samples in
            while written < capacity && !samples.isEmpty {
                if position == samples.count {
                    guard loops else { break }
                    position = 0
                }
                let count = min(capacity - written, samples.count - position)
                (buffer.baseAddress! + written).update(from: samples.baseAddress! + position, count: count)
                position += count
                written += count
            }
        }
        return written / channels
    }
}

/// Streams a decoder and keeps what it decoded; once the sound has been read to its end, the
/// whole of it is handed to `onComplete` (to be cached), so the next play needs no decoding.
/// A sound longer than `recordingLimit` samples is not kept: recording stops, and what was kept
/// is let go, the moment it passes the limit. A looping source starts again from the first frame
/// at the end.
public final class RecordingDecoderSource: FrameSource {
    private let decoder: SoundDecoder
    private let loops: Bool
    private let recordingLimit: Int
    private var recorded: [Float] = []
    private var onComplete: ((DecodedSound) -> Void)?

    public init(_ decoder: SoundDecoder, loops: Bool = false, recordingLimit: Int = .max,
                onComplete: ((DecodedSound) -> Void)? = nil) {
        self.decoder = decoder
        self.loops = loops
        self.recordingLimit = recordingLimit
        let samples = decoder.framesRemaining.multipliedReportingOverflow(by: decoder.channelCount)
        // A sound that cannot fit is never recorded; one that can gets its room at once.
        if onComplete != nil && !samples.overflow && samples.partialValue <= recordingLimit {
            self.onComplete = onComplete
            recorded.reserveCapacity(samples.partialValue)
        }
    }

    public var sampleRate: Double { decoder.sampleRate }
    public var channelCount: Int { decoder.channelCount }
    public var duration: Double? { decoder.description.duration }
    /// Whether what is decoded is still being kept for `onComplete`.
    public var isRecording: Bool { onComplete != nil }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        var frames = try decoder.read(into: buffer)
        if frames == 0 {
            if let onComplete {
                onComplete(DecodedSound(sampleRate: decoder.sampleRate, channelCount: decoder.channelCount, samples: recorded))
                stopRecording()
            }
            guard loops, decoder.description.frameCount > 0 else { return 0 }
            decoder.rewind()
            frames = try decoder.read(into: buffer)
        }
        if onComplete != nil {
            let samples = frames * decoder.channelCount
            if recorded.count + samples > recordingLimit { stopRecording() }
            else { recorded.append(contentsOf: buffer.prefix(samples)) }
        }
        return frames
    }

    private func stopRecording() {
        onComplete = nil
        recorded = []
    }
}
