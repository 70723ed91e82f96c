import NotiPlayDecoder

/// What a container header says; written once with zero counts before the data and again,
/// same size, with the true counts by `finish()`.
struct HeaderInfo {
    var format: SoundFormat
    var bytesPerPacket: Int
    var framesPerPacket: Int
    /// The true length: padding of the last packet excluded.
    var frameCount: Int
    var packetCount: Int
    var dataByteCount: Int
}

/// A container's header layout. The header's size must not depend on the counts.
protocol ContainerWriter {
    static func header(_ info: HeaderInfo) -> [UInt8]
    /// Whether the container's size and count fields can describe this much data.
    static func fits(_ info: HeaderInfo, headerSize: Int) -> Bool
    /// Chunks of odd size are followed by a pad byte (RIFF and IFF rules).
    static var padsOddData: Bool { get }
}

extension Container {
    var writer: any ContainerWriter.Type {
        switch self {
        case .wave, .rifx, .rf64: WAVWriter.self
        case .aiff, .aifc: AIFFWriter.self
        case .caf: CAFWriter.self
        }
    }
}

/// Builds header bytes field by field.
struct HeaderBytes {
    var bytes: [UInt8] = []

    mutating func fourCC(_ code: String) {
        precondition(code.utf8.count == 4)
        bytes.append(contentsOf: code.utf8)
    }

    mutating func uint16(_ value: Int, bigEndian: Bool) { integer(UInt64(truncatingIfNeeded: value), size: 2, bigEndian: bigEndian) }
    mutating func uint32(_ value: Int, bigEndian: Bool) { integer(UInt64(truncatingIfNeeded: value), size: 4, bigEndian: bigEndian) }
    mutating func uint64(_ value: UInt64, bigEndian: Bool) { integer(value, size: 8, bigEndian: bigEndian) }

    private mutating func integer(_ value: UInt64, size: Int, bigEndian: Bool) {
        for i in 0..<size {
            let shift = 8 * (bigEndian ? size - 1 - i : i)
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
