/// The 80-bit IEEE 754 extended float AIFF uses for its sample rate: a sign bit, a 15-bit
/// exponent (bias 16383) and a 64-bit mantissa whose top bit is explicit.
package enum Extended80 {
    /// The value, or nil for NaN, infinity and values no Double can hold.
    package static func decode(_ bytes: ArraySlice<UInt8>) -> Double? {
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

    /// The 10 bytes for `value`; every finite Double is exact in this form (0 for NaN and infinities).
    package static func encode(_ value: Double) -> [UInt8] {
        guard value.isFinite, value != 0 else { return Array(repeating: 0, count: 10) }
        let magnitude = value.magnitude
        // Normalized: the mantissa's top bit set, value = mantissa · 2^(exponent − 63).
        let exponent = Int(magnitude.exponent)
        let mantissa = (UInt64(1) << 63) | (magnitude.significandBitPattern << 11)
        let sign: UInt16 = value < 0 ? 0x8000 : 0
        let signAndExponent = sign | UInt16(exponent + 16383)
        var bytes = [UInt8(signAndExponent >> 8), UInt8(signAndExponent & 0xFF)]
        for i in (0..<8).reversed() { bytes.append(UInt8(truncatingIfNeeded: mantissa >> UInt64(8 * i))) }
        return bytes
    }
}
