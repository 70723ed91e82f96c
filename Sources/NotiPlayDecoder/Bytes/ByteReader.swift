/// A bounds-checked cursor over a header's bytes. Every read that would pass the end throws,
/// so a parser can never read outside what the file holds.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var position: Int
    /// What this reader is reading, for error messages: "`fmt ` chunk".
    let context: String

    init(_ bytes: [UInt8], context: String) {
        self.bytes = bytes
        self.position = 0
        self.context = context
    }

    var remaining: Int { bytes.count - position }

    mutating func skip(_ count: Int) throws(DecodingError) {
        try require(count)
        position += count
    }

    mutating func uint8() throws(DecodingError) -> UInt8 {
        try require(1)
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint16(bigEndian: Bool) throws(DecodingError) -> UInt16 {
        UInt16(truncatingIfNeeded: try unsigned(byteCount: 2, bigEndian: bigEndian))
    }

    mutating func uint32(bigEndian: Bool) throws(DecodingError) -> UInt32 {
        UInt32(truncatingIfNeeded: try unsigned(byteCount: 4, bigEndian: bigEndian))
    }

    mutating func uint64(bigEndian: Bool) throws(DecodingError) -> UInt64 {
        try unsigned(byteCount: 8, bigEndian: bigEndian)
    }

    /// A four-character code such as `fmt ` or `ima4`.
    mutating func fourCC() throws(DecodingError) -> FourCC {
        FourCC(UInt32(truncatingIfNeeded: try unsigned(byteCount: 4, bigEndian: true)))
    }

    mutating func bytes(_ count: Int) throws(DecodingError) -> ArraySlice<UInt8> {
        try require(count)
        defer { position += count }
        return bytes[position..<position + count]
    }

    private mutating func unsigned(byteCount: Int, bigEndian: Bool) throws(DecodingError) -> UInt64 {
        try require(byteCount)
        var value: UInt64 = 0
        for i in 0..<byteCount {
            let byte = UInt64(bytes[position + (bigEndian ? i : byteCount - 1 - i)])
            value = value << 8 | byte
        }
        position += byteCount
        return value
    }

    private func require(_ count: Int) throws(DecodingError) {
        guard count >= 0, count <= remaining else {
            throw .malformed("\(context) is too short (\(bytes.count) bytes)")
        }
    }
}

/// A four-character code, stored big-endian as it appears in the file.
struct FourCC: Hashable, CustomStringConvertible {
    let rawValue: UInt32

    init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// The code of four bytes as they are in the file.
    init(_ bytes: [UInt8]) {
        precondition(bytes.count == 4)
        rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    init(_ text: StaticString) {
        precondition(text.utf8CodeUnitCount == 4)
        var value: UInt32 = 0
        text.withUTF8Buffer { for byte in $0 { value = value << 8 | UInt32(byte) } }
        rawValue = value
    }

    /// All four bytes are printable ASCII (0x20...0x7E), as every chunk ID is.
    var isPrintableASCII: Bool {
        (0..<4).allSatisfy { index in
            let byte = UInt8(truncatingIfNeeded: rawValue >> UInt32(8 * index))
            return byte >= 0x20 && byte < 0x7F
        }
    }

    /// The code as text, with anything unprintable escaped so an error line stays one line.
    var description: String {
        var text = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: rawValue >> UInt32(shift))
            if byte >= 0x20 && byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return "'" + text + "'"
    }
}

extension String {
    package func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
