/// Float32 mix → the device's sample format, clipped to full scale and rounded to nearest (even
/// on ties), so a constant gain gives exactly `round(sample × gain × 2^(bits−1))`.
///
/// Non-finite values never reach the device: NaN becomes silence and ±Inf full scale. The mix
/// cannot hold NaN (`Mixer.contribution` keeps every voice's part finite), but voices' finite
/// parts can still sum to ±Inf; and converting NaN or ±Inf to an integer traps.
enum SampleConversion {
    /// Adding and subtracting 1.5·2^52 rounds a Double of magnitude below 2^51 to the nearest
    /// integer, ties to even, in the FPU's own rounding: the same result as `rint`, without a
    /// call the real-time checker cannot see into.
    @_noLocks @inline(__always)
    static func roundedToNearestEven(_ value: Double) -> Double {
        let magic = 6_755_399_441_055_744.0
        return (value + magic) - magic
    }

    /// `sample` within -1...1, with NaN as 0. `min` and `max` let NaN through (it fails every
    /// comparison), and `sample == sample` is false only for NaN: a select, so the loops still vectorize.
    @_noLocks @inline(__always)
    static func clippedToFullScale(_ sample: Float) -> Float {
        sample == sample ? min(max(sample, -1), 1) : 0
    }

    @_noLocks
    static func convert(
        _ mix: UnsafePointer<Float>, count: Int, to format: DeviceSampleFormat, into out: UnsafeMutableRawPointer
    ) {
        switch format {
        case .float32:
            let o = out.assumingMemoryBound(to: Float.self)
            for i in 0..<count { o[i] = clippedToFullScale(mix[i]) }
        case .int32:
            let o = out.assumingMemoryBound(to: Int32.self)
            for i in 0..<count {
                // 2^31 is not an Int32: full positive scale becomes Int32.max.
                let scaled = roundedToNearestEven(Double(clippedToFullScale(mix[i])) * 2_147_483_648)
                o[i] = scaled >= 2_147_483_647 ? .max : Int32(scaled)
            }
        case .int16:
            let o = out.assumingMemoryBound(to: Int16.self)
            for i in 0..<count {
                let scaled = roundedToNearestEven(Double(clippedToFullScale(mix[i])) * 32768)
                o[i] = Int16(min(scaled, 32767))
            }
        }
    }
}
