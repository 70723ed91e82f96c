import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayResampler

/// A sound converted to its stream as it is read: its channels onto the stream's speakers by
/// their layout (``ChannelMatrix``), then to the stream's rate. The engine's decode worker calls
/// `read`, so the conversion runs there, never on the render thread. One stream per device means
/// every sound that is not at the device's rate, or whose layout the mixer's positional mapping
/// would get wrong (5.1 on stereo), passes through one of these.
///
/// It reads the source a block at a time, maps and converts the block, and hands out what came
/// of it; at the source's end it flushes the filter, so the sound ends with its last frame
/// (round(N × out / in) frames in all). A looping source never ends: the filter runs across the
/// seam as across any other frames. The channels are mapped first: fewer to resample.
final class ConvertingSource: FrameSource {
    private let source: any FrameSource
    private let matrix: ChannelMatrix?
    private let resampler: Resampler?
    /// The largest filter table a sound may cost (designed on the player's control thread, while
    /// other sounds wait): 2 MB. Real rates take far less (44.1 ↔ 48 kHz 118 kB, 384 → 44.1 kHz
    /// about 0.9 MB); a rate far above the stream's with no small ratio (1,411,199 Hz) would take
    /// 20 MB and a tenth of a second, and is refused in one line instead.
    static let largestFilterTable = 2 << 20
    /// Input frames read from the source per block.
    private static let blockFrames = 1024
    private let input: UnsafeMutableBufferPointer<Float>
    /// The block on the stream's speakers, when there is a matrix.
    private let mapped: UnsafeMutableBufferPointer<Float>?
    /// The resampler's output, when there is one.
    private let output: UnsafeMutableBufferPointer<Float>
    /// Where the last block ended up (`input`, `mapped` or `output`).
    private var converted = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
    /// Converted frames not yet handed out: `converted[pending]`.
    private var pending = 0..<0
    private var ended = false

    let sampleRate: Double
    let channelCount: Int
    var duration: Double? { source.duration }

    /// `source` on a stream of `rate` and `channels`, whose `speakers` are those the device's
    /// channel map names (``NegotiatedFormat/speakers``; nil: none, WAVE's order), or nil when it
    /// plays as it is: at that rate already (the one place that decides is
    /// `Resampler.conversion`), with channels the mixer maps as the layout says
    /// (`ChannelMatrix.mapping`). Then its samples pass bit for bit.
    static func converting(
        _ source: any FrameSource, layout: ChannelLayout?, to rate: Int, channels: Int, speakers: [ChannelLayout.Speaker]?,
        quality: Resampler.Quality = .high
    ) throws(Resampler.SetupError) -> ConvertingSource? {
        var matrix = ChannelMatrix.mapping(from: layout, channelCount: source.channelCount, to: channels, speakers: speakers)
        let sourceRate = Int(source.sampleRate.rounded())
        // Resampling costs per channel: channels the stream has no speaker for are dropped (as
        // the mixer would drop them) before the filter, not after it.
        if matrix == nil && sourceRate != rate && source.channelCount > channels {
            matrix = ChannelMatrix.mixerMapping(inputChannels: source.channelCount, outputChannels: channels)
        }
        let resampler = try Resampler.conversion(
            from: sourceRate, to: rate, channelCount: matrix?.outputChannels ?? source.channelCount, quality: quality,
            maximumTableBytes: Self.largestFilterTable)
        if matrix == nil && resampler == nil { return nil }
        return ConvertingSource(source, matrix, resampler)
    }

    private init(_ source: any FrameSource, _ matrix: ChannelMatrix?, _ resampler: Resampler?) {
        self.source = source
        self.matrix = matrix
        self.resampler = resampler
        sampleRate = resampler.map { Double($0.outputRate) } ?? source.sampleRate
        channelCount = matrix?.outputChannels ?? source.channelCount
        input = .allocate(capacity: Self.blockFrames * source.channelCount)
        mapped = matrix.map { .allocate(capacity: Self.blockFrames * $0.outputChannels) }
        output = resampler.map { .allocate(capacity: $0.maximumOutputFrames(forInputFrames: Self.blockFrames) * $0.channelCount) }
            ?? .allocate(capacity: 0)
    }

    deinit {
        input.deallocate()
        mapped?.deallocate()
        output.deallocate()
    }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let channels = channelCount
        let wanted = buffer.count / channels
        var written = 0
        while written < wanted {
            if pending.isEmpty {
                if ended { break }
                try refill()
                continue
            }
            let frames = min(wanted - written, pending.count)
            let from = converted.baseAddress! + pending.lowerBound * channels
            (buffer.baseAddress! + written * channels).update(from: from, count: frames * channels)
            pending = (pending.lowerBound + frames)..<pending.upperBound
            written += frames
        }
        return written
    }

    /// Converts the next block of the source (or, at its end, the filter's tail) and makes it
    /// `pending` in `converted`.
    private func refill() throws {
        let sourceChannels = source.channelCount
        var frames = 0
        while frames < Self.blockFrames {
            let region = UnsafeMutableBufferPointer(rebasing: input[(frames * sourceChannels)...])
            let read = try source.read(into: region)
            if read == 0 { break }
            frames += read
        }
        var block = UnsafeBufferPointer(rebasing: input[..<(frames * sourceChannels)])
        if let matrix, let mapped {
            matrix.apply(input.baseAddress!, frames: frames, into: mapped.baseAddress!)
            block = UnsafeBufferPointer(rebasing: mapped[..<(frames * matrix.outputChannels)])
        }
        guard let resampler else {
            converted = UnsafeMutableBufferPointer(mutating: block)
            pending = 0..<frames
            ended = frames == 0
            return
        }
        converted = output
        if frames == 0 {
            pending = 0..<resampler.flush(into: output)
            ended = true
        } else {
            pending = 0..<resampler.process(block, into: output)
        }
    }
}
