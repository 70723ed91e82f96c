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
    @inline(__always)
    static func decode<S: DecodedSample>(
        _ bytes: UnsafeRawBufferPointer, packetCount: Int, channelCount: Int, into out: UnsafeMutablePointer<S>
    ) {
        let base = bytes.baseAddress!
        IMAChannelState.withTables { steps, adjust in
            for packet in 0..<packetCount {
                let frameOut = out + packet * framesPerPacket * channelCount
                for channel in 0..<channelCount {
                    let p = base + (packet * channelCount + channel) * bytesPerChannelPacket
                    let header = UInt16(bigEndian: p.loadUnaligned(as: UInt16.self))
                    var state = IMAChannelState(
                        predictor: Int32(Int16(bitPattern: header & 0xFF80)), stepIndex: Int32(header & 0x7F))
                    var o = frameOut + channel
                    for b in 2..<bytesPerChannelPacket {
                        let byte = p.load(fromByteOffset: b, as: UInt8.self)
                        o.pointee = S(sample16: state.expand(byte & 0x0F, steps: steps, adjust: adjust))
                        o += channelCount
                        o.pointee = S(sample16: state.expand(byte >> 4, steps: steps, adjust: adjust))
                        o += channelCount
                    }
                }
            }
        }
    }
}
