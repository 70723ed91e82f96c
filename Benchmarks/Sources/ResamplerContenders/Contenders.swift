import CSoxrBench
import CSpeexDSPBench
import NotiPlayResampler

/// The resamplers compared in ResamplerBenchmarks (speed) and ResamplerQuality (quality), set up
/// the same way in both: noti-play's, libsoxr's HQ and VHQ recipes (one thread, linear phase) and
/// speexdsp at quality 3 (PulseAudio's default) and 10. All stream interleaved Float32.
public enum Contender: String, CaseIterable, Sendable {
    case notiPlay = "noti-play"
    case soxrHQ = "soxr HQ"
    case soxrVHQ = "soxr VHQ"
    case speex3 = "speexdsp 3"
    case speex10 = "speexdsp 10"

    public func make(from inputRate: Int, to outputRate: Int, channels: Int) -> any StreamResampler {
        switch self {
        case .notiPlay: NotiPlayStream(from: inputRate, to: outputRate, channels: channels)
        case .soxrHQ: SoxrStream(from: inputRate, to: outputRate, channels: channels, recipe: UInt(SOXR_HQ))
        case .soxrVHQ: SoxrStream(from: inputRate, to: outputRate, channels: channels, recipe: UInt(SOXR_VHQ))
        case .speex3: SpeexStream(from: inputRate, to: outputRate, channels: channels, quality: 3)
        case .speex10: SpeexStream(from: inputRate, to: outputRate, channels: channels, quality: 10)
        }
    }
}

/// The conversions the issue measures.
public let measuredConversions: [(from: Int, to: Int)] = [(44100, 48000), (48000, 44100), (8000, 48000)]

public protocol StreamResampler: AnyObject {
    var channels: Int { get }
    /// Converts a chunk; `output` has room for at least (frames × out / in + 64) frames.
    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> Int
    /// The tail after the last chunk.
    func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int
}

extension StreamResampler {
    /// The whole signal in 4096-frame chunks, then the flush.
    public func resampleAll(_ input: [Float], ratio: Double) -> [Float] {
        let chunk = 4096
        var output: [Float] = []
        let room = Int(Double(chunk) * ratio) + 4096
        var scratch = [Float](repeating: 0, count: room * channels)
        input.withUnsafeBufferPointer { all in
            var at = 0
            while at < all.count {
                let end = min(all.count, at + chunk * channels)
                let n = scratch.withUnsafeMutableBufferPointer { process(UnsafeBufferPointer(rebasing: all[at..<end]), into: $0) }
                output += scratch.prefix(n * channels)
                at = end
            }
        }
        while true {
            let n = scratch.withUnsafeMutableBufferPointer { flush(into: $0) }
            if n == 0 { break }
            output += scratch.prefix(n * channels)
        }
        return output
    }
}

final class NotiPlayStream: StreamResampler {
    let resampler: Resampler
    let channels: Int
    var flushed = false

    init(from: Int, to: Int, channels: Int) {
        resampler = try! Resampler.conversion(from: from, to: to, channelCount: channels)!
        self.channels = channels
    }

    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> Int {
        resampler.process(input, into: output)
    }

    func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        if flushed { return 0 }
        flushed = true
        return resampler.flush(into: output)
    }
}

final class SoxrStream: StreamResampler {
    let soxr: soxr_t
    let channels: Int

    init(from: Int, to: Int, channels: Int, recipe: UInt) {
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(recipe, 0)
        var runtime = soxr_runtime_spec(1)  // one thread, as our decode worker would use
        var error: soxr_error_t?
        soxr = soxr_create(Double(from), Double(to), UInt32(channels), &error, &io, &quality, &runtime)!
        precondition(error == nil)
        self.channels = channels
    }

    deinit { soxr_delete(soxr) }

    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> Int {
        var done = 0
        var written = 0
        soxr_process(soxr, input.baseAddress, input.count / channels, &done, output.baseAddress, output.count / channels, &written)
        precondition(done == input.count / channels)
        return written
    }

    func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        var written = 0
        soxr_process(soxr, nil, 0, nil, output.baseAddress, output.count / channels, &written)
        return written
    }
}

/// speexdsp keeps its filter's delay in the output (it has no delay compensation); at the end it
/// is fed its input latency in zeros so that the whole signal comes out.
final class SpeexStream: StreamResampler {
    let state: OpaquePointer
    let channels: Int
    var flushed = false
    let zeros: [Float]

    init(from: Int, to: Int, channels: Int, quality: Int32) {
        var error: Int32 = 0
        state = speex_resampler_init(UInt32(channels), UInt32(from), UInt32(to), quality, &error)!
        precondition(error == 0)
        self.channels = channels
        zeros = [Float](repeating: 0, count: Int(speex_resampler_get_input_latency(state)) * channels)
    }

    deinit { speex_resampler_destroy(state) }

    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> Int {
        var at = 0
        var written = 0
        let frames = input.count / channels
        while at < frames {
            var inLength = UInt32(frames - at)
            var outLength = UInt32(output.count / channels - written)
            speex_resampler_process_interleaved_float(
                state, input.baseAddress! + at * channels, &inLength, output.baseAddress! + written * channels, &outLength)
            at += Int(inLength)
            written += Int(outLength)
            precondition(inLength > 0 || outLength > 0)
        }
        return written
    }

    func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        if flushed { return 0 }
        flushed = true
        return zeros.withUnsafeBufferPointer { process($0, into: output) }
    }
}
