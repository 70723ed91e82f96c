/// The codec a stream needs, chosen once from its description. An enum rather than a protocol
/// existential so each decode loop is specialized for its output type.
enum PacketCodec {
    case linearPCM(LinearPCMFormat)
    /// 24-bit samples in 32-bit words, each word checked against the layout (``Word24``).
    case word24(bigEndian: Bool, Alignment24)
    case g711(G711.Law)
    case imaADPCM
    case appleIMA4

    init(_ encoding: Encoding) {
        switch encoding {
        case .linearPCM(let format):
            if let alignment = format.alignment24 {
                self = .word24(bigEndian: format.isBigEndian, alignment)
            } else {
                self = .linearPCM(format)
            }
        case .muLaw: self = .g711(.mu)
        case .aLaw: self = .g711(.a)
        case .imaADPCM: self = .imaADPCM
        case .appleIMA4: self = .appleIMA4
        }
    }

    /// What one decode call wrote.
    struct Decoded {
        var frames: Int
        /// Float samples that were NaN or infinite and were written as silence.
        var silencedSamples = 0
        /// The first frame (counted from the first of these bytes) whose sample contradicts
        /// the layout of the stream (``Word24``): the decoding stopped there.
        var contradictingFrame: Int? = nil
    }

    /// The error for a frame whose sample contradicts the stream's layout (``Decoded/contradictingFrame``).
    func contradiction(atFrame frame: Int) -> DecodingError {
        guard case .word24(_, let alignment) = self else { return .malformed("frame \(frame) cannot be decoded") }
        return Word24.contradiction(atFrame: frame, alignment)
    }

    /// Decodes the packets in `bytes` into interleaved samples: all whole packets, and for WAV IMA
    /// ADPCM also a short final block.
    @inline(__always)
    func decode<S: DecodedSample>(
        _ bytes: UnsafeRawBufferPointer, layout: PacketLayout, channelCount: Int, into out: UnsafeMutablePointer<S>
    ) -> Decoded {
        let wholePackets = bytes.count / layout.bytesPerPacket
        switch self {
        case .linearPCM(let format):
            let silenced = LinearPCM.decode(format, bytes, sampleCount: wholePackets * channelCount, into: out)
            return Decoded(frames: wholePackets, silencedSamples: silenced)
        case .word24(let bigEndian, let alignment):
            if let misfit = Word24.decode(bytes, sampleCount: wholePackets * channelCount, bigEndian: bigEndian, alignment: alignment, into: out) {
                return Decoded(frames: misfit / channelCount, contradictingFrame: misfit / channelCount)
            }
            return Decoded(frames: wholePackets)
        case .g711(let law):
            G711.decode(law, bytes, sampleCount: wholePackets * channelCount, into: out)
            return Decoded(frames: wholePackets)
        case .appleIMA4:
            AppleIMA4.decode(bytes, packetCount: wholePackets, channelCount: channelCount, into: out)
            return Decoded(frames: wholePackets * layout.framesPerPacket)
        case .imaADPCM:
            var frames = 0
            var offset = 0
            while offset < bytes.count {
                let blockBytes = min(layout.bytesPerPacket, bytes.count - offset)
                let decoded = IMAADPCM.decodeBlock(
                    bytes.baseAddress! + offset, byteCount: blockBytes, channelCount: channelCount,
                    into: out + frames * channelCount)
                if decoded == 0 { break }
                frames += decoded
                offset += blockBytes
            }
            return Decoded(frames: frames)
        }
    }
}
