import NotiPlayDecoder
import Testing

/// AIFF and AIFF-C parsing: chunk order, SSND offsets, 80-bit rates, compression types.
@Suite("AIFF and AIFF-C")
struct AIFFTests {
    static let samples: [Int16] = [0, 1000, -1000, 32767, -32768]

    @Test("plain AIFF 16-bit: big-endian and described")
    func plainAIFF() throws {
        let file = AIFFBuilder().comm(channels: 1, frames: 5, bits: 16, rate: 44100).ssnd(int16Samples(Self.samples, .big)).bytes
        let (d, samples) = try decode(file)
        #expect(d.container == .aiff)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: true)))
        #expect(d.sampleRate == 44100)
        #expect(d.frameCount == 5)
        #expect(d.dataOffset == 12 + 26 + 16)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("COMM after SSND")
    func commAfterSSND() throws {
        let file = AIFFBuilder().ssnd(int16Samples(Self.samples, .big)).comm(frames: 5).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 5)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("SSND offset > 0 skips bytes before the first sample")
    func ssndOffset() throws {
        let file = AIFFBuilder().comm(frames: 5).ssnd(int16Samples(Self.samples, .big), offset: 6).bytes
        let (d, samples) = try decode(file)
        #expect(d.dataOffset == 12 + 26 + 16 + 6)
        #expect(d.dataByteCount == 10)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("SSND offset beyond its chunk is an error")
    func ssndOffsetBeyondChunk() {
        // The chunk claims 12 bytes: 8 of header, so an offset of 10 points past its end.
        let file = AIFFBuilder().comm(frames: 1).ssnd([0, 0], offset: 10, claimedSize: 12).bytes
        expectFailure(.malformed, saying: "SSND offset 10", file)
    }

    @Test("SSND larger than the file is clamped to the frames present")
    func ssndClamped() throws {
        // COMM says 5 frames; the file was cut after 2.
        let file = AIFFBuilder().comm(frames: 5).ssnd(int16Samples([1, 2], .big), claimedSize: 8 + 10).bytes
        let (d, samples) = try decode(file)
        #expect(d.dataByteCount == 4)
        #expect(d.frameCount == 2)
        #expect(samples == full16([1, 2]))
    }

    @Test("COMM's frame count is the length: trailing SSND bytes are not sound")
    func commFrameCountTrims() throws {
        let file = AIFFBuilder().comm(frames: 3).ssnd(int16Samples(Self.samples, .big)).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 3)
        #expect(samples == full16([0, 1000, -1000]))
    }

    @Test("unknown chunks and an odd-sized chunk with its pad byte are skipped")
    func unknownChunks() throws {
        let file = AIFFBuilder(aifc: true)
            .chunk("FVER", ByteWriter.make(.big) { $0.u32(0xA280_5140) })
            .chunk("NAME", Array("ding".utf8) + [0x21])  // 5 bytes: pad byte follows
            .comm(frames: 5, compression: "NONE")
            .chunk("ANNO", [1, 2, 3])
            .ssnd(int16Samples(Self.samples, .big))
            .chunk("MARK", [0, 0])
            .bytes
        #expect(try decode(file).samples == full16(Self.samples.map(Int.init)))
    }

    @Test("80-bit sample rates are parsed exactly", arguments: [8000.0, 11025, 44100, 48000, 96000, 1])
    func extendedRates(rate: Double) throws {
        let file = AIFFBuilder().comm(frames: 1, rate: rate).ssnd([0, 0]).bytes
        #expect(try SoundDecoder(bytes: file).description.sampleRate == rate)
    }

    @Test("80-bit rate 22254.545454… (the classic Mac rate) is parsed exactly")
    func macRate() throws {
        // 244800/11 Hz as the Mac stores it: exponent 0x400D (2^14), mantissa 0xADDD1745D1745D17.
        let bytes = extended80(signAndExponent: 0x400D, mantissa: 0xADDD_1745_D174_5D17)
        #expect(extended80(244800.0 / 11).prefix(2) == [0x40, 0x0D])
        let file = AIFFBuilder().comm(frames: 1, rateBytes: bytes).ssnd([0, 0]).bytes
        #expect(try SoundDecoder(bytes: file).description.sampleRate == 244800.0 / 11)
    }

    struct BadRate: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var bytes: [UInt8]
        var fragment: String
    }

    static let badRates: [BadRate] = [
        .init(testDescription: "NaN", bytes: extended80(signAndExponent: 0x7FFF, mantissa: 0xC000_0000_0000_0000), fragment: "sample rate"),
        .init(testDescription: "infinity", bytes: extended80(signAndExponent: 0x7FFF, mantissa: 0x8000_0000_0000_0000), fragment: "sample rate"),
        .init(testDescription: "zero", bytes: extended80(signAndExponent: 0, mantissa: 0), fragment: "sample rate"),
        .init(testDescription: "negative 44100", bytes: extended80(signAndExponent: 0xC00E, mantissa: 0xAC44_0000_0000_0000), fragment: "sample rate"),
        .init(testDescription: "2^16382 (largest exponent)", bytes: extended80(signAndExponent: 0x7FFE, mantissa: 0x8000_0000_0000_0000), fragment: "sample rate"),
        .init(testDescription: "2^40 Hz", bytes: extended80(1_099_511_627_776), fragment: "sample rate"),
        .init(testDescription: "2^-16382 (smallest)", bytes: extended80(signAndExponent: 0x0001, mantissa: 0x8000_0000_0000_0000), fragment: "sample rate"),
        .init(testDescription: "0.5 Hz", bytes: extended80(0.5), fragment: "sample rate"),
    ]

    @Test("NaN, infinite, zero, negative and absurd 80-bit rates are rejected", arguments: badRates)
    func badRatesRejected(rate: BadRate) {
        let file = AIFFBuilder().comm(frames: 1, rateBytes: rate.bytes).ssnd([0, 0]).bytes
        expectFailure(.malformed, saying: rate.fragment, file)
    }

    @Test("AIFF 8-bit PCM is signed")
    func signed8Bit() throws {
        let file = AIFFBuilder().comm(frames: 4, bits: 8).ssnd([0x00, 0x7F, 0x80, 0xFF]).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 8, isFloat: false, isBigEndian: true, isSigned: true)))
        #expect(samples == ([0, 127.0 / 128, -1, -1.0 / 128] as [Float]))
    }

    @Test("AIFF 24-bit PCM")
    func aiff24() throws {
        let file = AIFFBuilder().comm(channels: 2, frames: 1, bits: 24).ssnd(int24Samples([0x7F_FFFF, -0x80_0000], .big)).bytes
        #expect(try decode(file).samples == ([8_388_607.0 / 8_388_608, -1] as [Float]))
    }

    @Test("AIFF 12-bit samples are left-justified in 16 bits")
    func aiff12() throws {
        // 12-bit 0x7FF stored as 0x7FF0.
        let file = AIFFBuilder().comm(frames: 2, bits: 12).ssnd(int16Samples([0x7FF0, -0x8000], .big)).bytes
        #expect(try decode(file).samples == full16([0x7FF0, -0x8000]))
    }

    @Test("AIFC NONE and twos are big-endian integers", arguments: ["NONE", "twos"])
    func aifcBigEndian(type: String) throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 5, bits: 16, compression: type).ssnd(int16Samples(Self.samples, .big)).bytes
        let (d, samples) = try decode(file)
        #expect(d.container == .aifc)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("AIFC sowt is little-endian 16-bit")
    func sowt() throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 5, bits: 16, compression: "sowt").ssnd(int16Samples(Self.samples, .little)).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: false)))
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("AIFC sowt 24-bit is little-endian")
    func sowt24() throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 2, bits: 24, compression: "sowt").ssnd(int24Samples([0x123456, -2], .little)).bytes
        #expect(try decode(file).samples == ([Float(0x123456) / 8_388_608, -2.0 / 8_388_608] as [Float]))
    }

    @Test("AIFC in24 is big-endian 24-bit")
    func in24() throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 3, bits: 24, compression: "in24").ssnd(int24Samples([0x7F_FFFF, -0x80_0000, 256], .big)).bytes
        #expect(try decode(file).samples == ([8_388_607.0 / 8_388_608, -1, 256.0 / 8_388_608] as [Float]))
    }

    @Test("AIFC in32 is big-endian 32-bit")
    func in32() throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 3, bits: 32, compression: "in32").ssnd(int32Samples([.min, 1 << 30, -(1 << 16)], .big)).bytes
        #expect(try decode(file).samples == ([-1, 0.5, -1.0 / 32768] as [Float]))
    }

    @Test("AIFC fl32 and FL32 are big-endian 32-bit floats", arguments: ["fl32", "FL32"])
    func fl32(type: String) throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 3, bits: 32, compression: type).ssnd(float32Samples([0.5, -0.25, 1], .big)).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 32, isFloat: true, isBigEndian: true)))
        #expect(samples == [0.5, -0.25, 1])
    }

    @Test("AIFC fl64 and FL64 are big-endian 64-bit floats", arguments: ["fl64", "FL64"])
    func fl64(type: String) throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 2, bits: 64, compression: type).ssnd(float64Samples([0.75, -0.125], .big)).bytes
        #expect(try decode(file).samples == [0.75, -0.125])
    }

    @Test("AIFC ulaw and ULAW are G.711 µ-law", arguments: ["ulaw", "ULAW"])
    func ulaw(type: String) throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 4, bits: 16, compression: type).ssnd([0xFF, 0x7F, 0x00, 0x80]).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .muLaw)
        #expect(samples == full16([0, 0, -32124, 32124]))
    }

    @Test("AIFC alaw and ALAW are G.711 A-law", arguments: ["alaw", "ALAW"])
    func alaw(type: String) throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 4, bits: 16, compression: type).ssnd([0xD5, 0x55, 0xAA, 0x2A]).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .aLaw)
        #expect(samples == full16([8, -8, 32256, -32256]))
    }

    @Test("AIFC 'raw ' is unsigned 8-bit")
    func raw() throws {
        let file = AIFFBuilder(aifc: true).comm(frames: 3, bits: 8, compression: "raw ").ssnd([0x80, 0x00, 0xFF]).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 8, isFloat: false, isBigEndian: true, isSigned: false)))
        #expect(samples == ([0, -1, 127.0 / 128] as [Float]))
    }

    @Test("AIFC ima4: COMM's numSampleFrames counts 64-frame packets")
    func ima4CountsPackets() throws {
        var random = Nibbles(seed: 5)
        let packets = (0..<3).map { _ in IMABytes.ima4Packet(header: 0x0010, nibbles: random.next(64)) }
        // COMM says 3, the number of packets; the sound is 192 frames.
        let file = AIFFBuilder(aifc: true).comm(frames: 3, bits: 16, compression: "ima4").ssnd(packets.flatMap { $0 }).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .appleIMA4)
        #expect(d.bytesPerPacket == 34)
        #expect(d.framesPerPacket == 64)
        #expect(d.frameCount == 192)
        #expect(samples.count == 192)
    }

    @Test("AIFC ima4: COMM's packet count trims packets beyond it")
    func ima4CommTrims() throws {
        let packets = (0..<3).map { _ in IMABytes.ima4Packet(header: 0, nibbles: [UInt8](repeating: 1, count: 64)) }
        let file = AIFFBuilder(aifc: true).comm(frames: 2, bits: 16, compression: "ima4").ssnd(packets.flatMap { $0 }).bytes
        #expect(try decode(file).description.frameCount == 128)
    }

    @Test("AIFC unknown compression type is unsupported and named")
    func unknownCompression() {
        let file = AIFFBuilder(aifc: true).comm(frames: 1, bits: 16, compression: "QDM2").ssnd([0, 0]).bytes
        expectFailure(.unsupported, saying: "'QDM2'", file)
    }

    @Test("AIFF with no SSND has no frames")
    func noSSND() throws {
        let file = AIFFBuilder().comm(frames: 0).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 0)
        #expect(samples.isEmpty)
    }
}
