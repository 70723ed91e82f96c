import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// Float files holding NaN or ±infinity: those samples decode as 0 (silence) in every read path,
/// the decoder counts them, and `noti-play check` calls the file damaged.
@Suite("Non-finite float samples")
struct NonFiniteSampleTests {
    let folder = TemporaryDirectory("non-finite")

    struct Form: Sendable, CustomTestStringConvertible {
        var name: String
        var codec: String
        var bytesPerSample: Int
        var bigEndian: Bool
        var testDescription: String { name }
    }

    /// Every float form: 32 and 64 bits, both byte orders, in the three containers, by ffmpeg.
    static let forms: [Form] = [
        Form(name: "f32.wav", codec: "pcm_f32le", bytesPerSample: 4, bigEndian: false),
        Form(name: "f64.wav", codec: "pcm_f64le", bytesPerSample: 8, bigEndian: false),
        Form(name: "fl32.aifc", codec: "pcm_f32be", bytesPerSample: 4, bigEndian: true),
        Form(name: "fl64.aifc", codec: "pcm_f64be", bytesPerSample: 8, bigEndian: true),
        Form(name: "f32be.caf", codec: "pcm_f32be", bytesPerSample: 4, bigEndian: true),
        Form(name: "f32le.caf", codec: "pcm_f32le", bytesPerSample: 4, bigEndian: false),
        Form(name: "f64le.caf", codec: "pcm_f64le", bytesPerSample: 8, bigEndian: false),
    ]

    /// Sample indices written over: the first, some inside 8-sample vectors, some in the tail
    /// a vector loop leaves, and the last.
    static let damaged = [0, 3, 9, 17, 100, 157, 158, 159]
    static let patterns32: [UInt32] = [0x7FC0_0000, 0x7F80_0000, 0xFF80_0000, 0x7FA0_0001]  // NaN, +Inf, -Inf, signalling NaN
    static let patterns64: [UInt64] = [0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000, 0x7E50_0000_0000_0000]  // NaN, ±Inf, 1e300

    /// A stereo 80-frame tone made by ffmpeg, and a copy with `damaged` samples overwritten.
    func files(_ form: Form) throws -> (clean: [UInt8], damaged: [UInt8], path: String) {
        let path = folder.file(form.name)
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=0.5*sin(2*PI*440*t)|0.25*sin(2*PI*660*t):s=8000:d=0.01",
            "-c:a", form.codec, "-y", path,
        ])
        let clean = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let offset = try SoundDecoder(bytes: clean).description.dataOffset
        var damaged = clean
        for (n, index) in Self.damaged.enumerated() {
            let bytes: [UInt8]
            if form.bytesPerSample == 4 {
                let value = Self.patterns32[n % 4]
                bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            } else {
                let value = Self.patterns64[n % 4]
                bytes = (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            }
            let at = offset + index * form.bytesPerSample
            damaged.replaceSubrange(at..<at + form.bytesPerSample, with: form.bigEndian ? bytes.reversed() : bytes)
        }
        let damagedPath = folder.file("damaged-" + form.name)
        try Data(damaged).write(to: URL(fileURLWithPath: damagedPath))
        return (clean, damaged, damagedPath)
    }

    @Test(arguments: forms)
    func nonFiniteSamplesDecodeAsSilenceAndAreCounted(form: Form) throws {
        let (clean, damaged, _) = try files(form)
        let reference = try SoundDecoder(bytes: clean).readAll()
        #expect(reference.count == 160)
        var expected = reference
        for index in Self.damaged { expected[index] = 0 }

        // Float, whole and in reads of odd sizes (vector loop and scalar tail).
        for framesPerRead in [4096, 7, 1] {
            let decoder = try SoundDecoder(bytes: damaged)
            let samples = try readFloat(decoder, framesPerRead: framesPerRead)
            #expect(samples.allSatisfy { $0.isFinite })
            #expect(samples == expected, "reads of \(framesPerRead) frames")
            #expect(decoder.nonFiniteSampleCount == Self.damaged.count)
        }
        // Int16: silence is 0, not full scale.
        let decoder = try SoundDecoder(bytes: damaged)
        let shorts = try readInt16(decoder, framesPerRead: 13)
        let cleanShorts = try readInt16(try SoundDecoder(bytes: clean), framesPerRead: 13)
        var expectedShorts = cleanShorts
        for index in Self.damaged { expectedShorts[index] = 0 }
        #expect(shorts == expectedShorts)
        #expect(decoder.nonFiniteSampleCount == Self.damaged.count)
        decoder.rewind()
        #expect(decoder.nonFiniteSampleCount == 0)
    }

    @Test func checkCallsTheFileDamagedAndNamesTheCount() throws {
        let (_, _, path) = try files(Self.forms[0])
        let result = try TestTools.run(TestTools.notiPlay, ["check", path])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): not valid: it holds 8 samples that are not a number (NaN or infinite); they play as silence\n")
    }
}
