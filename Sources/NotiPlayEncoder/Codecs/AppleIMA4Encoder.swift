/// Apple IMA4 packets (AIFC and CAF `ima4`): per channel 34 bytes for 64 frames; the channels'
/// packets of the same 64 frames follow each other.
///
/// The packet header is big-endian: the predictor's top 9 bits and the 7-bit step index. The
/// header predictor is state, not an output sample, so the encoder carries on from the value
/// decoders start the packet with: its own predictor rounded to a multiple of 128.
///
/// FFmpeg's decoder differs from Apple's model, libsndfile and ours in one way: when a header's
/// step index equals its running one and the header predictor lies within 127 of its running
/// predictor, it keeps its running (untruncated) predictor. So whenever rounding moved the
/// predictor, the header's step index is nudged by one, which makes FFmpeg take the header too:
/// every decoder then produces the same samples, at the cost of a step 10 % off for a sample.
struct AppleIMA4Encoder: PacketEncoder {
    static let bytesPerChannelPacket = 34
    static let framesPerPacket = 64

    let channelCount: Int
    var bytesPerPacket: Int { Self.bytesPerChannelPacket * channelCount }
    var framesPerPacket: Int { Self.framesPerPacket }
    private var channels: [IMAEncoderChannel]

    init(channelCount: Int) {
        self.channelCount = channelCount
        channels = Array(repeating: IMAEncoderChannel(), count: channelCount)
    }

    mutating func encode(_ samples: UnsafePointer<Float>, packetCount: Int, into out: UnsafeMutableRawPointer) {
        for packet in 0..<packetCount {
            let frames = samples + packet * Self.framesPerPacket * channelCount
            for c in 0..<channelCount {
                let p = out + (packet * channelCount + c) * Self.bytesPerChannelPacket
                encodeChannelPacket(c, frames, into: p)
            }
        }
    }

    private mutating func encodeChannelPacket(_ c: Int, _ frames: UnsafePointer<Float>, into p: UnsafeMutableRawPointer) {
        // Nearest multiple of 128 (not plain truncation) halves the error the header introduces.
        let rounded = min((channels[c].predictor + 64) & ~0x7F, 32640)
        if rounded != channels[c].predictor {
            channels[c].stepIndex += channels[c].stepIndex > 0 ? -1 : 1
        }
        channels[c].predictor = rounded
        let header = UInt16(bitPattern: Int16(rounded)) | UInt16(channels[c].stepIndex)
        p.storeBytes(of: header.bigEndian, as: UInt16.self)
        for b in 0..<32 {
            let low = channels[c].encode(Quantize.int16(frames[(2 * b) * channelCount + c]))
            let high = channels[c].encode(Quantize.int16(frames[(2 * b + 1) * channelCount + c]))
            p.storeBytes(of: low | high << 4, toByteOffset: 2 + b, as: UInt8.self)
        }
    }
}
