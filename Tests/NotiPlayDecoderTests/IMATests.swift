import NotiPlayDecoder
import Testing

// Expected samples below are worked out by hand with the reference shift-and-add expansion:
//   diff = step>>3, + step if bit 2, + step>>1 if bit 1, + step>>2 if bit 0; bit 3 is the sign;
//   index += [-1, -1, -1, -1, 2, 4, 6, 8][nibble & 7], clamped to 0...88.
// Step table entries used: [0]=7 [8]=16 [12]=23 [13]=25 [14]=28 [15]=31 [16]=34 [50]=876
// [51]=963 [52]=1060 [86]=27086 [87]=29794 [88]=32767.

/// WAV IMA ADPCM (format tag 0x0011).
@Suite("WAV IMA ADPCM")
struct WAVIMATests {
    static func monoFile(blocks: [[UInt8]], blockAlign: UInt16, fact: UInt32? = nil) -> [UInt8] {
        var wav = WAVBuilder().imaFmt(channels: 1, blockAlign: blockAlign)
        if let fact { wav = wav.fact(fact) }
        return wav.data(blocks.flatMap { $0 }).bytes
    }

    @Test(
        "frames per block = (blockAlign - 4·channels)·2/channels + 1",
        arguments: [(36, 1), (256, 1), (512, 2), (1024, 2), (2048, 1), (1024, 4)])
    func framesPerBlock(blockAlign: Int, channels: Int) throws {
        let expected = (blockAlign - 4 * channels) * 2 / channels + 1
        let file = WAVBuilder().imaFmt(channels: UInt16(channels), blockAlign: UInt16(blockAlign))
            .data([UInt8](repeating: 0, count: blockAlign)).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .imaADPCM)
        #expect(d.bytesPerPacket == blockAlign)
        #expect(d.framesPerPacket == expected)
        #expect(d.frameCount == expected)
        #expect(samples.count == expected * channels)
    }

    @Test("hand-computed first nibbles: predictor 0, index 0, nibbles 7 F 0 8 1 2 4 0")
    func handComputedNibbles() throws {
        let block = IMABytes.wavBlock([.init(predictor: 0, stepIndex: 0, nibbles: [7, 0xF, 0, 8, 1, 2, 4, 0])])
        #expect(block == [0, 0, 0, 0, 0xF7, 0x80, 0x21, 0x04])  // low nibble first
        let (d, samples) = try decode(Self.monoFile(blocks: [block], blockAlign: 8))
        #expect(d.frameCount == 9)
        // 7 at step 7:   0 + 7 + 3 + 1 = 11           →  11, index 8
        // F at step 16:  -(2 + 16 + 8 + 4) = -30      → -19, index 16
        // 0 at step 34:  34>>3 = 4                    → -15, index 15
        // 8 at step 31:  -(31>>3) = -3                → -18, index 14
        // 1 at step 28:  3 + 7 = 10                   →  -8, index 13
        // 2 at step 25:  3 + 12 = 15                  →   7, index 12
        // 4 at step 23:  2 + 23 = 25                  →  32, index 14
        // 0 at step 28:  3                            →  35
        // (The multiply form ((2n+1)·step)>>3 would give 13, not 11, for the first nibble.)
        #expect(samples == full16([0, 11, -19, -15, -18, -8, 7, 32, 35]))
    }

    @Test("the header predictor is the first output sample")
    func headerPredictorIsFirstSample() throws {
        let block = IMABytes.wavBlock([.init(predictor: -12345, stepIndex: 10, nibbles: Nibbles.take(8, seed: 1))])
        let (_, samples) = try decode(Self.monoFile(blocks: [block], blockAlign: 8))
        #expect(samples.count == 9)
        #expect(samples[0] == -12345.0 / 32768)
    }

    @Test("a header step index above 88 is clamped to 88")
    func stepIndexClamped() throws {
        let block = IMABytes.wavBlock([.init(predictor: 0, stepIndex: 200, nibbles: [0, 0, 7, 8, 0, 0, 0, 0])])
        let (_, samples) = try decode(Self.monoFile(blocks: [block], blockAlign: 8))
        // 0 at step 32767: 4095                                   →  4095, index 87
        // 0 at step 29794: 3724                                   →  7819, index 86
        // 7 at step 27086: 3385 + 27086 + 13543 + 6771 = 50785    → 58604, clamped to 32767, index 88
        // 8 at step 32767: -4095                                  → 28672, index 87
        // 0 at step 29794: 3724                                   → 32396
        #expect(Array(samples[0..<6]) == full16([0, 4095, 7819, 32767, 28672, 32396]))
    }

    @Test("fact trims the padded last block")
    func factTrims() throws {
        var random = Nibbles(seed: 7)
        let blocks = (0..<2).map { _ in IMABytes.wavBlock([.init(predictor: 500, stepIndex: 20, nibbles: random.next(64))]) }
        let untrimmed = try decode(Self.monoFile(blocks: blocks, blockAlign: 36))
        #expect(untrimmed.description.frameCount == 130)

        let (d, samples) = try decode(Self.monoFile(blocks: blocks, blockAlign: 36, fact: 100))
        #expect(d.frameCount == 100)
        #expect(samples == Array(untrimmed.samples[0..<100]))
    }

    @Test("fact claiming more frames than the data holds is ignored")
    func factTooLarge() throws {
        let block = IMABytes.wavBlock([.init(predictor: 0, stepIndex: 0, nibbles: Nibbles.take(64, seed: 3))])
        let (d, samples) = try decode(Self.monoFile(blocks: [block], blockAlign: 36, fact: 1_000_000))
        #expect(d.frameCount == 65)
        #expect(samples.count == 65)
    }

    @Test("a short last block decodes its header sample and whole groups")
    func shortLastBlock() throws {
        var random = Nibbles(seed: 11)
        let full = IMABytes.wavBlock([.init(predictor: 100, stepIndex: 5, nibbles: random.next(64))])
        // 4-byte header and 2 groups: 1 + 16 frames instead of 65.
        let short = IMABytes.wavBlock([.init(predictor: -2000, stepIndex: 30, nibbles: random.next(16))])
        #expect(short.count == 12)
        let (d, samples) = try decode(Self.monoFile(blocks: [full, short], blockAlign: 36))
        #expect(d.frameCount == 65 + 17)
        #expect(samples.count == 82)
        #expect(samples[65] == -2000.0 / 32768)

        // The short block decodes exactly as it would as a block of its own.
        let alone = try decode(Self.monoFile(blocks: [short], blockAlign: 12)).samples
        #expect(Array(samples[65...]) == alone)
    }

    @Test("trailing bytes too short for a block header are not frames")
    func trailingBytesIgnored() throws {
        let block = IMABytes.wavBlock([.init(predictor: 0, stepIndex: 0, nibbles: Nibbles.take(64, seed: 5))])
        let (d, samples) = try decode(Self.monoFile(blocks: [block, [1, 2, 3]], blockAlign: 36))
        #expect(d.frameCount == 65)
        #expect(samples.count == 65)
    }

    @Test("stereo: each channel's header, then 4-byte groups alternating left and right")
    func stereoInterleaving() throws {
        let block = IMABytes.wavBlock([
            .init(predictor: 100, stepIndex: 0, nibbles: [7, 0, 0, 0, 0, 0, 0, 0]),
            .init(predictor: -100, stepIndex: 0, nibbles: [0xF, 0, 0, 0, 0, 0, 0, 0]),
        ])
        #expect(block == [100, 0, 0, 0, 0x9C, 0xFF, 0, 0, 0x07, 0, 0, 0, 0x0F, 0, 0, 0])
        let file = WAVBuilder().imaFmt(channels: 2, blockAlign: 16).data(block).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 9)
        // Left:  7 at step 7: +11 → 111; then 0 at step 16: +2 → 113.
        // Right: F at step 7: -11 → -111; then 0 at step 16: +2 → -109.
        #expect(Array(samples[0..<6]) == full16([100, -100, 111, -111, 113, -109]))
    }

    @Test("stereo with many groups equals the two channels decoded as mono and interleaved")
    func stereoMatchesMono() throws {
        var random = Nibbles(seed: 42)
        let left = [IMABytes.Channel(predictor: 3000, stepIndex: 40, nibbles: random.next(56)),
                    IMABytes.Channel(predictor: -7, stepIndex: 3, nibbles: random.next(56))]
        let right = [IMABytes.Channel(predictor: -3000, stepIndex: 60, nibbles: random.next(56)),
                     IMABytes.Channel(predictor: 9, stepIndex: 88, nibbles: random.next(56))]
        // blockAlign 8 + 7 groups × 8 bytes = 64: 57 frames.
        let stereo = WAVBuilder().imaFmt(channels: 2, blockAlign: 64)
            .data(IMABytes.wavBlock([left[0], right[0]]) + IMABytes.wavBlock([left[1], right[1]])).bytes
        let monoLeft = try decode(Self.monoFile(blocks: left.map { IMABytes.wavBlock([$0]) }, blockAlign: 32)).samples
        let monoRight = try decode(Self.monoFile(blocks: right.map { IMABytes.wavBlock([$0]) }, blockAlign: 32)).samples
        let (d, samples) = try decode(stereo)
        #expect(d.frameCount == 114)
        #expect(monoLeft.count == 114)
        let interleaved = zip(monoLeft, monoRight).flatMap { [$0, $1] }
        #expect(samples == interleaved)
    }
}

/// Apple IMA4 (`ima4` in AIFF-C and CAF).
@Suite("Apple IMA4")
struct AppleIMA4Tests {
    static func aifc(packets: [[UInt8]], channels: Int16 = 1, commFrames: UInt32? = nil) -> [UInt8] {
        AIFFBuilder(aifc: true)
            .comm(channels: channels, frames: commFrames ?? UInt32(packets.count) / UInt32(channels), bits: 16, compression: "ima4")
            .ssnd(packets.flatMap { $0 })
            .bytes
    }

    @Test("header predictor = header & 0xFF80, step index = header & 0x7F, and it is not an output sample")
    func headerIsStateNotSample() throws {
        var nibbles = [UInt8](repeating: 0, count: 64)
        nibbles[2] = 7
        let (d, samples) = try decode(Self.aifc(packets: [IMABytes.ima4Packet(header: 0x1234, nibbles: nibbles)]))
        #expect(d.encoding == .appleIMA4)
        #expect(d.frameCount == 64)  // 64 frames a packet, not 65: no header sample
        // Predictor 0x1200 = 4608, index 0x34 = 52.
        // 0 at step 1060: +132 → 4740, index 51
        // 0 at step 963:  +120 → 4860, index 50
        // 7 at step 876:  109 + 876 + 438 + 219 = 1642 → 6502
        #expect(Array(samples[0..<3]) == full16([4740, 4860, 6502]))
    }

    @Test("a header step index above 88 (7 bits allow 127) is clamped")
    func stepIndexClamped() throws {
        let packet = IMABytes.ima4Packet(header: 0x007F, nibbles: [UInt8](repeating: 0, count: 64))
        let (_, samples) = try decode(Self.aifc(packets: [packet]))
        // 0 at step 32767: +4095; 0 at step 29794: +3724.
        #expect(Array(samples[0..<2]) == full16([4095, 7819]))
    }

    @Test("a negative header predictor keeps its sign")
    func negativePredictor() throws {
        // 0xFF80: predictor -128, index 0; nibble 0 at step 7 adds 7>>3 = 0.
        let packet = IMABytes.ima4Packet(header: 0xFF80, nibbles: [UInt8](repeating: 0, count: 64))
        let (_, samples) = try decode(Self.aifc(packets: [packet]))
        #expect(samples == full16([Int](repeating: -128, count: 64)))
    }

    @Test("stereo: the left packet, then the right packet, for each 64 frames")
    func stereoPackets() throws {
        var random = Nibbles(seed: 99)
        let l = (0..<2).map { IMABytes.ima4Packet(header: UInt16(0x1000 + $0 * 0x80), nibbles: random.next(64)) }
        let r = (0..<2).map { IMABytes.ima4Packet(header: UInt16(0xE000 + $0 * 0x80 + 9), nibbles: random.next(64)) }
        let stereo = try decode(Self.aifc(packets: [l[0], r[0], l[1], r[1]], channels: 2))
        let monoLeft = try decode(Self.aifc(packets: l)).samples
        let monoRight = try decode(Self.aifc(packets: r)).samples
        #expect(stereo.description.frameCount == 128)
        #expect(stereo.description.bytesPerPacket == 68)
        #expect(stereo.samples == zip(monoLeft, monoRight).flatMap { [$0, $1] })
    }
}
