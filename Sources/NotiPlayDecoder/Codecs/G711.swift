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

    @inline(__always)
    static func decode<S: DecodedSample>(
        table: [Int16], _ bytes: UnsafeRawBufferPointer, sampleCount: Int, into out: UnsafeMutablePointer<S>
    ) {
        table.withUnsafeBufferPointer { table in
            for i in 0..<sampleCount {
                out[i] = S(sample16: table[Int(bytes[i])])
            }
        }
    }
}
