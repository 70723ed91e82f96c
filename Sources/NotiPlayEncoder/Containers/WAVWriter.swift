import NotiPlayDecoder

/// RIFF WAVE, little-endian: `fmt `, `fact` for every non-PCM format (the true frame count),
/// then `data`.
///
/// Plain PCM (tag 1) for up to 2 channels of 8 or 16 bits; WAVE_FORMAT_EXTENSIBLE for more
/// channels or 24/32-bit integers, as Microsoft asks and ffmpeg does. Float is tag 3 (extensible
/// above 2 channels), µ-law 7, A-law 6, IMA ADPCM 0x0011 with its samples-per-block extension.
enum WAVWriter: ContainerWriter {
    static func fits(_ info: HeaderInfo, headerSize: Int) -> Bool {
        headerSize - 8 + info.dataByteCount + 1 <= UInt32.max && info.frameCount <= UInt32.max
    }
    static let padsOddData = true

    static func refusal(_ encoding: Encoding) -> String? {
        switch encoding {
        case .linearPCM(let f) where f.bitsPerSample == 8:
            return f.isSigned ? "WAVE 8-bit PCM is unsigned; use -d UI8" : nil
        case .linearPCM(let f):
            return f.isBigEndian ? "WAVE holds little-endian PCM only" : nil
        case .muLaw, .aLaw, .imaADPCM:
            return nil
        case .appleIMA4:
            return "WAVE holds IMA ADPCM blocks (format 0x0011), not Apple ima4 packets"
        }
    }

    private enum Tag {
        static let pcm = 0x0001, float = 0x0003, aLaw = 0x0006, muLaw = 0x0007, imaADPCM = 0x0011
        static let extensible = 0xFFFE
    }

    static func header(_ info: HeaderInfo) -> [UInt8] {
        let format = info.format
        let channels = format.channelCount
        var tag: Int
        var bits = format.encoding.bitsPerSample
        switch format.encoding {
        case .linearPCM(let f): tag = f.isFloat ? Tag.float : Tag.pcm
        case .muLaw: tag = Tag.muLaw
        case .aLaw: tag = Tag.aLaw
        case .imaADPCM, .appleIMA4: tag = Tag.imaADPCM; bits = 4
        }
        let extensible = (tag == Tag.pcm && (channels > 2 || bits > 16)) || (tag == Tag.float && channels > 2)

        var fmt = HeaderBytes()
        fmt.uint16(extensible ? Tag.extensible : tag, bigEndian: false)
        fmt.uint16(channels, bigEndian: false)
        let rate = Int(format.sampleRate)
        fmt.uint32(rate, bigEndian: false)
        // Average bytes per second, rounded up for IMA's blocks.
        let byteRate = (rate * info.bytesPerPacket + info.framesPerPacket - 1) / info.framesPerPacket
        fmt.uint32(byteRate, bigEndian: false)
        fmt.uint16(info.bytesPerPacket, bigEndian: false)
        fmt.uint16(bits, bigEndian: false)
        if extensible {
            fmt.uint16(22, bigEndian: false)
            fmt.uint16(bits, bigEndian: false)  // valid bits
            fmt.uint32(channelMask(channels), bigEndian: false)
            // KSDATAFORMAT_SUBTYPE_*: the format tag, then 0000-0010-8000-00AA00389B71.
            fmt.uint16(tag, bigEndian: false)
            fmt.bytes += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        } else if tag == Tag.imaADPCM {
            fmt.uint16(2, bigEndian: false)
            fmt.uint16(info.framesPerPacket, bigEndian: false)
        } else if tag != Tag.pcm {
            fmt.uint16(0, bigEndian: false)  // cbSize: non-PCM formats carry one
        }

        var h = HeaderBytes()
        h.fourCC("RIFF")
        let factBytes = tag == Tag.pcm ? 0 : 12
        let padded = info.dataByteCount + (info.dataByteCount & 1)
        h.uint32(4 + (8 + fmt.bytes.count) + factBytes + 8 + padded, bigEndian: false)
        h.fourCC("WAVE")
        h.fourCC("fmt ")
        h.uint32(fmt.bytes.count, bigEndian: false)
        h.bytes += fmt.bytes
        if factBytes > 0 {
            h.fourCC("fact")
            h.uint32(4, bigEndian: false)
            h.uint32(info.frameCount, bigEndian: false)
        }
        h.fourCC("data")
        h.uint32(info.dataByteCount, bigEndian: false)
        return h.bytes
    }

    /// The speaker positions Microsoft assigns by channel count; none beyond 7.1.
    private static func channelMask(_ channels: Int) -> Int {
        switch channels {
        case 1: 0x4  // front centre
        case 2: 0x3  // front left, right
        case 3: 0x7  // + centre
        case 4: 0x33  // front and back pairs
        case 5: 0x37  // + centre
        case 6: 0x3F  // 5.1
        case 7: 0x13F  // 6.1
        case 8: 0x63F  // 7.1
        default: 0
        }
    }
}
