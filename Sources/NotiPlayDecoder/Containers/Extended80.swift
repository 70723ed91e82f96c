/// The 80-bit IEEE 754 extended float AIFF uses for its sample rate: a sign bit, a 15-bit
/// exponent (bias 16383) and a 64-bit mantissa whose top bit is explicit.
enum Extended80 {
    /// The value, or nil for NaN, infinity and values no Double can hold.
    static func decode(_ bytes: ArraySlice<UInt8>) -> Double? {
        guard bytes.count == 10 else { return nil }
        let b = Array(bytes)
        let signAndExponent = UInt16(b[0]) << 8 | UInt16(b[1])
        var mantissa: UInt64 = 0
        for byte in b[2..<10] { mantissa = mantissa << 8 | UInt64(byte) }
        let exponent = Int(signAndExponent & 0x7FFF)
        let negative = signAndExponent & 0x8000 != 0
        if exponent == 0x7FFF { return nil }  // infinity or NaN
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        // value = mantissa * 2^(exponent - 16383 - 63); Double covers 2^-1074 ... 2^1023.
        let power = exponent - 16383 - 63
        guard power < 1024 - 64, power > -1100 else { return nil }
        let value = Double(sign: negative ? .minus : .plus, exponent: power, significand: Double(mantissa))
        return value.isFinite ? value : nil
    }
}
