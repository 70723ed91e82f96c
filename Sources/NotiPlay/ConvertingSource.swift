import NotiPlayOutput
import NotiPlayResampler

/// A sound converted to its stream's rate as it is read: the engine's decode worker calls
/// `read`, so the conversion runs there, never on the render thread. One stream per device means
/// every sound that is not at the device's rate passes through one of these.
///
/// It reads the source a block at a time, converts the block, and hands out what came of it;
/// at the source's end it flushes the filter, so the sound ends with its last frame
/// (round(N × out / in) frames in all). A looping source never ends: the filter runs across the
/// seam as across any other frames.
final class ConvertingSource: FrameSource {
    private let source: any FrameSource
    private let resampler: Resampler
    /// Input frames read from the source per block.
    private static let blockFrames = 1024
    private let input: UnsafeMutableBufferPointer<Float>
    private let output: UnsafeMutableBufferPointer<Float>
    /// Converted frames not yet handed out: `output[pending]`.
    private var pending = 0..<0
    private var ended = false

    let sampleRate: Double
    var channelCount: Int { source.channelCount }
    var duration: Double? { source.duration }

    /// A source at `rate`, or nil when it is at that rate already (its samples pass unchanged:
    /// the one place that decides is `Resampler.conversion`).
    static func converting(
        _ source: any FrameSource, to rate: Int, quality: Resampler.Quality = .high
    ) throws(Resampler.SetupError) -> ConvertingSource? {
        let sourceRate = Int(source.sampleRate.rounded())
        guard let resampler = try Resampler.conversion(from: sourceRate, to: rate, channelCount: source.channelCount, quality: quality) else {
            return nil
        }
        return ConvertingSource(source, resampler)
    }

    private init(_ source: any FrameSource, _ resampler: Resampler) {
        self.source = source
        self.resampler = resampler
        sampleRate = Double(resampler.outputRate)
        let channels = resampler.channelCount
        input = .allocate(capacity: Self.blockFrames * channels)
        output = .allocate(capacity: resampler.maximumOutputFrames(forInputFrames: Self.blockFrames) * channels)
    }

    deinit {
        input.deallocate()
        output.deallocate()
    }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let channels = resampler.channelCount
        let wanted = buffer.count / channels
        var written = 0
        while written < wanted {
            if pending.isEmpty {
                if ended { break }
                try refill()
                continue
            }
            let frames = min(wanted - written, pending.count)
            let from = output.baseAddress! + pending.lowerBound * channels
            (buffer.baseAddress! + written * channels).update(from: from, count: frames * channels)
            pending = (pending.lowerBound + frames)..<pending.upperBound
            written += frames
        }
        return written
    }

    /// Converts the next block of the source (or, at its end, the filter's tail) into `output`.
    private func refill() throws {
        let channels = resampler.channelCount
        var frames = 0
        while frames < Self.blockFrames {
            let region = UnsafeMutableBufferPointer(rebasing: input[(frames * channels)...])
            let read = try source.read(into: region)
            if read == 0 { break }
            frames += read
        }
        let produced: Int
        if frames == 0 {
            produced = resampler.flush(into: output)
            ended = true
        } else {
            produced = resampler.process(UnsafeBufferPointer(rebasing: input[..<(frames * channels)]), into: output)
        }
        pending = 0..<produced
    }
}
