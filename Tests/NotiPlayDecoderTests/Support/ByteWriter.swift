/// Appends integers, floats, four-character codes and chunks in one byte order, so a test can
/// spell out a file field by field.
struct ByteWriter {
    enum Order { case little, big }

    let order: Order
    private(set) var bytes: [UInt8] = []

    init(_ order: Order) { self.order = order }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        let ordered = order == .big ? value.bigEndian : value.littleEndian
        withUnsafeBytes(of: ordered) { bytes += $0 }
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { append(value) }
    mutating func i16(_ value: Int16) { append(value) }
    mutating func u32(_ value: UInt32) { append(value) }
    mutating func i32(_ value: Int32) { append(value) }
    mutating func u64(_ value: UInt64) { append(value) }
    mutating func i64(_ value: Int64) { append(value) }
    mutating func f32(_ value: Float) { append(value.bitPattern) }
    mutating func f64(_ value: Double) { append(value.bitPattern) }

    /// The low 24 bits of `value`, as packed 24-bit PCM stores a sample.
    mutating func i24(_ value: Int32) {
        let b = [UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
        bytes += order == .big ? b : b.reversed()
    }

    /// Codes are stored as their ASCII bytes in both byte orders.
    mutating func fourCC(_ code: String) {
        precondition(code.utf8.count == 4, "a FourCC has four characters: \(code)")
        bytes += code.utf8
    }

    mutating func raw(_ more: [UInt8]) { bytes += more }

    /// A RIFF/IFF chunk: ID, 32-bit size (the body's unless `claimedSize` lies), body, and the pad
    /// byte that follows an odd-sized body.
    mutating func chunk(_ id: String, claimedSize: UInt32? = nil, _ body: [UInt8]) {
        fourCC(id)
        u32(claimedSize ?? UInt32(body.count))
        raw(body)
        if body.count % 2 == 1 { u8(0) }
    }

    /// Builds bytes in one go: `ByteWriter.make(.big) { $0.u16(1) }`.
    static func make(_ order: Order, _ body: (inout ByteWriter) -> Void) -> [UInt8] {
        var writer = ByteWriter(order)
        body(&writer)
        return writer.bytes
    }
}

// Sample payloads: the values a test expects back, laid out as the file stores them.

func int16Samples(_ values: [Int16], _ order: ByteWriter.Order) -> [UInt8] {
    ByteWriter.make(order) { w in values.forEach { w.i16($0) } }
}

func int24Samples(_ values: [Int32], _ order: ByteWriter.Order) -> [UInt8] {
    ByteWriter.make(order) { w in values.forEach { w.i24($0) } }
}

func int32Samples(_ values: [Int32], _ order: ByteWriter.Order) -> [UInt8] {
    ByteWriter.make(order) { w in values.forEach { w.i32($0) } }
}

func float32Samples(_ values: [Float], _ order: ByteWriter.Order) -> [UInt8] {
    ByteWriter.make(order) { w in values.forEach { w.f32($0) } }
}

func float64Samples(_ values: [Double], _ order: ByteWriter.Order) -> [UInt8] {
    ByteWriter.make(order) { w in values.forEach { w.f64($0) } }
}

/// The full-scale Float a 16-bit sample decodes to.
func full16(_ values: [Int]) -> [Float] { values.map { Float($0) / 32768 } }

/// The 80-bit extended float AIFF stores a sample rate in, for a positive finite `value`.
/// Every Double fits exactly: a 15-bit exponent (bias 16383) and a 64-bit mantissa with an
/// explicit integer bit.
func extended80(_ value: Double) -> [UInt8] {
    precondition(value.isFinite && value > 0)
    let exponent = UInt16(Int(value.exponent) + 16383)
    let mantissa = (value.significandBitPattern | 1 << 52) << 11
    return ByteWriter.make(.big) { w in
        w.u16(exponent)
        w.u64(mantissa)
    }
}

/// Raw 80-bit bytes from a sign-and-exponent field and a mantissa, for values a Double can't say.
func extended80(signAndExponent: UInt16, mantissa: UInt64) -> [UInt8] {
    ByteWriter.make(.big) { w in
        w.u16(signAndExponent)
        w.u64(mantissa)
    }
}
