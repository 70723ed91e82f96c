import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// A one-minute sound decodes through a small buffer without memory growing with its length.
@Suite("Bounded memory", .serialized)
struct MemoryTests {
    /// 60 s of stereo at 44.1 kHz: 21 MB as 32-bit float, and 21 MB of Float samples decoded.
    static let longFiles = ["wav", "caf"]

    static func longFile(_ ext: String) throws -> String {
        let source = try FixtureFactory.shared.once("long-60s.wav") { out in
            let signal = "aevalsrc=exprs='0.5*sin(2*PI*(200+30*t)*t)+0.1*(random(0)-0.5)|0.5*sin(2*PI*(2000-20*t)*t)':s=44100:d=60"
            try TestTools.runChecked("ffmpeg", ["-y", "-v", "error", "-f", "lavfi", "-i", signal, "-c:a", "pcm_f32le", out])
        }
        if ext == "wav" { return source }
        return try FixtureFactory.shared.once("long-60s-ima4.caf") { out in
            try TestTools.runChecked("ffmpeg", ["-y", "-v", "error", "-i", source, "-c:a", "adpcm_ima_qt", out])
        }
    }

    @Test("60 s decodes in bounded memory", arguments: longFiles)
    func boundedMemory(_ ext: String) throws {
        let path = try Self.longFile(ext)
        let decoder = try SoundDecoder(path: path)
        #expect(decoder.description.frameCount >= 60 * 44100)
        var buffer = [Float](repeating: 0, count: 4096 * 2)

        // Reset the peak so it measures this decode (other tests run alongside: the bound is
        // generous, yet far below the 21 MB that holding the file or the samples would take).
        let resetWorked = ProcessMemory.resetPeak()
        let before = try #require(ProcessMemory.residentKiB())
        var frames = 0
        var energy = 0.0
        while case let n = try buffer.withUnsafeMutableBufferPointer({ try decoder.read(into: $0) }), n > 0 {
            frames += n
            for s in buffer.prefix(2 * n) { energy += Double(s * s) }
        }
        let peak = try #require(ProcessMemory.peakResidentKiB())
        #expect(frames == decoder.description.frameCount)
        #expect(energy > 0)
        try #require(resetWorked, "the kernel would not reset VmHWM; the peak would not be this test's")
        #expect(peak - before < 12 * 1024, "peak resident memory grew by \(peak - before) KiB while decoding")
    }
}
