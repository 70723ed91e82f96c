import Synchronization

/// Where a voice's frames come from: a streaming decoder, a sound decoded earlier, or anything
/// else that yields interleaved Float32 frames (libsndfile for Ogg Vorbis theme sounds). The
/// output knows no decoder: NotiPlay makes `SoundDecoder` a source (DecoderSources.swift).
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
