/// Microsoft/DVI IMA ADPCM blocks for WAV (format tag 0x0011).
///
/// Per channel a 4-byte header (little-endian Int16 first sample, which is also the predictor
/// the block starts from; step index; a zero byte), then 4-byte groups per channel in turn, each
/// 8 samples, low nibble first.
struct IMAADPCMEncoder: PacketEncoder {
    let channelCount: Int
    let bytesPerPacket: Int
    let framesPerPacket: Int
    private var channels: [IMAEncoderChannel]

    init(sampleRate: Double, channelCount: Int) {
        self.channelCount = channelCount
        bytesPerPacket = Self.blockAlign(sampleRate: sampleRate, channelCount: channelCount)
        framesPerPacket = Self.framesPerBlock(blockAlign: bytesPerPacket, channelCount: channelCount)
        channels = Array(repeating: IMAEncoderChannel(), count: channelCount)
    }

    /// Microsoft's ACM IMA ADPCM codec rule: 256 bytes per channel per 11.025 kHz, so a block
    /// lasts about 23 ms at any common rate (1024 bytes for 44.1 kHz mono, 2048 for stereo, as
    /// libsndfile writes stereo; ffmpeg always writes 1024, sox 256 per channel). Bounded so the
    /// 16-bit block align field holds it.
    static func blockAlign(sampleRate: Double, channelCount: Int) -> Int {
        let perChannel = 256 * min(max(1, Int(sampleRate / 11025)), 8)
        let limit = 65535 / (256 * channelCount) * 256
        return channelCount * min(perChannel, max(256, limit))
    }

    /// The header sample plus 8 per 4-byte group of every channel.
    static func framesPerBlock(blockAlign: Int, channelCount: Int) -> Int {
        (blockAlign - 4 * channelCount) * 2 / channelCount + 1
    }

    mutating func encode(_ samples: UnsafePointer<Float>, packetCount: Int, into out: UnsafeMutableRawPointer) {
        for block in 0..<packetCount {
            encodeBlock(samples + block * framesPerPacket * channelCount, into: out + block * bytesPerPacket)
        }
    }

    private mutating func encodeBlock(_ samples: UnsafePointer<Float>, into out: UnsafeMutableRawPointer) {
        let groups = (framesPerPacket - 1) / 8
        let groupStride = 4 * channelCount
        for c in 0..<channelCount {
            // The block's first sample goes out verbatim and becomes the predictor, so every
            // block starts exact; the step index carries over from the previous block.
            let first = Quantize.int16(samples[c])
            channels[c].predictor = Int32(first)
            let header = out + 4 * c
            header.storeBytes(of: UInt16(bitPattern: first).littleEndian, as: UInt16.self)
            header.storeBytes(of: UInt8(channels[c].stepIndex), toByteOffset: 2, as: UInt8.self)
            header.storeBytes(of: 0, toByteOffset: 3, as: UInt8.self)

            var frame = 1
            for g in 0..<groups {
                let group = out + groupStride * (g + 1) + 4 * c
                for b in 0..<4 {
                    let low = channels[c].encode(Quantize.int16(samples[frame * channelCount + c]))
                    let high = channels[c].encode(Quantize.int16(samples[(frame + 1) * channelCount + c]))
                    group.storeBytes(of: low | high << 4, toByteOffset: b, as: UInt8.self)
                    frame += 2
                }
            }
        }
    }
}
