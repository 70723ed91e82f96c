import NotiPlayDecoder

/// Turns whole packets of interleaved Float frames into encoded bytes. IMA encoders carry
/// state from packet to packet; the others are stateless.
protocol PacketEncoder {
    var bytesPerPacket: Int { get }
    var framesPerPacket: Int { get }
    /// Encodes `packetCount` packets (packetCount × framesPerPacket frames) into
    /// packetCount × bytesPerPacket bytes.
    mutating func encode(_ samples: UnsafePointer<Float>, packetCount: Int, into out: UnsafeMutableRawPointer)
}

/// Linear PCM and G.711: a packet is one frame.
struct FrameEncoder: PacketEncoder {
    let encoding: Encoding
    let channelCount: Int
    let bytesPerPacket: Int
    var framesPerPacket: Int { 1 }

    mutating func encode(_ samples: UnsafePointer<Float>, packetCount: Int, into out: UnsafeMutableRawPointer) {
        let count = packetCount * channelCount
        switch encoding {
        case .linearPCM(let format): LinearPCMEncoder.encode(format, samples, count: count, into: out)
        case .muLaw: G711Encoder.encode(muLaw: true, samples, count: count, into: out)
        case .aLaw: G711Encoder.encode(muLaw: false, samples, count: count, into: out)
        case .imaADPCM, .appleIMA4: preconditionFailure("IMA has its own packet encoders")
        }
    }
}

extension SoundFormat {
    func makePacketEncoder() -> any PacketEncoder {
        switch encoding {
        case .imaADPCM: IMAADPCMEncoder(sampleRate: sampleRate, channelCount: channelCount)
        case .appleIMA4: AppleIMA4Encoder(channelCount: channelCount)
        case .linearPCM, .muLaw, .aLaw: FrameEncoder(encoding: encoding, channelCount: channelCount, bytesPerPacket: bytesPerPacket)
        }
    }
}
