/// Apple IMA4 (`ima4` in AIFF-C and CAF): per channel, 34-byte packets of 64 frames; a frame's
/// packets for each channel follow one another.
///
/// A packet starts with a big-endian 16-bit header: predictor in the top 9 bits (value & 0xFF80),
/// step index in the low 7 (clamped to 88). The header predictor is state, not an output sample.
/// Then 32 bytes, 64 nibbles, low nibble first.
enum AppleIMA4 {
    static let bytesPerChannelPacket = 34
    static let framesPerPacket = 64

    /// Decodes `packetCount` whole multi-channel packets into interleaved samples.
    ///
    /// Every 34-byte channel packet starts from its own header, so all of them are independent.
    /// Numbered in file order (packet-major, then channel), channel packet `s` belongs to channel
    /// `s % channelCount` of frame group `s / channelCount`. They are decoded four at a time in
    /// one loop: each has a dependency chain (predictor and step index, several cycles of latency
    /// per sample), and four independent chains in flight keep the CPU's units busy where one
    /// would leave them waiting. Stereo takes two frame groups' left and right; mono four
    /// consecutive packets. The remainder goes one at a time.
    @inline(__always)
    static func decode<S: DecodedSample>(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, channelCount: Int, into out: UnsafeMutablePointer<S>
    ) {
        // Decoding to Float keeps the predictor in Float (see IMAFloatLane); the test folds away.
        if S.self == Float.self {
            decode(IMAFloatLane.self, bytes, packetCount: packetCount, channelCount: channelCount, into: out)
        } else {
            decode(IMAIntLane.self, bytes, packetCount: packetCount, channelCount: channelCount, into: out)
        }
    }

    @inline(__always)
    static func decode<L: IMALane, S: DecodedSample>(
        _: L.Type, _ bytes: UnsafeRawBufferPointer, packetCount: Int, channelCount: Int, into out: UnsafeMutablePointer<S>
    ) {
        let base = bytes.baseAddress!
        let total = packetCount * channelCount
        IMATables.with { tables in
            var s = 0
            while s + 4 <= total {
                decodeFour(L.self, base + s * bytesPerChannelPacket, out, firstPacket: s, channelCount: channelCount, tables)
                s += 4
            }
            while s < total {
                decodeOne(L.self, base + s * bytesPerChannelPacket, into: output(out, s, channelCount), stride: channelCount, tables)
                s += 1
            }
        }
    }

    /// Where channel packet `s` writes its first sample.
    @inline(__always)
    static func output<S>(_ out: UnsafeMutablePointer<S>, _ s: Int, _ channelCount: Int) -> UnsafeMutablePointer<S> {
        let (group, channel) = s.quotientAndRemainder(dividingBy: channelCount)
        return out + group * framesPerPacket * channelCount + channel
    }

    /// The header: predictor in the top 9 bits, step index in the low 7.
    @inline(__always)
    static func lane<L: IMALane>(_ packet: UnsafeRawPointer) -> L {
        let header = UInt16(bigEndian: packet.loadUnaligned(as: UInt16.self))
        return L(predictor: Int16(bitPattern: header & 0xFF80), stepIndex: Int32(header & 0x7F))
    }

    /// Nibbles 16·word ..< 16·word + 16 of a packet as one little-endian 64-bit word: low nibble
    /// first is bit order, so each sample takes the low four bits and shifts.
    @inline(__always)
    static func nibbles(_ packet: UnsafeRawPointer, _ word: Int) -> UInt64 {
        UInt64(littleEndian: packet.loadUnaligned(fromByteOffset: 2 &+ 8 &* word, as: UInt64.self))
    }

    /// Decodes channel packets `firstPacket ..< firstPacket + 4`, which start at `packets`.
    @inline(__always)
    static func decodeFour<L: IMALane, S: DecodedSample>(
        _: L.Type, _ packets: UnsafeRawPointer, _ out: UnsafeMutablePointer<S>, firstPacket s: Int,
        channelCount: Int, _ tables: IMATables
    ) {
        let (pA, pB, pC, pD) = (packets, packets + 34, packets + 68, packets + 102)
        let (oA, oB, oC, oD) = (output(out, s, channelCount), output(out, s + 1, channelCount),
                                output(out, s + 2, channelCount), output(out, s + 3, channelCount))
        var (a, b, c, d): (L, L, L, L) = (lane(pA), lane(pB), lane(pC), lane(pD))
        var o = 0
        for word in 0..<4 {
            var (bitsA, bitsB, bitsC, bitsD) = (nibbles(pA, word), nibbles(pB, word), nibbles(pC, word), nibbles(pD, word))
            for _ in 0..<16 {
                a.expand(UInt32(truncatingIfNeeded: bitsA) & 15, tables)
                b.expand(UInt32(truncatingIfNeeded: bitsB) & 15, tables)
                c.expand(UInt32(truncatingIfNeeded: bitsC) & 15, tables)
                d.expand(UInt32(truncatingIfNeeded: bitsD) & 15, tables)
                oA[o] = a.sample()
                oB[o] = b.sample()
                oC[o] = c.sample()
                oD[o] = d.sample()
                bitsA >>= 4; bitsB >>= 4; bitsC >>= 4; bitsD >>= 4
                o &+= channelCount
            }
        }
    }

    @inline(__always)
    static func decodeOne<L: IMALane, S: DecodedSample>(
        _: L.Type, _ packet: UnsafeRawPointer, into out: UnsafeMutablePointer<S>, stride: Int, _ tables: IMATables
    ) {
        var a: L = lane(packet)
        var o = 0
        for word in 0..<4 {
            var bits = nibbles(packet, word)
            for _ in 0..<16 {
                a.expand(UInt32(truncatingIfNeeded: bits) & 15, tables)
                out[o] = a.sample()
                bits >>= 4
                o &+= stride
            }
        }
    }
}
