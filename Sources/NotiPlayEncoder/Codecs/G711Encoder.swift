/// ITU-T G.711 µ-law and A-law compression of 16-bit samples.
///
/// Both pick the segment from the magnitude's highest bit and keep the next four bits; the
/// decoders expand to the middle of that interval, so truncating here gives the nearest code.
enum G711Encoder {
    /// µ-law: magnitude + 0x84 (the bias that makes segments line up), clipped to 32635, then
    /// sign, 3-bit segment and 4-bit mantissa, all bits inverted.
    @inline(__always)
    static func muLaw(_ sample: Int16) -> UInt8 {
        let negative = sample < 0
        let magnitude = min(abs(Int32(sample)), 32635) + 0x84
        let segment = (31 - UInt32(magnitude).leadingZeroBitCount) - 7  // 0...7
        let mantissa = (magnitude >> (segment + 3)) & 0x0F
        let sign: UInt8 = negative ? 0x80 : 0
        let code = sign | UInt8(segment << 4) | UInt8(mantissa)
        return ~code
    }

    /// A-law: segment 0 is linear (magnitude / 16); above it, segment s covers 2^(s+7) ..< 2^(s+8).
    /// Positive samples have the sign bit set; even bits are inverted (XOR 0x55).
    @inline(__always)
    static func aLaw(_ sample: Int16) -> UInt8 {
        let magnitude = min(abs(Int32(sample)), 32767)
        let code: Int32
        if magnitude < 256 {
            code = magnitude >> 4
        } else {
            let segment = Int32(31 - UInt32(magnitude).leadingZeroBitCount) - 7  // 1...7
            code = segment << 4 | ((magnitude >> (segment + 3)) & 0x0F)
        }
        let sign: UInt8 = sample >= 0 ? 0x80 : 0
        return (sign | UInt8(code)) ^ 0x55
    }

    static func encode(muLaw: Bool, _ samples: UnsafePointer<Float>, count: Int, into out: UnsafeMutableRawPointer) {
        for i in 0..<count {
            let value = Quantize.int16(samples[i])
            out.storeBytes(of: muLaw ? self.muLaw(value) : aLaw(value), toByteOffset: i, as: UInt8.self)
        }
    }
}
