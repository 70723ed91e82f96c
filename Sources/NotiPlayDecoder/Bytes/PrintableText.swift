/// Text from outside (paths, device names, sound names) made safe to print in one line: a
/// newline, ESC or C1 character in a file name must not start a line of its own or steer the
/// terminal. Control characters become `\n`, `\r`, `\t` or `\xNN` / `\u{NN}`; bytes that are not
/// UTF-8 become `\xNN`.
public enum PrintableText {
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars { append(scalar, to: &out) }
        return out
    }

    /// `text` escaped, its first `limit` characters only, and "…" where it went on: a name from
    /// outside is echoed in a message, and a 100 KB one must not fill the terminal.
    public static func escaped(_ text: String, atMost limit: Int) -> String {
        let shown = escaped(String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit))))
        return text.unicodeScalars.count > limit ? shown + "…" : shown
    }

    /// A path's raw bytes, as printable text.
    public static func path(_ bytes: [UInt8]) -> String {
        var out = ""
        var index = 0
        while index < bytes.count {
            // Decode one scalar; an invalid sequence is shown byte by byte.
            let length = scalarLength(bytes, at: index)
            if length == 0 {
                out += "\\x" + hex(UInt32(bytes[index]), digits: 2)
                index += 1
                continue
            }
            let scalarText = String(decoding: bytes[index..<index + length], as: UTF8.self)
            for scalar in scalarText.unicodeScalars { append(scalar, to: &out) }
            index += length
        }
        return out
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String) {
        switch scalar.value {
        case 0x0A: out += "\\n"
        case 0x0D: out += "\\r"
        case 0x09: out += "\\t"
        case 0x00..<0x20, 0x7F: out += "\\x" + hex(scalar.value, digits: 2)
        case 0x80..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
            // C1 controls, line/paragraph separators and bidirectional overrides.
            out += "\\u{" + hex(scalar.value, digits: 4) + "}"
        default: out.unicodeScalars.append(scalar)
        }
    }

    /// The length of a valid UTF-8 sequence at `index`, or 0.
    private static func scalarLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        var decoder = UTF8()
        var iterator = bytes[index..<index + length].makeIterator()
        if case .scalarValue = decoder.decode(&iterator), iterator.next() == nil { return length }
        return 0
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
