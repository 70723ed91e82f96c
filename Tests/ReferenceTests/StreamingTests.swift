import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// Reading in pieces must give what readAll() gives, whatever the buffer size, sample type,
/// source (path or bytes) or rewinds; and a long sound decodes in bounded memory.
@Suite("Streaming reads")
struct StreamingTests {
    /// One fixture of each packet shape: frame-sized PCM and G.711, WAV IMA blocks (with a `fact`
    /// shorter than the blocks, and streamed), IMA4 in AIFF-C and CAF, and CAF `pakt` priming.
    static let fixtures: [StreamingFile] = {
        let pick: [(Container, String, String, Int, String)] = [
            (.wave, "LEI16", "ffmpeg", 2, ""), (.wave, "UI8", "sox", 2, ""), (.aiff, "BEI24", "ffmpeg", 2, ""),
            (.caf, "LEF64", "ffmpeg", 2, ""), (.rf64, "LEF32", "ffmpeg", 6, ""), (.wave, "ulaw", "sox", 2, ""),
            (.aifc, "alaw", "python", 2, ""), (.wave, "ima-adpcm", "sox", 2, ""), (.wave, "ima-adpcm", "sox", 6, ""),
            (.wave, "ima-adpcm", "ffmpeg", 2, "streamed"), (.aifc, "ima4", "ffmpeg", 2, ""), (.caf, "ima4", "ffmpeg", 1, ""),
        ]
        let files = pick.map { container, encoding, tool, channels, variant in
            let fixture = Fixture.all.first {
                $0.container == container && $0.encoding == encoding && $0.recipe.tool == tool
                    && $0.signal.channelCount == channels && (variant.isEmpty || $0.variant == variant)
            }
            return StreamingFile.fixture(fixture!)
        }
        return files + [.cafWithPriming]
    }()

    @Test("Reads of 1, 63, 64, 65, 1000 frames and an odd mix equal readAll()", arguments: fixtures)
    func bufferSizes(_ file: StreamingFile) throws {
        let path = try file.path()
        let whole = try SoundDecoder(path: path).readAll()
        for sizes in [[1], [63], [64], [65], [1000], [7, 1, 130, 64, 3, 2049, 65, 1]] {
            let decoder = try SoundDecoder(path: path)
            let pieces = try Self.readInPieces(decoder, sizes: sizes)
            #expect(pieces == whole, "buffer sizes \(sizes): \(Mismatch.describe(pieces, whole, channels: decoder.description.channelCount, tolerance: 0))")
        }
    }

    @Test("Int16 output is the Float output × 32768 for 16-bit and compressed sources", arguments: fixtures.filter(\.isSixteenBitOrCompressed))
    func int16MatchesFloat(_ file: StreamingFile) throws {
        let path = try file.path()
        let floats = try SoundDecoder(path: path).readAll()
        let decoder = try SoundDecoder(path: path)
        let channels = decoder.description.channelCount
        var ints: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 333 * channels)
        while case let n = try buffer.withUnsafeMutableBufferPointer({ try decoder.read(into: $0) }), n > 0 {
            ints += buffer.prefix(n * channels)
        }
        #expect(ints.count == floats.count)
        let mismatches = zip(ints, floats).filter { Float($0) != $1 * 32768 }
        #expect(mismatches.isEmpty, "\(mismatches.count) samples differ, first \(String(describing: mismatches.first))")
    }

    @Test("Alternating Float and Int16 reads give the same samples", arguments: fixtures.filter(\.isSixteenBitOrCompressed))
    func alternatingSampleTypes(_ file: StreamingFile) throws {
        // A packet left half delivered as Float is finished as Int16 and the other way round.
        let path = try file.path()
        let whole = try SoundDecoder(path: path).readAll()
        let decoder = try SoundDecoder(path: path)
        let channels = decoder.description.channelCount
        var mixed: [Float] = []
        var round = 0
        while true {
            let frames = [5, 37, 64, 1, 300][round % 5]
            let n: Int
            if round % 2 == 0 {
                var buffer = [Float](repeating: 0, count: frames * channels)
                n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
                mixed += buffer.prefix(n * channels)
            } else {
                var buffer = [Int16](repeating: 0, count: frames * channels)
                n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
                mixed += buffer.prefix(n * channels).map { Float($0) / 32768 }
            }
            if n == 0 { break }
            round += 1
        }
        #expect(mixed == whole, "\(Mismatch.describe(mixed, whole, channels: channels, tolerance: 0))")
    }

    @Test("SoundDecoder(bytes:) equals SoundDecoder(path:)", arguments: fixtures)
    func bytesEqualPath(_ file: StreamingFile) throws {
        let path = try file.path()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let fromPath = try SoundDecoder(path: path)
        let fromBytes = try SoundDecoder(bytes: bytes)
        #expect(fromBytes.description == fromPath.description)
        #expect(try fromBytes.readAll() == fromPath.readAll())
    }

    @Test("rewind() starts again from the first frame", arguments: fixtures)
    func rewind(_ file: StreamingFile) throws {
        let path = try file.path()
        let decoder = try SoundDecoder(path: path)
        let first = try decoder.readAll()
        decoder.rewind()
        #expect(try decoder.readAll() == first, "after reading everything")
        decoder.rewind()
        _ = try Self.readInPieces(decoder, sizes: [65], limit: 1000)  // stop mid-packet
        decoder.rewind()
        #expect(try decoder.readAll() == first, "after reading part")
        #expect(try decoder.readAll().isEmpty, "at the end")
    }

    /// Reads with buffers of `sizes` frames in turn until the end (or `limit` frames).
    static func readInPieces(_ decoder: SoundDecoder, sizes: [Int], limit: Int = .max) throws -> [Float] {
        let channels = decoder.description.channelCount
        var result: [Float] = []
        var turn = 0
        while result.count / channels < limit {
            var buffer = [Float](repeating: .nan, count: sizes[turn % sizes.count] * channels)
            let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            if n == 0 { break }
            result += buffer.prefix(n * channels)
            turn += 1
        }
        return result
    }
}

/// A file for the streaming tests: a tool's fixture, or one derived from it.
enum StreamingFile: Sendable, CustomTestStringConvertible {
    case fixture(Fixture)
    /// ffmpeg's stereo CAF ima4 with a `pakt` of 100 priming frames.
    case cafWithPriming

    func path() throws -> String {
        switch self {
        case .fixture(let fixture): return try FixtureFactory.shared.path(of: fixture)
        case .cafWithPriming:
            let caf = try #require(Fixture.caf.first { $0.encoding == "ima4" && $0.signal == .stereo })
            return try IMA4Files.withPacketTable(caf, PacketTable(priming: 100, remainder: 12))
        }
    }

    var isSixteenBitOrCompressed: Bool {
        switch self {
        case .fixture(let f): ["LEI16", "BEI16", "UI8", "I8", "ulaw", "alaw", "ima-adpcm", "ima4"].contains(f.encoding)
        case .cafWithPriming: true
        }
    }

    var testDescription: String {
        switch self {
        case .fixture(let f): f.testDescription
        case .cafWithPriming: "CAFF × ima4 × ffmpeg (2 ch, pakt priming 100)"
        }
    }
}
