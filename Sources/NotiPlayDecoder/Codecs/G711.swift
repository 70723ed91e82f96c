/// ITU-T G.711 µ-law and A-law: each byte expands through a 256-entry table to a 16-bit sample.
package enum G711 {
    /// µ-law: bits are stored inverted; the magnitude is (mantissa·2 + 33)·2^exponent − 33, scaled
    /// to 16 bits (peak ±32124).
    package static let muLawTable: [Int16] = (0...255).map { code in
        let u = ~UInt8(code)
        let magnitude = ((Int(u & 0x0F) << 3) + 0x84) << Int((u & 0x70) >> 4)
        return Int16(u & 0x80 != 0 ? 0x84 - magnitude : magnitude - 0x84)
    }

    /// A-law: even bits are stored inverted (XOR 0x55); segment 0 is linear (peak ±32256).
    package static let aLawTable: [Int16] = (0...255).map { code in
        let a = UInt8(code) ^ 0x55
        var magnitude = Int(a & 0x0F) << 4
        let segment = Int((a & 0x70) >> 4)
        switch segment {
        case 0: magnitude += 8
        case 1: magnitude += 0x108
        default: magnitude = (magnitude + 0x108) << (segment - 1)
        }
        return Int16(a & 0x80 != 0 ? magnitude : -magnitude)
    }

    /// The same tables already converted to Float (exact: x / 32768), so decoding to Float is
    /// one table load per byte, with no integer-to-float conversion in the loop.
    static let muLawFloatTable: [Float] = muLawTable.map { Float(sample16: $0) }
    static let aLawFloatTable: [Float] = aLawTable.map { Float(sample16: $0) }

    enum Law { case mu, a }

    @inline(__always)
    static func decode<S: DecodedSample>(
        _ law: Law, _ bytes: UnsafeRawBufferPointer, sampleCount: Int, into out: UnsafeMutablePointer<S>
    ) {
        // The type tests fold away in each specialization: a table of the output type itself.
        if S.self == Float.self {
            let table = law == .mu ? muLawFloatTable : aLawFloatTable
            table.withUnsafeBufferPointer { table in
                lookUp(table.baseAddress!, bytes, sampleCount: sampleCount, into: UnsafeMutableRawPointer(out).assumingMemoryBound(to: Float.self))
            }
        } else {
            let table = law == .mu ? muLawTable : aLawTable
            table.withUnsafeBufferPointer { table in
                if S.self == Int16.self {
                    lookUp(table.baseAddress!, bytes, sampleCount: sampleCount, into: UnsafeMutableRawPointer(out).assumingMemoryBound(to: Int16.self))
                } else {
                    for i in 0..<sampleCount { out[i] = S(sample16: table[Int(bytes[i])]) }
                }
            }
        }
    }

    /// out[i] = table[bytes[i]], eight bytes per 64-bit load: one load feeds eight lookups.
    @inline(__always)
    static func lookUp<T>(
        _ table: UnsafePointer<T>, _ bytes: UnsafeRawBufferPointer, sampleCount: Int, into out: UnsafeMutablePointer<T>
    ) {
        let base = bytes.baseAddress!
        var i = 0
        while i &+ 8 <= sampleCount {
            var word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            for k in 0..<8 {
                out[i &+ k] = table[Int(word & 0xFF)]
                word >>= 8
            }
            i &+= 8
        }
        while i < sampleCount {
            out[i] = table[Int(base.load(fromByteOffset: i, as: UInt8.self))]
            i &+= 1
        }
    }
}
