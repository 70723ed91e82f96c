/// Float samples (full scale ±1.0) to integers: scale by 2^(bits-1), round to nearest (ties to
/// even), clip. The inverse of the decoder's x / 2^(bits-1), so decoded integers round-trip exactly.
enum Quantize {
    @inline(__always)
    static func integer(_ sample: Float, bits: Int) -> Int32 {
        let scale = Double(sign: .plus, exponent: bits - 1, significand: 1)
        let scaled = (Double(sample) * scale).rounded(.toNearestOrEven)
        if scaled.isNaN { return 0 }
        if scaled >= scale - 1 { return Int32(scale - 1) }
        if scaled <= -scale { return Int32(-scale) }
        return Int32(scaled)
    }

    /// The 16-bit value IMA ADPCM and G.711 encode from.
    @inline(__always)
    static func int16(_ sample: Float) -> Int16 {
        Int16(truncatingIfNeeded: integer(sample, bits: 16))
    }
}
