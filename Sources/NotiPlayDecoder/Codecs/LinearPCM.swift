/// Linear PCM: integers of 8 to 32 bits and IEEE floats of 32 or 64, either byte order.
enum LinearPCM {
    /// Decodes `sampleCount` interleaved samples from `bytes`.
    @inline(__always)
    static func decode<S: DecodedSample>(
        _ format: LinearPCMFormat, _ bytes: UnsafeRawBufferPointer, sampleCount: Int,
        into out: UnsafeMutablePointer<S>
    ) {
        let base = bytes.baseAddress!
        let big = format.isBigEndian
        switch (format.bitsPerSample, format.isFloat) {
        case (8, _):
            // One byte: WAV's 8-bit is unsigned (128 is silence), everything else signed.
            let offset: UInt8 = format.isSigned ? 0 : 128
            for i in 0..<sampleCount {
                let value = Int8(bitPattern: base.load(fromByteOffset: i, as: UInt8.self) &- offset)
                out[i] = S(sample16: Int16(value) << 8)
            }
        case (16, _):
            // The byte-order test stays outside the loop so each loop is a plain load and convert.
            if big {
                for i in 0..<sampleCount {
                    out[i] = S(sample16: Int16(bitPattern: UInt16(bigEndian: base.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))))
                }
            } else {
                for i in 0..<sampleCount {
                    out[i] = S(sample16: Int16(bitPattern: UInt16(littleEndian: base.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))))
                }
            }
        case (24, _):
            // Assemble the three bytes in the top of a 32-bit word: full scale, sign included.
            let (hi, mid, lo) = big ? (0, 1, 2) : (2, 1, 0)
            for i in 0..<sampleCount {
                let p = base + 3 * i
                let word = UInt32(p.load(fromByteOffset: hi, as: UInt8.self)) << 24
                    | UInt32(p.load(fromByteOffset: mid, as: UInt8.self)) << 16
                    | UInt32(p.load(fromByteOffset: lo, as: UInt8.self)) << 8
                out[i] = S(sample32: Int32(bitPattern: word))
            }
        case (32, false):
            for i in 0..<sampleCount {
                let raw = base.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)
                out[i] = S(sample32: Int32(bitPattern: big ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)))
            }
        case (32, true):
            for i in 0..<sampleCount {
                let raw = base.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)
                out[i] = S(sampleFloat: Float(bitPattern: big ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)))
            }
        case (64, true):
            for i in 0..<sampleCount {
                let raw = base.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)
                out[i] = S(sampleDouble: Double(bitPattern: big ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)))
            }
        default:
            preconditionFailure("LinearPCMFormat was validated by the container parser")
        }
    }
}
