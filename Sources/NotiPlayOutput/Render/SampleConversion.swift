/// Float32 mix → the device's sample format, clipped to full scale and rounded to nearest (even
/// on ties), so a constant gain gives exactly `round(sample × gain × 2^(bits−1))`.
enum SampleConversion {
    /// Adding and subtracting 1.5·2^52 rounds a Double of magnitude below 2^51 to the nearest
    /// integer, ties to even, in the FPU's own rounding: the same result as `rint`, without a
    /// call the real-time checker cannot see into.
    @_noAllocation @inline(__always)
    static func roundedToNearestEven(_ value: Double) -> Double {
        let magic = 6_755_399_441_055_744.0
        return (value + magic) - magic
    }

    @_noAllocation
    static func convert(
        _ mix: UnsafePointer<Float>, count: Int, to format: DeviceSampleFormat, into out: UnsafeMutableRawPointer
    ) {
        switch format {
        case .float32:
            let o = out.assumingMemoryBound(to: Float.self)
            for i in 0..<count { o[i] = min(max(mix[i], -1), 1) }
        case .int32:
            let o = out.assumingMemoryBound(to: Int32.self)
            for i in 0..<count {
                // 2^31 is not an Int32: full positive scale becomes Int32.max.
                let scaled = roundedToNearestEven(Double(min(max(mix[i], -1), 1)) * 2_147_483_648)
                o[i] = scaled >= 2_147_483_647 ? .max : Int32(scaled)
            }
        case .int16:
            let o = out.assumingMemoryBound(to: Int16.self)
            for i in 0..<count {
                let scaled = roundedToNearestEven(Double(min(max(mix[i], -1), 1)) * 32768)
                o[i] = Int16(min(scaled, 32767))
            }
        }
    }
}
