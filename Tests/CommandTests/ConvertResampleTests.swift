import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// `noti-play convert IN OUT -d FORMAT@RATE`: the real binary, its output decoded by ffmpeg and
/// by our decoder, compared with libsoxr's very-high-quality conversion of the same samples.
@Suite struct ConvertResampleTests {
    let folder = TemporaryDirectory("convert-resample")

    /// 1.3 s of stereo at `rate` written by ffmpeg as 32-bit float: a chord and a chirp up to
    /// `top` Hz (kept below 0.55 × the lower Nyquist, where soxr VHQ is flat too: see
    /// SoxrComparisonTests), under a sin² envelope so that neither end clicks.
    func source(rate: Int, top: Double) throws -> String {
        let path = folder.file("source-\(rate)-\(Int(top)).wav")
        let envelope = "sin(PI*t/1.3)*sin(PI*t/1.3)"
        let sweep = (top - 100) / 2.6  // instantaneous frequency 100 + 2 × sweep × t
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi",
            "-i", "aevalsrc=\(envelope)*(0.4*sin(2*PI*440*t)+0.3*sin(2*PI*1234*t))|\(envelope)*0.8*sin(2*PI*(100+\(sweep)*t)*t):s=\(rate):d=1.3",
            "-c:a", "pcm_f32le", path,
        ])
        return path
    }

    /// The source for a conversion between `from` and `to`.
    func source(from: Int, to: Int) throws -> String {
        try source(rate: from, top: 0.5 * Double(min(from, to)) / 2)
    }

    func convert(_ arguments: [String]) throws -> ProcessResult {
        try TestTools.run(TestTools.notiPlay, ["convert"] + arguments)
    }

    /// RMS of a − b in dB of full scale.
    func differenceDB(_ a: [Float], _ b: [Float]) -> Double {
        let sum = zip(a, b).reduce(0.0) { $0 + Double($1.0 - $1.1) * Double($1.0 - $1.1) }
        return 20 * log10((sum / Double(min(a.count, b.count))).squareRoot())
    }

    /// 44.1 → 48 kHz and back, and 8 → 48 kHz: the length is round(frames × out / in); ffmpeg and
    /// our decoder read the same samples at the new rate; they match soxr VHQ's conversion of
    /// the source's samples within −100 dB; `info` shows the new rate.
    @Test(arguments: [(44100, 48000), (48000, 44100), (8000, 48000)])
    func resamplesAndMatchesSoxr(from: Int, to: Int) throws {
        let input = try source(from: from, to: to)
        let out = folder.file("out-\(from)-\(to).wav")
        let result = try convert([input, out, "-d", "LEF32@\(to)"])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)

        let sourceSamples = try SoundDecoder(path: input).readAll()
        let ours = try SoundDecoder(path: out)
        #expect(ours.description.sampleRate == Double(to))
        let samples = try ours.readAll()
        let ffmpeg = try FFmpeg.decode(out)
        #expect(ffmpeg.sampleRate == to && ffmpeg.channelCount == 2)
        #expect(ffmpeg.samples == samples)
        let expectedFrames = Int((Double(sourceSamples.count / 2) * Double(to) / Double(from)).rounded())
        #expect(samples.count == expectedFrames * 2)

        let soxr = Soxr.resample(sourceSamples, channels: 2, from: from, to: to)
        #expect(soxr.count == samples.count)
        let difference = differenceDB(samples, soxr)
        #expect(difference < -100, "\(from)→\(to): \(difference) dB against soxr VHQ")

        let info = try TestTools.run(TestTools.notiPlay, ["info", out])
        #expect(info.stdoutText.split(separator: "\n").contains("Sample rate:     \(to) Hz"))
    }

    /// The encoder after the resampler: 16-bit AIFF at 22.05 kHz from 44.1 kHz float.
    @Test func resamplesIntoAnIntegerFormat() throws {
        let input = try source(from: 44100, to: 22050)
        let out = folder.file("out.aiff")
        let result = try convert([input, out, "-d", "BEI16@22050"])
        try #require(result.status == 0, "\(result.stderr)")
        let decoded = try FFmpeg.decode(out)
        #expect(decoded.sampleRate == 22050)
        let soxr = Soxr.resample(try SoundDecoder(path: input).readAll(), channels: 2, from: 44100, to: 22050)
        #expect(decoded.samples.count == soxr.count)
        // 16-bit quantization (about −101 dB RMS) is the difference now.
        #expect(differenceDB(decoded.samples, soxr) < -95)
    }

    /// Same rate: no conversion, the samples as they were, bit for bit.
    @Test func sameRateIsBitExact() throws {
        let input = try source(from: 44100, to: 48000)
        let out = folder.file("same.caf")
        let result = try convert([input, out, "-d", "LEF32@44100", "-r", "0"])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(try SoundDecoder(path: out).readAll() == SoundDecoder(path: input).readAll())
    }

    /// -r maps afconvert's 0-127 onto our designs: 127 and 96 are the default (high), 0 is low
    /// (a 70 dB filter, passband to 0.8 × Nyquist): same length, further from soxr VHQ.
    @Test func sourceQualityPicksTheFilter() throws {
        let input = try source(from: 44100, to: 48000)
        var outputs: [String: [Float]] = [:]
        for quality in ["default", "127", "96", "64", "0"] {
            let out = folder.file("q-\(quality).wav")
            let options = quality == "default" ? [] : ["--src-quality", quality]
            let result = try convert([input, out, "-d", "LEF32@48000"] + options)
            try #require(result.status == 0, "\(result.stderr)")
            outputs[quality] = try SoundDecoder(path: out).readAll()
        }
        #expect(outputs["127"] == outputs["default"] && outputs["96"] == outputs["default"])
        let soxr = Soxr.resample(try SoundDecoder(path: input).readAll(), channels: 2, from: 44100, to: 48000)
        let medium = differenceDB(outputs["64"]!, soxr)
        let low = differenceDB(outputs["0"]!, soxr)
        #expect(outputs["0"]!.count == soxr.count)
        #expect(medium < -80 && medium > differenceDB(outputs["default"]!, soxr))
        #expect(low < -50 && low > medium, "low \(low) dB, medium \(medium) dB")
    }

    /// A quality outside 0-127 is a usage error (64), one line, nothing written.
    @Test(arguments: ["128", "-1"])
    func refusesAQualityOutside0To127(value: String) throws {
        let input = try source(from: 44100, to: 48000)
        let out = folder.file("refused.wav")
        let result = try convert([input, out, "-d", "LEI16@48000", "--src-quality=\(value)"])
        #expect(result.status == 64)
        #expect(result.stderr == "noti-play: -r \(value) is not a converter quality; use 0 to 127\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
