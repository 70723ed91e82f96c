/// Apple Core Audio Format: big-endian, 64-bit chunk sizes.
///
/// `desc` (exactly 32 bytes) describes the stream; `data` starts with a 4-byte edit count and may
/// have size -1, meaning "to the end of the file"; `pakt` gives the valid, priming and remainder
/// frames of packetized data such as `ima4`; `chan` the channels' speakers (``CAFChannelLayout``).
/// `kuki`, `free`, `info`, `strg` are skipped.
enum CAF {
    enum FormatFlags {
        static let isFloat: UInt32 = 1 << 0
        static let isLittleEndian: UInt32 = 1 << 1
    }

    /// The Packet Table Header: how many of the decoded frames are sound.
    struct PacketTable {
        var packetCount: Int64
        var validFrames: Int64
        var primingFrames: Int32
        var remainderFrames: Int32
    }

    static func parse(_ source: any ByteSource) throws(DecodingError) -> StreamDescription {
        var reader = try source.header(count: 8, context: "CAF header")
        _ = try reader.fourCC()  // caff
        let version = try reader.uint16(bigEndian: true)
        guard version == 1 else { throw .unsupported("CAF version \(version) is not supported (only 1 is)") }

        var descBody: [UInt8]?
        var packetTable: PacketTable?
        var channelLayoutBody: [UInt8]?
        var channelLayoutChunks = 0
        var data: (offset: Int, size: Int)?
        var truncated = false
        var walker = ChunkWalker(source, firstChunkAt: 8, sizeField: .int64, padsOddSizes: false)
        while let chunk = try walker.next() {
            let size = chunk.claimedSize  // .max for -1, "to the end of the file"
            switch chunk.id {
            case FourCC("desc"):
                guard descBody == nil else { throw .malformed("CAF file has more than one 'desc' chunk") }
                guard size == 32 else { throw .malformed("CAF 'desc' chunk is \(size == .max ? "-1" : String(size)) bytes; it must be 32") }
                descBody = try source.chunkBody(chunk, limit: 32, name: "'desc'")
            case FourCC("pakt"):
                guard packetTable == nil else { throw .malformed("CAF file has more than one 'pakt' chunk") }
                guard size >= 24 else { throw .malformed("CAF 'pakt' chunk is \(size) bytes; at least 24 are needed") }
                // Only the 24-byte header: the per-packet sizes matter to variable-rate formats alone.
                var r = ByteReader(try source.bytes(at: chunk.bodyOffset, count: 24), context: "'pakt' chunk")
                packetTable = PacketTable(
                    packetCount: Int64(bitPattern: try r.uint64(bigEndian: true)),
                    validFrames: Int64(bitPattern: try r.uint64(bigEndian: true)),
                    primingFrames: Int32(bitPattern: try r.uint32(bigEndian: true)),
                    remainderFrames: Int32(bitPattern: try r.uint32(bigEndian: true)))
            case FourCC("data"):
                guard data == nil else { throw .malformed("CAF file has more than one 'data' chunk") }
                guard size >= 4 else { throw .malformed("CAF 'data' chunk size \(size) is invalid") }
                // Skip the edit count. A file cut inside it holds no audio: the data's place is then
                // the end of the file, never past it (found by the CAF fuzz target).
                let start = min(chunk.bodyOffset + 4, source.byteCount)
                data = (start, Validate.clampedSize(offset: start, claimedSize: size == .max ? .max : size - 4, sourceSize: source.byteCount))
                if size == .max || size > UInt64(source.byteCount - chunk.bodyOffset) {
                    truncated = size != .max
                    walker.stop()  // to the end of the file, or cut by it: what is there is the data
                    continue
                }
            case FourCC("chan"):
                channelLayoutChunks += 1
                let usefulSize = min(size, UInt64(CAFChannelLayout.maximumUsefulSize))
                channelLayoutBody = try source.bytes(at: chunk.bodyOffset, count: Int(usefulSize))
                fallthrough  // and is walked past as any other chunk
            default:
                // A damaged chunk after the audio need not cost the sound: stop walking there.
                if size == .max || size > UInt64(source.byteCount - chunk.bodyOffset), descBody != nil, data != nil {
                    walker.stop()
                    continue
                }
            }
            walker.skip(chunk, bodySize: size)
        }
        guard let descBody else { throw walker.missing("'desc'", in: "CAF") }
        guard let data else { throw walker.missing("'data'", in: "CAF") }
        var description = try describe(descBody, packetTable: packetTable, data: data)
        description.isTruncated = description.isTruncated || truncated
        // Two `chan` chunks may disagree: neither is believed (lenient, as for one broken `chan`).
        if channelLayoutChunks == 1, let channelLayoutBody {
            description.channelLayout = CAFChannelLayout.layout(channelLayoutBody, channelCount: description.channelCount)
        }
        return description
    }

    private static func describe(
        _ desc: [UInt8], packetTable: PacketTable?, data: (offset: Int, size: Int)
    ) throws(DecodingError) -> StreamDescription {
        var r = ByteReader(desc, context: "'desc' chunk")
        let rate = try Validate.sampleRate(Double(bitPattern: try r.uint64(bigEndian: true)))
        let formatID = try r.fourCC()
        let flags = try r.uint32(bigEndian: true)
        let bytesPerPacket = try r.uint32(bigEndian: true)
        let framesPerPacket = try r.uint32(bigEndian: true)
        let channels = try Validate.channelCount(try r.uint32(bigEndian: true))
        let bits = Int(try r.uint32(bigEndian: true))
        try Validate.bitsPerSample(bits)

        let encoding: Encoding
        switch formatID {
        case FourCC("lpcm"):
            let isFloat = flags & FormatFlags.isFloat != 0
            let valid = isFloat ? [32, 64].contains(bits) : [8, 16, 24, 32].contains(bits)
            guard valid else {
                throw .unsupported("CAF \(bits)-bit \(isFloat ? "float" : "integer") PCM is not supported")
            }
            encoding = .linearPCM(.init(
                bitsPerSample: bits, isFloat: isFloat, isBigEndian: flags & FormatFlags.isLittleEndian == 0))
        case FourCC("ulaw"): encoding = .muLaw
        case FourCC("alaw"): encoding = .aLaw
        case FourCC("ima4"): encoding = .appleIMA4
        default:
            throw .unsupported("CAF format \(formatID) is not supported (lpcm, ima4, ulaw and alaw are)")
        }
        let layout = PacketLayout.fixed(encoding, channelCount: channels)!
        guard bytesPerPacket == layout.bytesPerPacket, framesPerPacket == layout.framesPerPacket else {
            throw .malformed(
                "CAF 'desc' says \(bytesPerPacket) bytes and \(framesPerPacket) frames per packet; \(channels) channel(s) of \(encoding.afconvertName) take \(layout.bytesPerPacket) and \(layout.framesPerPacket)")
        }
        let available = layout.framesAvailable(inDataBytes: data.size, encoding: encoding, channelCount: channels)
        var frames = available
        var priming = 0
        var cutShort = false
        // A table left at zero by a writer that never came back to fill it says nothing.
        if let table = packetTable, table.packetCount != 0 || table.validFrames != 0 {
            guard table.validFrames >= 0, table.primingFrames >= 0, table.remainderFrames >= 0 else {
                throw .malformed("CAF 'pakt' has negative frame counts")
            }
            // Priming frames come first and are not sound; valid frames follow; the rest is padding.
            priming = min(Int(table.primingFrames), available)
            frames = Int(min(table.validFrames, Int64(available - priming)))
            cutShort = table.validFrames > Int64(available - priming)
        }
        var description = StreamDescription(
            container: .caf, encoding: encoding, sampleRate: rate, channelCount: channels,
            frameCount: frames, bytesPerPacket: layout.bytesPerPacket, framesPerPacket: layout.framesPerPacket,
            primingFrames: priming, dataOffset: data.offset, dataByteCount: data.size)
        description.isTruncated = cutShort
        return description
    }
}
