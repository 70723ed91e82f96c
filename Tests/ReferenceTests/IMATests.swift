import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// IMA ADPCM beyond the matrix: which expansion each reference uses, and IMA4 in CAF (which
/// libsndfile cannot open) checked through the same packets in AIFF-C, which it can.
@Suite("IMA ADPCM references")
struct IMATests {
    static let wavIMA = Fixture.all.filter { $0.encoding == "ima-adpcm" && $0.signal.channelCount <= 2 }
    static let cafIMA4 = Fixture.caf.filter { $0.encoding == "ima4" }

    @Test("WAV IMA: ours is the shift-and-add form bit for bit; ffmpeg's is the multiply form", arguments: wavIMA)
    func wavExpansionForms(_ fixture: Fixture) throws {
        let path = try FixtureFactory.shared.path(of: fixture)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let blocks = try #require(RIFFChunks.imaBlocks(bytes))
        let shiftAndAdd = IMAForm.shiftAndAdd.decodeWAV(blocks.data, blockAlign: blocks.blockAlign, channels: blocks.channels)
        let multiply = IMAForm.multiply.decodeWAV(blocks.data, blockAlign: blocks.blockAlign, channels: blocks.channels)

        let ours = try SoundDecoder(path: path).readAll()
        // Ours may stop early (`fact`); every sample it gives is the reference form's.
        #expect(ours == Array(shiftAndAdd.prefix(ours.count)))
        #expect(shiftAndAdd.count - ours.count < blocks.blockAlign * 2)

        // The documentation of the ffmpeg tolerance: ffmpeg is exactly the multiply form.
        let ffmpeg = try FFmpeg.decode(path)
        #expect(ffmpeg.samples == multiply, "ffmpeg's adpcm_ima_wav no longer matches the multiply form")
        #expect(multiply != shiftAndAdd, "the fixture should tell the two forms apart")
    }

    @Test("CAF ima4 packets rewrapped in AIFF-C: libsndfile decodes them as we decode the CAF", arguments: cafIMA4)
    func cafRewrappedAsAIFC(_ fixture: Fixture) throws {
        let cafPath = try FixtureFactory.shared.path(of: fixture)
        let aifcPath = try IMA4Files.rewrappedAsAIFC(fixture)

        #expect(LibSndFile.openError(cafPath) != nil, "libsndfile now opens IMA4 in CAF: compare with it directly")
        let reference = try #require(LibSndFile.decode(aifcPath), "libsndfile refused \(aifcPath): \(LibSndFile.openError(aifcPath) ?? "")")
        let decoder = try SoundDecoder(path: cafPath)
        let ours = try decoder.readAll()
        #expect(reference.channelCount == decoder.description.channelCount)
        #expect(reference.frameCount == decoder.description.frameCount)
        #expect(ours == reference.samples, "\(Mismatch.describe(ours, reference.samples, channels: reference.channelCount, tolerance: 0))")
        // And our AIFF-C path agrees with our CAF path.
        #expect(try SoundDecoder(path: aifcPath).readAll() == ours)
    }

    @Test("CAF ima4 with a pakt: priming and remainder frames are dropped", arguments: [
        PacketTable(priming: 0, remainder: 42),  // afconvert's usual table: the last packet's padding
        PacketTable(priming: 100, remainder: 12),
        PacketTable(priming: 64, remainder: 64 + 42),  // a whole packet of each
    ])
    func cafPacketTable(_ table: PacketTable) throws {
        let fixture = try #require(Self.cafIMA4.first { $0.signal == .stereo })
        let path = try IMA4Files.withPacketTable(fixture, table)
        // libsndfile's decode of the same packets, all 483 of them.
        let all = try #require(LibSndFile.decode(try IMA4Files.rewrappedAsAIFC(fixture)))
        let valid = all.frameCount - table.priming - table.remainder
        let expected = Array(all.samples[(table.priming * 2)..<((table.priming + valid) * 2)])

        let decoder = try SoundDecoder(path: path)
        #expect(decoder.description.frameCount == valid)
        #expect(decoder.description.primingFrames == table.priming)
        #expect(try decoder.readAll() == expected)
    }
}

struct PacketTable: Sendable, CustomTestStringConvertible {
    var priming: Int
    var remainder: Int
    var testDescription: String { "priming \(priming), remainder \(remainder)" }
}

/// Files derived from the tools' IMA4 fixtures by the test's own chunk code.
enum IMA4Files {
    /// The CAF's `data` packets, byte for byte, in an AIFF-C written by `AIFCWriter`.
    static func rewrappedAsAIFC(_ fixture: Fixture) throws -> String {
        let caf = try FixtureFactory.shared.path(of: fixture)
        return try FixtureFactory.shared.once(fixture.fileName + ".rewrapped.aifc") { out in
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: caf)))
            let packets = try #require(CAFChunks.audioData(bytes))
            let aifc = AIFCWriter.ima4(packets: packets, channelCount: fixture.signal.channelCount, sampleRate: Signal.sampleRate)
            try Data(aifc).write(to: URL(fileURLWithPath: out))
        }
    }

    /// The CAF with a `pakt` chunk inserted before `data` (ffmpeg 5.1 writes none for ima4).
    static func withPacketTable(_ fixture: Fixture, _ table: PacketTable) throws -> String {
        let caf = try FixtureFactory.shared.path(of: fixture)
        return try FixtureFactory.shared.once(fixture.fileName + ".pakt-\(table.priming)-\(table.remainder).caf") { out in
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: caf)))
            let packets = (Signal.frameCount + 63) / 64
            let valid = packets * 64 - table.priming - table.remainder
            let edited = try #require(CAFChunks.insertingPacketTable(
                bytes, packets: Int64(packets), validFrames: Int64(valid),
                primingFrames: Int32(table.priming), remainderFrames: Int32(table.remainder)))
            try Data(edited).write(to: URL(fileURLWithPath: out))
        }
    }
}
