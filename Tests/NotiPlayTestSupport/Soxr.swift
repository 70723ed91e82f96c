import CSoxr

/// libsoxr, the field's quality reference for sample-rate conversion, through its C API: the
/// reference the resampler's output is compared with. Its output is delay-compensated (it drops
/// its filter's latency itself), as ours is, so the two line up sample for sample.
public enum Soxr {
    public enum Recipe: Sendable {
        case high, veryHigh

        var constant: UInt { self == .high ? UInt(SOXR_HQ) : UInt(SOXR_VHQ) }
    }

    /// The whole of `samples` (interleaved) resampled in one stream, flushed: round(frames × out / in) frames.
    public static func resample(
        _ samples: [Float], channels: Int, from inputRate: Int, to outputRate: Int, recipe: Recipe = .veryHigh
    ) -> [Float] {
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(recipe.constant, 0)
        var runtime = soxr_runtime_spec(1)
        var error: soxr_error_t?
        let soxr = soxr_create(Double(inputRate), Double(outputRate), UInt32(channels), &error, &io, &quality, &runtime)
        precondition(error == nil && soxr != nil, "soxr_create: \(String(cString: error!))")
        defer { soxr_delete(soxr) }
        let frames = samples.count / channels
        let expected = Int((Double(frames) * Double(outputRate) / Double(inputRate)).rounded())
        var output = [Float](repeating: 0, count: (expected + 64) * channels)
        var written = 0
        output.withUnsafeMutableBufferPointer { out in
            samples.withUnsafeBufferPointer { input in
                var done = 0
                var odone = 0
                let e = soxr_process(soxr, input.baseAddress, frames, &done, out.baseAddress, expected + 64, &odone)
                precondition(e == nil && done == frames)
                written = odone
                // The flush: a null input ends the stream; soxr emits the tail across calls.
                while true {
                    odone = 0
                    let e = soxr_process(soxr, nil, 0, nil, out.baseAddress! + written * channels, expected + 64 - written, &odone)
                    precondition(e == nil)
                    if odone == 0 { break }
                    written += odone
                }
            }
        }
        return Array(output.prefix(written * channels))
    }
}
