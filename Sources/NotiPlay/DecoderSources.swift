import NotiPlayDecoder
import NotiPlayOutput

extension SoundDecoder: FrameSource {
    public var sampleRate: Double { description.sampleRate }
    public var channelCount: Int { description.channelCount }
    public var duration: Double? { description.duration }
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
    /// The whole sound's samples, reserved at the first read: a sound waiting for its device
    /// holds its file, not a buffer for all of it.
    private var recordingSize = 0
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
            recordingSize = samples.partialValue
        }
    }

    public var sampleRate: Double { decoder.sampleRate }
    public var channelCount: Int { decoder.channelCount }
    public var duration: Double? { decoder.description.duration }
    /// The speakers the file names for its channels, if it names them.
    public var channelLayout: ChannelLayout? { decoder.description.channelLayout }
    /// Whether what is decoded is still being kept for `onComplete`.
    public var isRecording: Bool { onComplete != nil }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        if onComplete != nil && recorded.capacity < recordingSize { recorded.reserveCapacity(recordingSize) }
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
