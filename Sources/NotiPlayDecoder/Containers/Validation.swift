/// Checks every container applies to header values before they are used in any arithmetic.
enum Validate {
    static func sampleRate(_ rate: Double) throws(DecodingError) -> Double {
        guard rate.isFinite, rate >= 1, rate <= StreamDescription.maximumSampleRate else {
            throw .malformed("sample rate \(rate) Hz is not a usable rate (1 to \(Int(StreamDescription.maximumSampleRate)) Hz)")
        }
        return rate
    }

    static func channelCount(_ count: some BinaryInteger) throws(DecodingError) -> Int {
        guard count >= 1, count <= StreamDescription.maximumChannelCount else {
            throw .malformed(
                "channel count \(count) is out of range (1 to \(StreamDescription.maximumChannelCount))")
        }
        return Int(count)
    }

    /// Bits per sample beyond 64 are header corruption in every container and encoding, even
    /// where the codec fixes the width and decoding never reads the field (issue 6: refused,
    /// not ignored). 0 passes here: it is refused only where decoding uses it (PCM).
    static func bitsPerSample(_ bits: some BinaryInteger) throws(DecodingError) {
        guard bits >= 0, bits <= 64 else {
            throw .malformed("bits per sample \(bits) is out of range (0 to 64)")
        }
    }

    /// The range `[offset, offset + claimedSize)` limited to what the source holds.
    static func clampedSize(offset: Int, claimedSize: UInt64, sourceSize: Int) -> Int {
        guard offset < sourceSize else { return 0 }
        let available = UInt64(sourceSize - offset)
        return Int(min(claimedSize, available))
    }
}

/// How an encoding groups its bytes: fixed-size packets of a fixed number of frames.
struct PacketLayout {
    var bytesPerPacket: Int
    var framesPerPacket: Int

    /// The layout of every encoding whose packet follows from the channel count alone.
    static func fixed(_ encoding: Encoding, channelCount: Int) -> PacketLayout? {
        switch encoding {
        case .linearPCM(let format):
            return PacketLayout(bytesPerPacket: format.bytesPerSample * channelCount, framesPerPacket: 1)
        case .muLaw, .aLaw:
            return PacketLayout(bytesPerPacket: channelCount, framesPerPacket: 1)
        case .appleIMA4:
            return PacketLayout(
                bytesPerPacket: AppleIMA4.bytesPerChannelPacket * channelCount,
                framesPerPacket: AppleIMA4.framesPerPacket)
        case .imaADPCM:
            return nil  // set by the WAV header's block align
        }
    }

    /// WAV IMA ADPCM: a 4-byte header per channel, then 4-byte groups of 8 samples per channel.
    /// Bytes of a block align beyond its last whole group are ignored (as FFmpeg does), and so is
    /// the header's `wSamplesPerBlock`: the block's bytes say how many samples it holds.
    static func imaADPCM(blockAlign: Int, channelCount: Int) throws(DecodingError) -> PacketLayout {
        let headerBytes = 4 * channelCount
        guard blockAlign > headerBytes else {
            throw .malformed(
                "IMA ADPCM block align \(blockAlign) is too small for \(channelCount) channel(s)")
        }
        return PacketLayout(
            bytesPerPacket: blockAlign,
            framesPerPacket: IMAADPCM.frames(inBlockOf: blockAlign, channelCount: channelCount))
    }

    /// Frames in `byteCount` bytes of data: whole packets, plus what a short final WAV IMA block holds.
    func framesAvailable(inDataBytes byteCount: Int, encoding: Encoding, channelCount: Int) -> Int {
        let wholePackets = byteCount / bytesPerPacket
        var frames = wholePackets * framesPerPacket
        if encoding == .imaADPCM {
            frames += IMAADPCM.frames(inBlockOf: byteCount % bytesPerPacket, channelCount: channelCount)
        }
        return frames
    }
}

/// Reads the chunk headers of a container: each is an ID and a size, at an offset in the source.
struct ChunkHeader {
    var id: FourCC
    /// The size the header claims, before any clamping.
    var claimedSize: UInt64
    /// Where the chunk's body starts.
    var bodyOffset: Int
}

extension ByteSource {
    /// Reads a chunk's body, refusing bodies larger than `limit` (header chunks are small; a large
    /// one is corruption, and reading it would make the header drive an allocation).
    func chunkBody(_ chunk: ChunkHeader, limit: Int, name: String) throws(DecodingError) -> [UInt8] {
        guard chunk.claimedSize <= UInt64(limit) else {
            throw .malformed("\(name) chunk claims \(chunk.claimedSize) bytes (at most \(limit) expected)")
        }
        let size = Int(chunk.claimedSize)
        let body = try bytes(at: chunk.bodyOffset, count: size)
        guard body.count == size else {
            throw .truncated("file ends inside the \(name) chunk")
        }
        return body
    }
}
