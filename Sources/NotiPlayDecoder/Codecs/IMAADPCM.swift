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
    @inline(__always)
    static func decodeBlock<S: DecodedSample>(
        _ block: UnsafeRawPointer, byteCount: Int, channelCount: Int, into out: UnsafeMutablePointer<S>
    ) -> Int {
        let frameCount = frames(inBlockOf: byteCount, channelCount: channelCount)
        guard frameCount > 0 else { return 0 }
        let groups = (frameCount - 1) / 8
        let groupStride = 4 * channelCount
        IMAChannelState.withTables { steps, adjust in
            for channel in 0..<channelCount {
                let header = block + 4 * channel
                let first = Int16(bitPattern: UInt16(littleEndian: header.loadUnaligned(as: UInt16.self)))
                var state = IMAChannelState(predictor: Int32(first), stepIndex: Int32(header.load(fromByteOffset: 2, as: UInt8.self)))
                out[channel] = S(sample16: first)
                var o = out + channelCount + channel  // frame 1 of this channel
                var groupBytes = block + groupStride + 4 * channel
                for _ in 0..<groups {
                    for b in 0..<4 {
                        let byte = groupBytes.load(fromByteOffset: b, as: UInt8.self)
                        o.pointee = S(sample16: state.expand(byte & 0x0F, steps: steps, adjust: adjust))
                        o += channelCount
                        o.pointee = S(sample16: state.expand(byte >> 4, steps: steps, adjust: adjust))
                        o += channelCount
                    }
                    groupBytes += groupStride
                }
            }
        }
        return frameCount
    }
}
