/// Walks the chunks of a RIFF, IFF (AIFF) or CAF file: an ID, a size, a body, and in RIFF and
/// IFF a pad byte after an odd size. It stops at the end of the file, and remembers whether the
/// file ended inside a chunk, so that a missing chunk can be told apart from a cut file.
///
/// A writer that leaves out the pad byte puts the next chunk where the pad belongs. A pad byte
/// is zero; where that byte is not zero and starts a printable chunk ID, the next chunk is read
/// from there (libsndfile and ffmpeg lose that chunk: "no 'fmt ' chunk").
///
/// Its cost follows the number of real chunks, never the file's length: an ID that is not four
/// printable ASCII characters ends the walk (a sound followed by zeros, `truncate -s 1G`, would
/// otherwise be walked as 134 million empty chunks), and so does the `maximumChunkCount`th chunk.
struct ChunkWalker {
    /// Far more chunks than any writer makes (a few, or a few dozen with markers and metadata).
    static let maximumChunkCount = 1024

    enum SizeField {
        /// RIFF, RIFX, RF64 and IFF: 32 bits.
        case uint32(bigEndian: Bool)
        /// CAF: a signed big-endian 64-bit size, -1 meaning "to the end of the file".
        case int64
    }

    private let source: any ByteSource
    private let sizeField: SizeField
    private let padsOddSizes: Bool
    private var offset: Int
    private var chunksWalked = 0
    /// The file ended inside a chunk header or a chunk's body.
    private(set) var fileIsCut = false
    /// The walk ended at `maximumChunkCount` chunks.
    private(set) var reachedChunkLimit = false
    /// Where the walk met bytes that are not a chunk header, before the end of the file.
    private(set) var endOfChunks: Int?
    /// The first chunk whose pad byte was missing.
    private(set) var unpaddedChunk: FourCC?
    /// Where the last chunk's pad byte belongs, when its size was odd.
    private var padOffset: Int?
    private var lastChunk: FourCC?

    init(_ source: any ByteSource, firstChunkAt offset: Int, sizeField: SizeField, padsOddSizes: Bool) {
        self.source = source
        self.offset = offset
        self.sizeField = sizeField
        self.padsOddSizes = padsOddSizes
    }

    private var headerSize: Int {
        if case .int64 = sizeField { return 12 }
        return 8
    }

    /// The next chunk's header, or nil at the end of the file.
    mutating func next() throws(DecodingError) -> ChunkHeader? {
        if let pad = padOffset {
            padOffset = nil
            let there = try source.bytes(at: pad, count: 4)
            if there.count == 4 && there[0] != 0 && FourCC(there).isPrintableASCII {
                offset = pad
                unpaddedChunk = unpaddedChunk ?? lastChunk
            }
        }
        guard offset < source.byteCount else { return nil }
        let bytes = try source.bytes(at: offset, count: headerSize)
        guard bytes.count == headerSize else {
            fileIsCut = true
            return nil
        }
        var reader = ByteReader(bytes, context: "chunk header")
        let id = try reader.fourCC()
        // Zeros or other bytes where an ID should be: what follows is not chunks.
        guard id.isPrintableASCII else {
            endOfChunks = offset
            stop()
            return nil
        }
        guard chunksWalked < Self.maximumChunkCount else {
            reachedChunkLimit = true
            stop()
            return nil
        }
        chunksWalked += 1
        let size: UInt64
        switch sizeField {
        case .uint32(let bigEndian):
            size = UInt64(try reader.uint32(bigEndian: bigEndian))
        case .int64:
            let signed = Int64(bitPattern: try reader.uint64(bigEndian: true))
            guard signed >= -1 else { throw .malformed("CAF chunk \(id) has the negative size \(signed)") }
            size = signed == -1 ? .max : UInt64(signed)
        }
        return ChunkHeader(id: id, claimedSize: size, bodyOffset: offset + headerSize)
    }

    /// Moves past a chunk whose body is `size` bytes (and its pad byte). A body that runs past
    /// the end of the file ends the walk.
    mutating func skip(_ chunk: ChunkHeader, bodySize size: UInt64) {
        let pad: UInt64 = padsOddSizes ? size & 1 : 0
        let available = UInt64(source.byteCount - chunk.bodyOffset)
        guard size <= available else {
            fileIsCut = true
            offset = source.byteCount
            return
        }
        offset = chunk.bodyOffset + Int(min(size + pad, available))
        padOffset = pad == 1 && size < available ? chunk.bodyOffset + Int(size) : nil
        lastChunk = chunk.id
    }

    /// Ends the walk (a chunk runs to the end of the file).
    mutating func stop() {
        offset = source.byteCount
        padOffset = nil
    }

    /// A note for `noti-play info` when a chunk's pad byte was missing.
    var unpaddedNote: String? {
        unpaddedChunk.map { "the \($0) chunk has an odd size and no pad byte after it: the next chunk was read where the pad belongs" }
    }

    /// The error for a chunk the walk never met: the file was cut, or the chunk is missing.
    func missing(_ chunk: String, in container: String) -> DecodingError {
        if reachedChunkLimit {
            return .malformed("\(container) file has no \(chunk) chunk among its first \(Self.maximumChunkCount) chunks")
        }
        if fileIsCut { return .truncated("file ends before its \(chunk) chunk") }
        if let end = endOfChunks {
            return .malformed("\(container) file has no \(chunk) chunk: its chunks end at byte \(end), where what follows is not a chunk")
        }
        return .malformed("\(container) file has no \(chunk) chunk")
    }
}

extension ByteSource {
    /// The first `count` bytes of a container's header, or a truncation error naming it.
    func header(count: Int, context: String) throws(DecodingError) -> ByteReader {
        let bytes = try bytes(at: 0, count: count)
        guard bytes.count == count else { throw .truncated("file ends inside the \(context) (\(bytes.count) bytes)") }
        return ByteReader(bytes, context: context)
    }
}
