/// RIFF WAVE, its big-endian twin RIFX, and RF64 with 64-bit sizes in `ds64`.
///
/// Chunks may come in any order (`fmt ` after `data` included); odd-sized chunks are followed by
/// a pad byte; a `data` size of 0 or 0xFFFFFFFF means "to the end of the file" (streamed writes).
enum WAV {
    /// WAVE_FORMAT_* tags noti-play decodes.
    enum FormatTag {
        static let pcm: UInt16 = 0x0001
        static let ieeeFloat: UInt16 = 0x0003
        static let aLaw: UInt16 = 0x0006
        static let muLaw: UInt16 = 0x0007
        static let imaADPCM: UInt16 = 0x0011
        static let extensible: UInt16 = 0xFFFE
    }

    /// The parts of `fmt ` that decoding needs.
    struct Format {
        var tag: UInt16
        var channelCount: Int
        var sampleRate: Double
        var blockAlign: Int
        var bitsPerSample: Int
        /// WAVE_FORMAT_EXTENSIBLE's dwChannelMask (SPEAKER_* bits); nil in the other formats.
        var channelMask: UInt32? = nil
        /// WAVE_FORMAT_EXTENSIBLE's wValidBitsPerSample; nil in the other formats.
        var validBits: Int? = nil
    }

    static func parse(_ source: any ByteSource) throws(DecodingError) -> StreamDescription {
        var reader = try source.header(count: 12, context: "WAV header")
        let riffID = try reader.fourCC()
        let riffSize = try reader.uint32(bigEndian: riffID == FourCC("RIFX"))
        guard try reader.fourCC() == FourCC("WAVE") else {
            throw .init(.unknownContainer, "RIFF file is not WAVE (perhaps AVI or WebP)")
        }
        let container: Container
        switch riffID {
        case FourCC("RIFX"): container = .rifx
        case FourCC("RF64"): container = .rf64
        default: container = .wave
        }
        let bigEndian = container == .rifx
        // A writer that could not seek back leaves the sizes at 0 or 0xFFFFFFFF.
        let streamed = riffSize == 0 || riffSize == 0xFFFF_FFFF

        var format: Format?
        var factFrames: UInt64?
        var ds64DataSize: UInt64?
        var data: (offset: Int, size: Int)?
        var truncated = false
        var walker = ChunkWalker(source, firstChunkAt: 12, sizeField: .uint32(bigEndian: bigEndian), padsOddSizes: true)
        while let chunk = try walker.next() {
            var size = chunk.claimedSize
            switch chunk.id {
            case FourCC("fmt "):
                guard format == nil else { throw .malformed("WAV file has more than one 'fmt ' chunk") }
                format = try parseFormat(try source.chunkBody(chunk, limit: 4096, name: "'fmt '"), bigEndian: bigEndian)
            case FourCC("fact") where size >= 4:
                // Shorter `fact` chunks are ignored: only compressed data needs one.
                var body = ByteReader(try source.chunkBody(chunk, limit: 4096, name: "'fact'"), context: "'fact' chunk")
                factFrames = UInt64(try body.uint32(bigEndian: bigEndian))
            case FourCC("ds64") where container == .rf64:
                guard ds64DataSize == nil else { throw .malformed("RF64 file has more than one 'ds64' chunk") }
                var body = ByteReader(try source.chunkBody(chunk, limit: 65536, name: "'ds64'"), context: "'ds64' chunk")
                _ = try body.uint64(bigEndian: false)  // RIFF size
                ds64DataSize = try body.uint64(bigEndian: false)
                let sampleCount = try body.uint64(bigEndian: false)
                if sampleCount != 0 { factFrames = factFrames ?? sampleCount }
            case FourCC("data"):
                guard data == nil else { throw .malformed("WAV file has more than one 'data' chunk") }
                if container == .rf64 && size == 0xFFFF_FFFF {
                    guard let real = ds64DataSize else {
                        throw .malformed("RF64 'data' size is in 'ds64', but no 'ds64' chunk precedes it")
                    }
                    size = real
                } else if size == 0xFFFF_FFFF || (size == 0 && streamed) {
                    size = .max  // to the end of the file
                }
                let clamped = Validate.clampedSize(offset: chunk.bodyOffset, claimedSize: size, sourceSize: source.byteCount)
                data = (chunk.bodyOffset, clamped)
                truncated = size != .max && UInt64(clamped) < size
                if size == .max {
                    walker.stop()  // nothing can follow "to the end of the file"
                    continue
                }
                // A data chunk cut by the end of the file still plays what it holds.
                size = UInt64(clamped)
            default:
                break  // LIST, cue, smpl, bext, JUNK, ...: not needed to play the sound
            }
            walker.skip(chunk, bodySize: size)
        }

        guard let format else { throw walker.missing("'fmt '", in: "WAV") }
        guard let data else { throw walker.missing("'data'", in: "WAV") }
        var description = try describe(format, container: container, bigEndian: bigEndian, data: data, factFrames: factFrames)
        description.isTruncated = description.isTruncated || truncated
        if let note = walker.unpaddedNote { description.notes.append(note) }
        // 24 bits in 4-byte words: the header says only that; where in the word is in the samples.
        if case .linearPCM(var pcm) = description.encoding, let convention = pcm.alignment24 {
            let (alignment, evidence) = try Word24.decide(
                source, data: data, bigEndian: bigEndian, channelCount: description.channelCount, convention: convention)
            pcm.alignment24 = alignment
            description.encoding = .linearPCM(pcm)
            switch evidence {
            case .samples where alignment != convention:
                description.notes.append("the 24-bit samples are \(alignment.phrase) \(alignment.writers), though the header is \(format.validBits == nil ? "a plain PCM one" : "WAVE_FORMAT_EXTENSIBLE")")
            case .neither:
                description.notes.append("the 24-bit samples read fit both layouts of 32-bit words: read \(alignment.phrase) \(alignment.writers)")
            default:
                break
            }
        }
        return description
    }

    static func parseFormat(_ body: [UInt8], bigEndian: Bool) throws(DecodingError) -> Format {
        guard body.count >= 16 else {
            throw .malformed("'fmt ' chunk is \(body.count) bytes; at least 16 are needed")
        }
        var r = ByteReader(body, context: "'fmt ' chunk")
        var tag = try r.uint16(bigEndian: bigEndian)
        let channels = try r.uint16(bigEndian: bigEndian)
        let rate = try r.uint32(bigEndian: bigEndian)
        _ = try r.uint32(bigEndian: bigEndian)  // average bytes per second: not needed to decode
        let blockAlign = try r.uint16(bigEndian: bigEndian)
        var bits = try r.uint16(bigEndian: bigEndian)
        var channelMask: UInt32?
        var validBits: UInt16?
        if tag == FormatTag.extensible {
            guard r.remaining >= 2 else { throw .malformed("WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk has no extension") }
            let extensionSize = Int(try r.uint16(bigEndian: bigEndian))
            guard extensionSize >= 22, extensionSize <= r.remaining else {
                throw .malformed("WAVE_FORMAT_EXTENSIBLE extension of \(extensionSize) bytes does not fit its 'fmt ' chunk")
            }
            let valid = try r.uint16(bigEndian: bigEndian)
            validBits = valid
            channelMask = try r.uint32(bigEndian: bigEndian)
            // The sub-format GUID's first field, 32 bits, is the real format tag. RIFX files
            // hold it big-endian (00 00 00 01, as libsndfile reads it), or — sox — with only
            // the tag's two bytes swapped (00 01 00 00).
            let field = try r.uint32(bigEndian: bigEndian)
            tag = bigEndian && field & 0xFFFF == 0 ? UInt16(field >> 16) : UInt16(truncatingIfNeeded: field)
            if bits == 0 { bits = valid }
        }
        return Format(
            tag: tag, channelCount: Int(channels), sampleRate: Double(rate),
            blockAlign: Int(blockAlign), bitsPerSample: Int(bits), channelMask: channelMask,
            validBits: validBits.map { Int($0) })
    }

    static func encoding(of format: Format, bigEndian: Bool) throws(DecodingError) -> Encoding {
        let bits = format.bitsPerSample
        try Validate.bitsPerSample(bits)
        switch format.tag {
        case FormatTag.pcm:
            // The sample container is a whole number of bytes; 12- or 20-bit samples sit in 16 or 24.
            var containerBits = (bits + 7) / 8 * 8
            // 24 bits with a block align of 4 bytes a channel: each sample is a 32-bit word.
            if containerBits == 24 && format.blockAlign == 4 * format.channelCount { containerBits = 32 }
            guard [8, 16, 24, 32].contains(containerBits) else {
                throw .unsupported("\(bits)-bit integer PCM is not supported (8, 16, 24 and 32 are)")
            }
            // 24 valid bits in 32-bit words, said either way: which three bytes hold them is
            // decided from the samples (Word24); until then, the header's convention — the top
            // three for WAVE_FORMAT_EXTENSIBLE, the low three (ALSA's S24_LE) for a plain header.
            var pcm = LinearPCMFormat(bitsPerSample: containerBits, isFloat: false, isBigEndian: bigEndian, isSigned: containerBits > 8)
            if containerBits == 32 && (format.validBits ?? bits) == 24 {
                pcm.alignment24 = format.validBits == nil ? .low : .high
            }
            return .linearPCM(pcm)
        case FormatTag.ieeeFloat:
            guard bits == 32 || bits == 64 else {
                throw .unsupported("\(bits)-bit float PCM is not supported (32 and 64 are)")
            }
            return .linearPCM(.init(bitsPerSample: bits, isFloat: true, isBigEndian: bigEndian))
        case FormatTag.muLaw: return .muLaw
        case FormatTag.aLaw: return .aLaw
        case FormatTag.imaADPCM:
            guard bits == 4 || bits == 0 else {
                throw .unsupported("\(bits)-bit IMA ADPCM is not supported (only 4-bit is)")
            }
            return .imaADPCM
        default:
            throw .unsupported("WAV format tag \(hex(format.tag))\(tagName(format.tag)) is not supported")
        }
    }

    private static func describe(
        _ format: Format, container: Container, bigEndian: Bool,
        data: (offset: Int, size: Int), factFrames: UInt64?
    ) throws(DecodingError) -> StreamDescription {
        let channels = try Validate.channelCount(format.channelCount)
        let rate = try Validate.sampleRate(format.sampleRate)
        let encoding = try encoding(of: format, bigEndian: bigEndian)
        let layout: PacketLayout
        if encoding == .imaADPCM {
            layout = try .imaADPCM(blockAlign: format.blockAlign, channelCount: channels)
        } else {
            layout = PacketLayout.fixed(encoding, channelCount: channels)!
            guard format.blockAlign == layout.bytesPerPacket else {
                throw .malformed(
                    "block align \(format.blockAlign) does not match \(channels) channel(s) of \(encoding.bitsPerSample)-bit samples (\(layout.bytesPerPacket) expected)")
            }
        }
        let blockFrames = layout.framesAvailable(inDataBytes: data.size, encoding: encoding, channelCount: channels)
        var description = StreamDescription(
            container: container, encoding: encoding, sampleRate: rate, channelCount: channels,
            frameCount: blockFrames, bytesPerPacket: layout.bytesPerPacket, framesPerPacket: layout.framesPerPacket,
            dataOffset: data.offset, dataByteCount: data.size)
        description.channelLayout = format.channelMask.flatMap { ChannelLayout(speakerMask: $0, channelCount: channels) }
        // A `fact` of 0 is a streamed writer's placeholder: it says nothing.
        if encoding == .imaADPCM, let factFrames, factFrames > 0 {
            switch imaLength(fact: factFrames, blockFrames: blockFrames, framesPerBlock: layout.framesPerPacket) {
            case .fact(let frames):
                description.frameCount = frames
            case .cutShort:
                description.isTruncated = true
            case .contradicted:
                description.notes.append("fact says \(factFrames) frames; the blocks hold \(blockFrames): playing the blocks")
            }
        }
        return description
    }

    /// What a WAV IMA ADPCM `fact` chunk says about the blocks' frames.
    enum IMALength: Equatable {
        /// The true length: it trims the last block's padding.
        case fact(Int)
        /// `fact` promises more than the blocks hold: the file was cut.
        case cutShort
        /// `fact` ends before the last block: a writer's mistake (MonoGame's tone_stereo_44khz_imaadpcm.wav
        /// says 11,225 frames of 22,451), not padding; the blocks are the sound.
        case contradicted
    }

    /// `fact` is honoured only where it can be padding: within the last block.
    static func imaLength(fact: UInt64, blockFrames: Int, framesPerBlock: Int) -> IMALength {
        if fact > UInt64(blockFrames) { return .cutShort }
        if Int(fact) > blockFrames - framesPerBlock { return .fact(Int(fact)) }
        return .contradicted
    }

    private static func hex(_ tag: UInt16) -> String {
        "0x" + String(tag, radix: 16, uppercase: true).leftPadded(to: 4)
    }

    private static func tagName(_ tag: UInt16) -> String {
        switch tag {
        case 0x0002: " (Microsoft ADPCM)"
        case 0x0031: " (GSM 6.10)"
        case 0x0050: " (MPEG)"
        case 0x0055: " (MP3)"
        case 0x0161, 0x0162: " (Windows Media Audio)"
        case 0x00FF, 0x1610: " (AAC)"
        case 0xF1AC: " (FLAC)"
        default: ""
        }
    }
}
