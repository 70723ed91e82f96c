import NotiPlayDecoder

/// What a writer produces: container, encoding, rate and channels.
public struct SoundFormat: Sendable, Hashable {
    public var container: Container
    public var encoding: Encoding
    public var sampleRate: Double
    public var channelCount: Int

    public init(container: Container, encoding: Encoding, sampleRate: Double, channelCount: Int) {
        self.container = container
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// The containers noti-play writes (RIFX and RF64 are read only).
    public static let writableContainers: [Container] = [.wave, .aiff, .aifc, .caf]

    /// Throws the one-line reason when this cannot be written; the decoder's limits apply, so
    /// everything written can be read back.
    public func validate() throws(EncodingError) {
        guard sampleRate.isFinite, sampleRate >= 1, sampleRate <= StreamDescription.maximumSampleRate else {
            throw .unsupported("sample rate \(sampleRate) Hz is out of range (1 to \(Int(StreamDescription.maximumSampleRate)) Hz)")
        }
        guard (1...StreamDescription.maximumChannelCount).contains(channelCount) else {
            throw .unsupported("channel count \(channelCount) is out of range (1 to \(StreamDescription.maximumChannelCount))")
        }
        if let reason = Self.refusal(encoding, in: container) { throw .unsupported(reason) }
        if container == .wave && sampleRate != sampleRate.rounded() {
            throw .unsupported("WAVE needs a whole-number sample rate, not \(sampleRate) Hz; use -f caff")
        }
    }

    /// Why `container` cannot hold `encoding`, or nil when it can.
    public static func refusal(_ encoding: Encoding, in container: Container) -> String? {
        let reason: String?
        switch container {
        case .wave: reason = WAVWriter.refusal(encoding)
        case .aiff: reason = AIFFWriter.refusal(encoding, compressed: false)
        case .aifc: reason = AIFFWriter.refusal(encoding, compressed: true)
        case .caf: reason = CAFWriter.refusal(encoding)
        case .rifx, .rf64: return "noti-play reads \(container.displayName) but writes plain RIFF WAVE only"
        }
        guard let reason else { return nil }
        // Point to the containers that do hold it.
        let others = writableContainers.filter { $0 != container && holds($0, encoding) }
        guard !others.isEmpty else { return reason }
        let flags = others.map { "-f " + ($0 == .caf ? "caff" : $0.rawValue) }.joined(separator: " or ")
        return reason + (reason.contains("; use ") ? ", or " : "; use ") + flags + " for \(encoding.afconvertName)"
    }

    static func holds(_ container: Container, _ encoding: Encoding) -> Bool {
        switch container {
        case .wave: WAVWriter.refusal(encoding) == nil
        case .aiff: AIFFWriter.refusal(encoding, compressed: false) == nil
        case .aifc: AIFFWriter.refusal(encoding, compressed: true) == nil
        case .caf: CAFWriter.refusal(encoding) == nil
        case .rifx, .rf64: false
        }
    }

    /// The encoding to write when the user names none: the source's own when `container` holds
    /// it; else the same kind of PCM in the container's byte order (no precision is lost); else
    /// 16-bit integer PCM in the container's byte order.
    public static func closestEncoding(to source: Encoding, in container: Container) -> Encoding {
        if holds(container, source) { return source }
        let bigEndian = container != .wave
        if case .linearPCM(var format) = source {
            format.isBigEndian = bigEndian
            format.isSigned = !(container == .wave && format.bitsPerSample == 8)
            if holds(container, .linearPCM(format)) { return .linearPCM(format) }
        }
        return .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: bigEndian))
    }

    /// Bytes of one packet: a frame for PCM and G.711, a block for IMA ADPCM, all channels'
    /// 34-byte packets for IMA4.
    public var bytesPerPacket: Int {
        switch encoding {
        case .linearPCM(let format): format.bytesPerSample * channelCount
        case .muLaw, .aLaw: channelCount
        case .imaADPCM: IMAADPCMEncoder.blockAlign(sampleRate: sampleRate, channelCount: channelCount)
        case .appleIMA4: AppleIMA4Encoder.bytesPerChannelPacket * channelCount
        }
    }

    /// Frames one packet holds.
    public var framesPerPacket: Int {
        switch encoding {
        case .linearPCM, .muLaw, .aLaw: 1
        case .imaADPCM: IMAADPCMEncoder.framesPerBlock(blockAlign: bytesPerPacket, channelCount: channelCount)
        case .appleIMA4: AppleIMA4Encoder.framesPerPacket
        }
    }
}
