import NotiPlayDecoder
import Testing

/// Inputs the fuzz targets (Tests/Fuzz, scripts/fuzz/fuzz.sh) found, kept as they were found.
@Suite("Fuzz regressions")
struct RegressionTests {
    /// FuzzCAF: a 'data' chunk claiming 573 bytes in a file that ends one byte into its 4-byte
    /// edit count. The audio data was placed at offset 68 of a 65-byte file; it is now an empty
    /// range at the end of the file (what the cut left: no audio).
    static let cafCutInsideEditCount: [UInt8] = [
        0x63, 0x61, 0x66, 0x66, 0x00, 0x01, 0x00, 0x00, 0x64, 0x65, 0x73, 0x63, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x20, 0x40, 0xBF, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6C, 0x70, 0x63, 0x6D,
        0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
        0x00, 0x00, 0x00, 0x20, 0x64, 0x61, 0x74, 0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x3D,
        0x00,
    ]

    @Test("CAF cut inside the data chunk's edit count: no audio, and none placed past the end")
    func cafCutInsideEditCount() throws {
        let bytes = Self.cafCutInsideEditCount
        let decoder = try SoundDecoder(bytes: bytes)
        let d = decoder.description
        #expect(d.dataOffset + d.dataByteCount <= bytes.count)
        #expect(d.dataOffset == bytes.count)
        #expect(d.frameCount == 0)
        #expect(try decoder.readAll().isEmpty)
    }
}
