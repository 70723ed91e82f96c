import NotiPlayDecoder

/// Linear PCM: integers of 8 to 32 bits and IEEE floats of 32 or 64, either byte order.
enum LinearPCMEncoder {
    /// Encodes `count` interleaved samples into `out` (count × bytesPerSample bytes).
    static func encode(_ format: LinearPCMFormat, _ samples: UnsafePointer<Float>, count: Int, into out: UnsafeMutableRawPointer) {
        let big = format.isBigEndian
        switch (format.bitsPerSample, format.isFloat) {
        case (8, _):
            // WAV's 8-bit PCM is unsigned: silence is 128.
            let offset: UInt8 = format.isSigned ? 0 : 128
            for i in 0..<count {
                let value = UInt8(bitPattern: Int8(Quantize.integer(samples[i], bits: 8)))
                out.storeBytes(of: value &+ offset, toByteOffset: i, as: UInt8.self)
            }
        case (16, _):
            for i in 0..<count {
                let value = UInt16(bitPattern: Quantize.int16(samples[i]))
                out.storeBytes(of: big ? value.bigEndian : value.littleEndian, toByteOffset: 2 * i, as: UInt16.self)
            }
        case (24, _):
            let (hi, mid, lo) = big ? (0, 1, 2) : (2, 1, 0)
            for i in 0..<count {
                let value = UInt32(bitPattern: Quantize.integer(samples[i], bits: 24))
                let p = out + 3 * i
                p.storeBytes(of: UInt8(truncatingIfNeeded: value >> 16), toByteOffset: hi, as: UInt8.self)
                p.storeBytes(of: UInt8(truncatingIfNeeded: value >> 8), toByteOffset: mid, as: UInt8.self)
                p.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: lo, as: UInt8.self)
            }
        case (32, false):
            for i in 0..<count {
                let value = UInt32(bitPattern: Quantize.integer(samples[i], bits: 32))
                out.storeBytes(of: big ? value.bigEndian : value.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
            }
        case (32, true):
            for i in 0..<count {
                let value = samples[i].bitPattern
                out.storeBytes(of: big ? value.bigEndian : value.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
            }
        case (64, true):
            for i in 0..<count {
                let value = Double(samples[i]).bitPattern
                out.storeBytes(of: big ? value.bigEndian : value.littleEndian, toByteOffset: 8 * i, as: UInt64.self)
            }
        default:
            preconditionFailure("SoundFormat.validate() admits no other PCM format")
        }
    }
}
