/// A sample type the decoder writes: `Float` (full scale ±1.0) or `Int16`.
///
/// Every codec produces one of four source kinds; each output type converts them the way
/// libsndfile and FFmpeg do, so results compare sample for sample.
public protocol DecodedSample: Sendable {
    /// A 16-bit integer sample (also what IMA ADPCM, G.711 and 8-bit PCM expand to).
    init(sample16: Int16)
    /// A 32-bit integer sample at full scale; 24-bit samples arrive shifted left by 8.
    init(sample32: Int32)
    init(sampleFloat: Float)
    init(sampleDouble: Double)
}

extension Float: DecodedSample {
    // Division by a power of two is exact, so these are the FFmpeg/libsndfile values bit for bit.
    @inline(__always) public init(sample16: Int16) { self = Float(sample16) * (1.0 / 32768.0) }
    @inline(__always) public init(sample32: Int32) { self = Float(sample32) * (1.0 / 2147483648.0) }
    @inline(__always) public init(sampleFloat: Float) { self = sampleFloat }
    @inline(__always) public init(sampleDouble: Double) { self = Float(sampleDouble) }
}

extension Int16: DecodedSample {
    @inline(__always) public init(sample16: Int16) { self = sample16 }
    /// Truncates the low 16 bits, as libsndfile and FFmpeg do.
    @inline(__always) public init(sample32: Int32) { self = Int16(truncatingIfNeeded: sample32 >> 16) }
    /// Scales by 32768, rounds to nearest and clips: the inverse of `Float(sample16:)`.
    @inline(__always) public init(sampleFloat: Float) { self.init(sampleDouble: Double(sampleFloat)) }
    @inline(__always) public init(sampleDouble: Double) {
        let scaled = (sampleDouble * 32768.0).rounded(.toNearestOrEven)
        if scaled >= 32767 { self = .max } else if scaled <= -32768 { self = .min }
        else if scaled.isNaN { self = 0 } else { self = Int16(scaled) }
    }
}
