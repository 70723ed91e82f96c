/// Linear PCM: integers of 8 to 32 bits and IEEE floats of 32 or 64, either byte order.
///
/// Float samples that are NaN or infinite (or a 64-bit value beyond Float's range) decode as 0,
/// silence: nothing downstream (gain, mixing, conversion to the device's format) could make
/// sense of them, and one NaN in a mix silences or deafens every voice in it.
enum LinearPCM {
    /// Decodes `sampleCount` interleaved samples from `bytes`. Returns how many float samples
    /// were not finite and became silence (0 for integer formats).
    @inline(__always)
    static func decode<S: DecodedSample>(
        _ format: LinearPCMFormat, _ bytes: UnsafeRawBufferPointer, sampleCount: Int,
        into out: UnsafeMutablePointer<S>
    ) -> Int {
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
            if S.self == Float.self {
                sixteenBitToFloat(base, count: sampleCount, bigEndian: big, into: UnsafeMutableRawPointer(out).assumingMemoryBound(to: Float.self))
                return 0
            }
            if S.self == Int16.self && !big {
                // Little-endian 16-bit into Int16 on a little-endian machine: the bytes are the samples.
                UnsafeMutableRawPointer(out).copyMemory(from: base, byteCount: 2 * sampleCount)
                return 0
            }
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
            // One unaligned 4-byte load per sample instead of three byte loads; it reads one byte
            // past the sample, so the last sample takes the byte-wise path and never reads beyond
            // the buffer.
            let wordCount = max(sampleCount - 1, 0)
            if big {
                for i in 0..<wordCount {
                    let word = UInt32(bigEndian: base.loadUnaligned(fromByteOffset: 3 &* i, as: UInt32.self))
                    out[i] = S(sample32: Int32(bitPattern: word & 0xFFFF_FF00))
                }
            } else {
                for i in 0..<wordCount {
                    let word = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 3 &* i, as: UInt32.self))
                    out[i] = S(sample32: Int32(bitPattern: word << 8))
                }
            }
            let (hi, mid, lo) = big ? (0, 1, 2) : (2, 1, 0)
            for i in wordCount..<sampleCount {
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
        case (32, true) where S.self == Float.self:
            return float32ToFloat(base, count: sampleCount, bigEndian: big, into: UnsafeMutableRawPointer(out).assumingMemoryBound(to: Float.self))
        case (32, true):
            var silenced = 0
            for i in 0..<sampleCount {
                let raw = base.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)
                let value = Float(bitPattern: big ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
                if value.isFinite {
                    out[i] = S(sampleFloat: value)
                } else {
                    out[i] = S(sampleFloat: 0)
                    silenced &+= 1
                }
            }
            return silenced
        case (64, true):
            var silenced = 0
            for i in 0..<sampleCount {
                let raw = base.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)
                let value = Double(bitPattern: big ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw))
                // Finite as a Float too: 1e300 would become infinity on the way to Float.
                if Float(value).isFinite {
                    out[i] = S(sampleDouble: value)
                } else {
                    out[i] = S(sampleDouble: 0)
                    silenced &+= 1
                }
            }
            return silenced
        default:
            preconditionFailure("LinearPCMFormat was validated by the container parser")
        }
        return 0
    }

    /// 32-bit float samples to Float: the bytes copied (little-endian) or byte-swapped, then
    /// one read-only pass over the result, eight lanes at a time, that finds NaN and infinity
    /// (a float is one exactly when its exponent bits are all ones) and writes +0 there.
    /// Finite samples keep their bits. Returns how many were silenced.
    @inline(__always)
    static func float32ToFloat(_ base: UnsafeRawPointer, count: Int, bigEndian: Bool, into out: UnsafeMutablePointer<Float>) -> Int {
        if bigEndian {
            for i in 0..<count {
                out[i] = Float(bitPattern: UInt32(bigEndian: base.loadUnaligned(fromByteOffset: 4 &* i, as: UInt32.self)))
            }
        } else {
            UnsafeMutableRawPointer(out).copyMemory(from: base, byteCount: 4 &* count)
        }
        return silenceNonFinite(out, count: count)
    }

    /// Writes +0 over every NaN and infinity in `samples`; returns how many there were. A float
    /// is one exactly when its exponent bits are all ones: one vector compare per 8 samples.
    @inline(__always)
    static func silenceNonFinite(_ samples: UnsafeMutablePointer<Float>, count: Int) -> Int {
        let raw = UnsafeMutableRawPointer(samples)
        let exponent = SIMD8<UInt32>(repeating: 0x7F80_0000)
        var silenced = 0
        var i = 0
        while i &+ 8 <= count {
            let bits = raw.loadUnaligned(fromByteOffset: 4 &* i, as: SIMD8<UInt32>.self)
            let nonFinite = (bits & exponent) .== exponent
            if any(nonFinite) {  // rare: only damaged or hostile files get here
                silenced &+= Int(SIMD8<UInt32>(repeating: 0).replacing(with: 1, where: nonFinite).wrappedSum())
                raw.storeBytes(of: bits.replacing(with: 0, where: nonFinite), toByteOffset: 4 &* i, as: SIMD8<UInt32>.self)
            }
            i &+= 8
        }
        while i < count {
            if !samples[i].isFinite {
                samples[i] = 0
                silenced &+= 1
            }
            i &+= 1
        }
        return silenced
    }

    /// 16-bit samples to Float with SIMD vectors: an unaligned load, a byte swap for big-endian
    /// data (two shifts and an or on the whole vector), a widening conversion and a multiply by
    /// 2^-15 (exact, so bit-identical to the scalar form).
    ///
    /// Little-endian data goes four lanes at a time: widening the high half of an 8-lane vector
    /// made the compiler interleave into a register left over from the previous round (punpckhwd
    /// into a register it treats as undefined), a false dependency that chained every round to
    /// the last and halved the speed. Big-endian data keeps eight lanes: the swap writes a fresh
    /// register first, which breaks that chain, and one swap serves eight samples.
    @inline(__always)
    static func sixteenBitToFloat(_ base: UnsafeRawPointer, count: Int, bigEndian: Bool, into out: UnsafeMutablePointer<Float>) {
        let target = UnsafeMutableRawPointer(out)
        var i = 0
        if bigEndian {
            let scale = SIMD8<Float>(repeating: 1.0 / 32768.0)
            while i &+ 8 <= count {
                let raw = base.loadUnaligned(fromByteOffset: 2 &* i, as: SIMD8<UInt16>.self)
                let swapped = (raw &<< 8) | (raw &>> 8)
                let wide = SIMD8<Int32>(truncatingIfNeeded: SIMD8<Int16>(truncatingIfNeeded: swapped))
                target.storeBytes(of: SIMD8<Float>(wide) * scale, toByteOffset: 4 &* i, as: SIMD8<Float>.self)
                i &+= 8
            }
        } else {
            let scale = SIMD4<Float>(repeating: 1.0 / 32768.0)
            @inline(__always) func convert(_ i: Int) {
                let raw = base.loadUnaligned(fromByteOffset: 2 &* i, as: SIMD4<Int16>.self)
                target.storeBytes(of: SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: raw)) * scale, toByteOffset: 4 &* i, as: SIMD4<Float>.self)
            }
            // Four vectors a round: fewer loop branches, more conversions in flight.
            while i &+ 16 <= count {
                convert(i); convert(i &+ 4); convert(i &+ 8); convert(i &+ 12)
                i &+= 16
            }
            while i &+ 4 <= count {
                convert(i)
                i &+= 4
            }
        }
        while i < count {
            let raw = base.loadUnaligned(fromByteOffset: 2 &* i, as: UInt16.self)
            out[i] = Float(sample16: Int16(bitPattern: bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)))
            i &+= 1
        }
    }
}
