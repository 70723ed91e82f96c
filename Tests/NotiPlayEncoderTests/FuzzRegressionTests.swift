import NotiPlayDecoder
import NotiPlayEncoder
import Testing

/// What the round-trip fuzz target (Tests/Fuzz/Sources/FuzzRoundTrip) found.
@Suite struct FuzzRegressionTests {
    /// Input `23 00 00 01 B9 BF C4 8B 15 3C 4D EA 2A`: 2 frames of 3 channels as AIFF-C ima4
    /// read back as 64. Not a bug but the form's limit: AIFF-C COMM counts ima4 packets, so a
    /// length is whole packets (afconvert writes the same). CAF (pakt) and WAV (fact) keep it exact.
    @Test("AIFF-C ima4 keeps whole 64-frame packets; CAF and WAV IMA keep the exact length")
    func ima4LengthsByContainer() throws {
        let samples = [Float](repeating: 0.25, count: 6)
        for (container, encoding, frames) in [(Container.aifc, Encoding.appleIMA4, 64), (.caf, .appleIMA4, 2), (.wave, .imaADPCM, 2)] {
            let file = try SoundWriter.encode(samples, format: format(container, encoding, rate: 22050, channels: 3))
            let decoder = try SoundDecoder(bytes: file)
            #expect(decoder.description.frameCount == frames, "\(container)")
            #expect(try decoder.readAll().count == frames * 3)
        }
    }
}
