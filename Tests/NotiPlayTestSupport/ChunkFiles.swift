/// Just enough of the CAF and AIFF-C layouts to take a file made by a tool apart and put its bytes
/// into another container, written independently of the decoder under test.
public enum CAFChunks {
    public struct Chunk: Sendable {
        public var id: String
        /// Where the chunk header starts, and the body's offset and size in `bytes`.
        public var headerOffset: Int
        public var bodyOffset: Int
        public var bodySize: Int
    }

    /// The chunks of a CAF file: after the 8-byte file header, each chunk has a four-character
    /// ID and a big-endian 64-bit size (-1 for a `data` chunk running to the end of the file).
    public static func chunks(_ bytes: [UInt8]) -> [Chunk] {
        var result: [Chunk] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Int64(bitPattern: BigEndian.uint64(bytes, at: offset + 4))
            let body = offset + 12
            let bodySize = size < 0 ? bytes.count - body : Int(min(size, Int64(bytes.count - body)))
            result.append(Chunk(id: id, headerOffset: offset, bodyOffset: body, bodySize: bodySize))
            offset = body + bodySize
        }
        return result
    }

    /// The packet bytes of a CAF file's `data` chunk (after its 4-byte edit count).
    public static func audioData(_ bytes: [UInt8]) -> [UInt8]? {
        guard let data = chunks(bytes).first(where: { $0.id == "data" }), data.bodySize >= 4 else { return nil }
        return Array(bytes[data.bodyOffset + 4..<data.bodyOffset + data.bodySize])
    }

    /// A copy of `bytes` with a `pakt` chunk (header only: fixed-size packets need no table)
    /// inserted before `data`, saying `validFrames`, `primingFrames` and `remainderFrames`.
    public static func insertingPacketTable(
        _ bytes: [UInt8], packets: Int64, validFrames: Int64, primingFrames: Int32, remainderFrames: Int32
    ) -> [UInt8]? {
        guard let data = chunks(bytes).first(where: { $0.id == "data" }) else { return nil }
        var pakt = Array("pakt".utf8) + BigEndian.bytes(UInt64(24))
        pakt += BigEndian.bytes(UInt64(packets)) + BigEndian.bytes(UInt64(validFrames))
        pakt += BigEndian.bytes(UInt32(bitPattern: primingFrames)) + BigEndian.bytes(UInt32(bitPattern: remainderFrames))
        return Array(bytes[..<data.headerOffset]) + pakt + Array(bytes[data.headerOffset...])
    }
}

public enum AIFCWriter {
    /// An AIFF-C file holding Apple IMA4 packets (34 bytes per channel per 64 frames) as they are.
    /// COMM's frame count is the packet count, as Apple's writers and libsndfile expect.
    public static func ima4(packets: [UInt8], channelCount: Int, sampleRate: Int) -> [UInt8] {
        let packetCount = packets.count / (34 * channelCount)
        var comm = BigEndian.bytes(UInt16(channelCount)) + BigEndian.bytes(UInt32(packetCount))
        comm += BigEndian.bytes(UInt16(16)) + extended80(sampleRate)
        comm += Array("ima4".utf8) + [0, 0]  // compression type and an empty Pascal-string name
        let fver = Array("FVER".utf8) + BigEndian.bytes(UInt32(4)) + BigEndian.bytes(UInt32(0xA280_5140))
        let commChunk = Array("COMM".utf8) + BigEndian.bytes(UInt32(comm.count)) + comm
        var ssnd = Array("SSND".utf8) + BigEndian.bytes(UInt32(8 + packets.count)) + [UInt8](repeating: 0, count: 8)
        ssnd += packets
        if packets.count % 2 == 1 { ssnd.append(0) }
        let body = Array("AIFC".utf8) + fver + commChunk + ssnd
        return Array("FORM".utf8) + BigEndian.bytes(UInt32(body.count)) + body
    }

    /// A positive whole number as an 80-bit IEEE 754 extended float (AIFF's sample rate).
    public static func extended80(_ value: Int) -> [UInt8] {
        precondition(value > 0)
        let leading = UInt64(value).leadingZeroBitCount
        let exponent = UInt16(16383 + 63 - leading)
        let mantissa = UInt64(value) << UInt64(leading)  // explicit integer bit at the top
        return BigEndian.bytes(exponent) + BigEndian.bytes(mantissa)
    }
}

enum BigEndian {
    static func uint64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<MemoryLayout<T>.size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
