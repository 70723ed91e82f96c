/// Microsoft/DVI IMA ADPCM in WAV (format tag 0x0011).
///
/// A block holds, per channel, a 4-byte header (little-endian Int16 predictor, which is also the
/// block's first sample; step index; a reserved byte), then 4-byte groups per channel in turn,
/// each 8 samples, low nibble first. The last block of a file may be short.
enum IMAADPCM {
    /// Frames in a block of `byteCount` bytes: the header sample plus 8 per whole group.
    /// A block too short for its headers holds none.
    static func frames(inBlockOf byteCount: Int, channelCount: Int) -> Int {
        let headerBytes = 4 * channelCount
        guard byteCount >= headerBytes else { return 0 }
        return 1 + (byteCount - headerBytes) / headerBytes * 8
    }

    /// Decodes one block of `byteCount` bytes (whole or short) into interleaved samples.
    /// Returns the frames written.
    ///
    /// Channels are decoded two at a time in one loop (left with right in stereo): their
    /// dependency chains are independent, so the CPU overlaps them. An odd last channel goes alone.
    @inline(__always)
    static func decodeBlock<S: DecodedSample>(
        _ block: UnsafeRawPointer, byteCount: Int, channelCount: Int, into out: UnsafeMutablePointer<S>
    ) -> Int {
        let frameCount = frames(inBlockOf: byteCount, channelCount: channelCount)
        guard frameCount > 0 else { return 0 }
        let groups = (frameCount - 1) / 8
        // Decoding to Float keeps the predictor in Float (see IMAFloatLane); the test folds away.
        if S.self == Float.self {
            decodeChannels(IMAFloatLane.self, block, groups: groups, channelCount: channelCount, into: out)
        } else {
            decodeChannels(IMAIntLane.self, block, groups: groups, channelCount: channelCount, into: out)
        }
        return frameCount
    }

    @inline(__always)
    static func decodeChannels<L: IMALane, S: DecodedSample>(
        _: L.Type, _ block: UnsafeRawPointer, groups: Int, channelCount: Int, into out: UnsafeMutablePointer<S>
    ) {
        IMATables.with { tables in
            var channel = 0
            while channel + 1 < channelCount {
                decodeChannels(L.self, block, channel, pair: true, groups: groups, channelCount: channelCount, into: out, tables)
                channel += 2
            }
            if channel < channelCount {
                decodeChannels(L.self, block, channel, pair: false, groups: groups, channelCount: channelCount, into: out, tables)
            }
        }
    }

    /// Decodes channel `first` (and `first + 1` when `pair`) of a block: the header sample, then
    /// `groups` 4-byte groups of 8 nibbles, read as one little-endian word (low nibble first is
    /// bit order).
    @inline(__always)
    static func decodeChannels<L: IMALane, S: DecodedSample>(
        _: L.Type, _ block: UnsafeRawPointer, _ first: Int, pair: Bool, groups: Int, channelCount: Int,
        into out: UnsafeMutablePointer<S>, _ tables: IMATables
    ) {
        let second = pair ? first + 1 : first
        var a: L = header(block + 4 * first), b: L = header(block + 4 * second)
        out[first] = a.sample()
        if pair { out[second] = b.sample() }
        let groupStride = 4 * channelCount
        var bytes = block + groupStride + 4 * first
        var o = out + channelCount + first  // frame 1
        for _ in 0..<groups {
            var bitsA = UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self))
            var bitsB = pair ? UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) : 0
            for i in 0..<8 {
                a.expand(bitsA & 15, tables)
                o[i &* channelCount] = a.sample()
                if pair {
                    b.expand(bitsB & 15, tables)
                    o[i &* channelCount &+ 1] = b.sample()
                }
                bitsA >>= 4
                bitsB >>= 4
            }
            bytes += groupStride
            o += 8 * channelCount
        }
    }

    /// A channel's 4-byte header: little-endian Int16 predictor (the first sample), step index.
    @inline(__always)
    static func header<L: IMALane>(_ p: UnsafeRawPointer) -> L {
        let first = Int16(bitPattern: UInt16(littleEndian: p.loadUnaligned(as: UInt16.self)))
        return L(predictor: first, stepIndex: Int32(p.load(fromByteOffset: 2, as: UInt8.self)))
    }
}
