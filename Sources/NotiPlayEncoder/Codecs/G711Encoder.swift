import NotiPlayDecoder

/// ITU-T G.711 µ-law and A-law compression of 16-bit samples, to the nearest code.
///
/// The segment comes from the magnitude's highest bit and the mantissa from the next four bits:
/// that is the standard's decision rule, and decoders expand to the middle of each interval.
/// Just above a segment boundary, though, the top code of the segment below (whose interval is
/// half as wide) can be nearer; both candidates are compared so the decode is always the
/// nearest one. (FFmpeg's encoders pick the nearest code too, from 14-bit input.)
enum G711Encoder {
    /// The magnitude µ-law code `m` (segment << 4 | mantissa) decodes to: the decoder's own table
    /// at the positive byte for `m` (bits stored inverted).
    @inline(__always)
    static func muLawValue(_ m: Int32) -> Int32 {
        Int32(G711.muLawTable[Int(~UInt8(m))])
    }

    /// The magnitude A-law code `m` decodes to: the decoder's table at the positive byte (sign
    /// bit set, even bits inverted).
    @inline(__always)
    static func aLawValue(_ m: Int32) -> Int32 {
        Int32(G711.aLawTable[Int((0x80 | UInt8(m)) ^ 0x55)])
    }

    /// Prefers the code below when its value is strictly nearer.
    @inline(__always)
    static func nearest(_ m: Int32, to magnitude: Int32, value: (Int32) -> Int32) -> Int32 {
        guard m > 0 else { return m }
        return abs(value(m - 1) - magnitude) < abs(value(m) - magnitude) ? m - 1 : m
    }

    /// µ-law: magnitude + 0x84 (the bias that lines the segments up), clipped to 32635; the
    /// stored byte is sign, segment and mantissa, all bits inverted.
    @inline(__always)
    static func muLaw(_ sample: Int16) -> UInt8 {
        let magnitude = min(abs(Int32(sample)), 32635)
        let biased = magnitude + 0x84
        let segment = Int32(31 - UInt32(biased).leadingZeroBitCount) - 7  // 0...7
        let m = nearest(segment << 4 | ((biased >> (segment + 3)) & 0x0F), to: magnitude, value: muLawValue)
        let sign: UInt8 = sample < 0 ? 0x80 : 0
        return ~(sign | UInt8(m))
    }

    /// A-law: segment 0 covers 0 ..< 256 linearly; segment s above covers 2^(s+7) ..< 2^(s+8).
    /// Positive samples carry the sign bit; even bits are inverted (XOR 0x55).
    @inline(__always)
    static func aLaw(_ sample: Int16) -> UInt8 {
        let magnitude = min(abs(Int32(sample)), 32767)
        var m: Int32
        if magnitude < 256 {
            m = magnitude >> 4
        } else {
            let segment = Int32(31 - UInt32(magnitude).leadingZeroBitCount) - 7  // 1...7
            m = segment << 4 | ((magnitude >> (segment + 3)) & 0x0F)
        }
        m = nearest(m, to: magnitude, value: aLawValue)
        let sign: UInt8 = sample >= 0 ? 0x80 : 0
        return (sign | UInt8(m)) ^ 0x55
    }

    static func encode(muLaw: Bool, _ samples: UnsafePointer<Float>, count: Int, into out: UnsafeMutableRawPointer) {
        for i in 0..<count {
            let value = Quantize.int16(samples[i])
            out.storeBytes(of: muLaw ? self.muLaw(value) : aLaw(value), toByteOffset: i, as: UInt8.self)
        }
    }
}
