/// AIFF and AIFF-C: big-endian chunks in a FORM; COMM describes, SSND holds the samples.
///
/// COMM may come after SSND. SSND starts with an offset (bytes to skip before the first sample)
/// and a block size. In AIFF-C `ima4`, COMM's frame count counts 64-frame packets.
enum AIFF {
    static func parse(_ source: any ByteSource) throws(DecodingError) -> StreamDescription {
        var reader = try source.header(count: 12, context: "AIFF header")
        _ = try reader.fourCC()  // FORM
        _ = try reader.uint32(bigEndian: true)
        let formType = try reader.fourCC()
        let container: Container
        switch formType {
        case FourCC("AIFF"): container = .aiff
        case FourCC("AIFC"): container = .aifc
        default: throw .init(.unknownContainer, "IFF FORM of type \(formType) is not AIFF or AIFF-C")
        }

        var common: [UInt8]?
        var data: (offset: Int, size: Int)?
        var truncated = false
        var walker = ChunkWalker(source, firstChunkAt: 12, sizeField: .uint32(bigEndian: true), padsOddSizes: true)
        while let chunk = try walker.next() {
            var size = chunk.claimedSize
            switch chunk.id {
            case FourCC("COMM"):
                guard common == nil else { throw .malformed("AIFF file has more than one COMM chunk") }
                common = try source.chunkBody(chunk, limit: 4096, name: "COMM")
            case FourCC("SSND"):
                guard data == nil else { throw .malformed("AIFF file has more than one SSND chunk") }
                // Offset and block size come first: a smaller chunk would have them read from the
                // next chunk's bytes, and a file cut inside them was cut, not malformed.
                guard size >= 8 else { throw .malformed("SSND chunk is \(size) bytes; at least 8 are needed") }
                let fields = try source.bytes(at: chunk.bodyOffset, count: 8)
                guard fields.count == 8 else { throw .truncated("file ends inside the SSND chunk's offset and block size") }
                var header = ByteReader(fields, context: "SSND chunk")
                let dataOffset = UInt64(try header.uint32(bigEndian: true))
                _ = try header.uint32(bigEndian: true)  // block size: alignment only, 0 in practice
                guard size >= 8 + dataOffset else {
                    throw .malformed("SSND offset \(dataOffset) lies beyond its chunk of \(size) bytes")
                }
                // An offset past the end of the file leaves no samples, and the data's place is the end.
                let start = min(chunk.bodyOffset + 8 + Int(min(dataOffset, UInt64(source.byteCount))), source.byteCount)
                let clamped = Validate.clampedSize(offset: start, claimedSize: size - 8 - dataOffset, sourceSize: source.byteCount)
                data = (start, clamped)
                truncated = UInt64(clamped) < size - 8 - dataOffset
                // An SSND cut by the end of the file still plays what it holds.
                size = min(size, UInt64(start + clamped - chunk.bodyOffset))
            default:
                break  // FVER, MARK, INST, NAME, ANNO, ID3 ...
            }
            walker.skip(chunk, bodySize: size)
        }
        guard let common else { throw walker.missing("COMM", in: container.displayName) }
        var description = try describe(common, container: container, data: data, walker: walker)
        description.isTruncated = description.isTruncated || truncated
        if let note = walker.unpaddedNote { description.notes.append(note) }
        return description
    }

    private static func describe(
        _ common: [UInt8], container: Container, data: (offset: Int, size: Int)?, walker: ChunkWalker
    ) throws(DecodingError) -> StreamDescription {
        var r = ByteReader(common, context: "COMM chunk")
        let channels = try Validate.channelCount(Int16(bitPattern: try r.uint16(bigEndian: true)))
        let declaredFrames = Int(try r.uint32(bigEndian: true))
        let sampleSize = Int(Int16(bitPattern: try r.uint16(bigEndian: true)))
        try Validate.bitsPerSample(sampleSize)
        guard let rawRate = Extended80.decode(try r.bytes(10)) else {
            throw .malformed("COMM sample rate is not a usable number (NaN, infinite or out of range)")
        }
        let rate = try Validate.sampleRate(rawRate)
        var compression = FourCC("NONE")
        if container == .aifc {
            compression = try r.fourCC()
        }
        let encoding = try encoding(compression: compression, sampleSize: sampleSize)
        // No SSND is a silent sound only when COMM says so.
        guard let data = data ?? (declaredFrames == 0 ? (0, 0) : nil) else {
            throw walker.missing("SSND", in: container.displayName)
        }
        let layout = PacketLayout.fixed(encoding, channelCount: channels)!
        let available = layout.framesAvailable(inDataBytes: data.size, encoding: encoding, channelCount: channels)
        // COMM's count is the true length: trailing bytes in SSND are padding. For ima4 it counts packets.
        let declared = encoding == .appleIMA4 ? declaredFrames.multipliedReportingOverflow(by: 64).partialValue : declaredFrames
        var description = StreamDescription(
            container: container, encoding: encoding, sampleRate: rate, channelCount: channels,
            frameCount: min(declared, available), bytesPerPacket: layout.bytesPerPacket,
            framesPerPacket: layout.framesPerPacket, dataOffset: data.offset, dataByteCount: data.size)
        description.isTruncated = declared > available
        return description
    }

    static func encoding(compression: FourCC, sampleSize: Int) throws(DecodingError) -> Encoding {
        func integer(bigEndian: Bool) throws(DecodingError) -> Encoding {
            guard sampleSize >= 1, sampleSize <= 32 else {
                throw .unsupported("\(sampleSize)-bit integer PCM is not supported (1 to 32 bits are)")
            }
            // Samples narrower than their container are left-justified: decode the whole container.
            return .linearPCM(.init(bitsPerSample: (sampleSize + 7) / 8 * 8, isFloat: false, isBigEndian: bigEndian))
        }
        switch compression.description.dropFirst().dropLast() {
        case "NONE", "twos": return try integer(bigEndian: true)
        case "sowt": return try integer(bigEndian: false)
        case "in24": return .linearPCM(.init(bitsPerSample: 24, isFloat: false, isBigEndian: true))
        case "in32": return .linearPCM(.init(bitsPerSample: 32, isFloat: false, isBigEndian: true))
        case "fl32", "FL32": return .linearPCM(.init(bitsPerSample: 32, isFloat: true, isBigEndian: true))
        case "fl64", "FL64": return .linearPCM(.init(bitsPerSample: 64, isFloat: true, isBigEndian: true))
        case "ulaw", "ULAW": return .muLaw
        case "alaw", "ALAW": return .aLaw
        case "ima4": return .appleIMA4
        case "raw ": return .linearPCM(.init(bitsPerSample: 8, isFloat: false, isBigEndian: true, isSigned: false))
        default:
            throw .unsupported("AIFF-C compression type \(compression) is not supported")
        }
    }
}
