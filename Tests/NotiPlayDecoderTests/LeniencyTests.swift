import NotiPlayDecoder
import Testing

/// Where a damaged part of a file need not cost the sound, and where it must.
@Suite("Leniency") struct LeniencyTests {
    static let pcm: [UInt8] = [0x10, 0x00, 0xF0, 0x00, 0x7F, 0xFF, 0x80, 0x00]  // 4096, -4096, 32767, -32768 big-endian

    @Test("a CAF chunk after the audio that claims more than the file holds is ignored")
    func damagedChunkAfterCAFData() throws {
        let file = CAFBuilder().lpcm(bits: 16).data(Self.pcm).chunk("info", [0, 0, 0, 1], claimedSize: 1_000_000).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 4)
        #expect(samples == [4096, -4096, 32767, -32768].map { Float($0) / 32768 })
    }

    @Test("a CAF chunk claiming too much before 'desc' means the file was cut")
    func damagedChunkBeforeCAFDesc() {
        let file = CAFBuilder().chunk("free", [0, 0], claimedSize: 1_000_000).lpcm(bits: 16).data(Self.pcm).bytes
        expectFailure(.truncated, saying: "'desc'", file)
    }

    @Test("a WAV 'fact' chunk shorter than 4 bytes is ignored")
    func shortFactIgnored() throws {
        let file = WAVBuilder().fmt().fact(0).chunk("fact", [1, 2]).data([0, 0x40, 0, 0xC0]).bytes
        // Two facts would be odd; the point is that neither the short one nor a 0 breaks PCM.
        let (d, samples) = try decode(WAVBuilder().fmt().chunk("fact", [1, 2]).data([0, 0x40, 0, 0xC0]).bytes)
        #expect(d.frameCount == 2)
        #expect(samples == [0.5, -0.5])
        #expect(try decode(file).description.frameCount == 2)
    }

    @Test("AIFF whose COMM counts frames but which has no SSND is an error")
    func aiffWithoutSSND() {
        expectFailure(.malformed, saying: "SSND", AIFFBuilder().comm(frames: 100).bytes)
    }

    @Test("AIFF whose COMM counts no frames and has no SSND is an empty sound")
    func emptyAIFF() throws {
        let (d, samples) = try decode(AIFFBuilder().comm(frames: 0).bytes)
        #expect(d.frameCount == 0)
        #expect(samples.isEmpty)
    }
}
