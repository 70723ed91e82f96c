import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// Decoders disagree about the sign of AIFF-C ulaw/alaw, so G.711 is checked against more than
/// the matrix's libsndfile and ffmpeg: against Python's aifc/audioop, and against the signal the
/// writer was given (a sign error would correlate at -1; a wrong table would miss by far more
/// than G.711's quantization).
@Suite("G.711 sign and scale")
struct G711Tests {
    static let fixtures = Fixture.all.filter { ["ulaw", "alaw"].contains($0.encoding) }

    @Test("G.711 follows the signal the writer was given", arguments: fixtures)
    func followsSignal(_ fixture: Fixture) throws {
        let path = try FixtureFactory.shared.path(of: fixture)
        let ours = try SoundDecoder(path: path).readAll()
        let signal = try #require(LibSndFile.decode(try FixtureFactory.shared.path(of: fixture.signal)))
        #expect(ours.count == signal.samples.count)

        var dot = 0.0, oursSquared = 0.0, signalSquared = 0.0
        var worst: Float = 0
        for (a, b) in zip(ours, signal.samples) {
            dot += Double(a) * Double(b)
            oursSquared += Double(a) * Double(a)
            signalSquared += Double(b) * Double(b)
            worst = max(worst, abs(a - b))
        }
        let correlation = dot / (oursSquared * signalSquared).squareRoot()
        #expect(correlation > 0.999, "correlation with the signal \(correlation)")
        // G.711's coarsest step is 1024/32768 near full scale: half a step, plus the writers' own
        // rounding, stays under 0.02.
        #expect(worst < 0.02, "largest error against the signal \(worst)")
    }

    @Test("AIFF-C G.711 matches Python's aifc/audioop", arguments: fixtures.filter { $0.container == .aifc })
    func matchesPython(_ fixture: Fixture) throws {
        let path = try FixtureFactory.shared.path(of: fixture)
        let python = try PythonAIFC.decodeG711(path)
        let ours = try SoundDecoder(path: path).readAll()
        #expect(python.channelCount == fixture.signal.channelCount)
        #expect(ours == python.samples, "\(Mismatch.describe(ours, python.samples, channels: python.channelCount, tolerance: 0))")
    }

    @Test("Every µ-law and A-law code expands as libsndfile and ffmpeg expand it", arguments: ["ulaw", "alaw"])
    func everyCode(_ law: String) throws {
        // All 256 codes in one mono WAV and one AIFF-C (ffmpeg copies the codes, never re-encodes),
        // so no code goes untested.
        let codes = (0...255).map { UInt8($0) }
        let input = law == "ulaw" ? "mulaw" : "alaw"
        for container in ["wav", "aiff"] {
            let path = try FixtureFactory.shared.once("all-codes-\(law).\(container)") { out in
                let raw = out + ".raw"
                try Data(codes).write(to: URL(fileURLWithPath: raw))
                try TestTools.runChecked("ffmpeg", ["-y", "-v", "error", "-f", input, "-ar", "8000", "-ac", "1", "-i", raw, "-c:a", "copy", out])
            }
            let ours = try SoundDecoder(path: path).readAll()
            #expect(ours.count == 256)
            let libsndfile = try #require(LibSndFile.decode(path))
            #expect(ours == libsndfile.samples, "\(container): \(Mismatch.describe(ours, libsndfile.samples, channels: 1, tolerance: 0))")
            let ffmpeg = try FFmpeg.decode(path)
            #expect(ours == ffmpeg.samples, "\(container): \(Mismatch.describe(ours, ffmpeg.samples, channels: 1, tolerance: 0))")
        }
    }
}
