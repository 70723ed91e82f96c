/// AIFF's sample rate field: an 80-bit IEEE 754 extended float (sign, 15-bit exponent with bias
/// 16383, 64-bit mantissa with an explicit leading 1).
enum Extended80 {
    /// Every positive finite Double is exact in this form.
    static func encode(_ value: Double) -> [UInt8] {
        guard value.isFinite, value != 0 else { return Array(repeating: 0, count: 10) }
        let magnitude = value.magnitude
        // Normalized: mantissa's top bit set, value = mantissa · 2^(exponent − 63).
        let exponent = Int(magnitude.exponent)
        let mantissa = (UInt64(1) << 63) | (magnitude.significandBitPattern << 11)
        let sign: UInt16 = value < 0 ? 0x8000 : 0
        let signAndExponent = sign | UInt16(exponent + 16383)
        var bytes = [UInt8(signAndExponent >> 8), UInt8(signAndExponent & 0xFF)]
        for i in (0..<8).reversed() { bytes.append(UInt8(truncatingIfNeeded: mantissa >> UInt64(8 * i))) }
        return bytes
    }
}
