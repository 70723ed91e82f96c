import NotiPlayDecoder
import Testing

/// WAV container parsing: chunk order, pad bytes, sizes that lie, RIFX and RF64.
@Suite("WAV container")
struct WAVContainerTests {
    static let samples: [Int16] = [0, 1000, -1000, 32767, -32768, 7]
    static let payload = int16Samples(samples, .little)

    @Test("plain 16-bit mono PCM: description and samples")
    func plainPCM() throws {
        let file = WAVBuilder().fmt(channels: 1, rate: 8000, bits: 16).data(Self.payload).bytes
        let (d, samples) = try decode(file)
        #expect(d.container == .wave)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: false)))
        #expect(d.sampleRate == 8000)
        #expect(d.channelCount == 1)
        #expect(d.frameCount == 6)
        #expect(d.dataOffset == 12 + 8 + 16 + 8)
        #expect(d.dataByteCount == 12)
        #expect(d.duration == 6.0 / 8000)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("fmt after data")
    func fmtAfterData() throws {
        let file = WAVBuilder().data(Self.payload).fmt(channels: 1, bits: 16).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 6)
        #expect(d.dataOffset == 12 + 8)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("odd-sized unknown chunk is followed by a pad byte before data")
    func oddChunkPadByte() throws {
        // 'odd ' holds 3 bytes, so a pad byte follows; a parser that forgets it lands one byte
        // short of 'data' and never finds it.
        let file = WAVBuilder().fmt().chunk("odd ", [1, 2, 3]).data(Self.payload).bytes
        let (d, samples) = try decode(file)
        #expect(d.dataOffset == 12 + 24 + 8 + 4 + 8)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("odd-sized data chunk: the pad byte is not a sample")
    func oddDataChunk() throws {
        // 8-bit stereo needs 2 bytes a frame; 3 bytes of data is one frame and a stray byte.
        let file = WAVBuilder().fmt(channels: 2, bits: 8).data([0x80, 0xFF, 0x00]).chunk("LIST", [0, 0, 0, 0]).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 1)
        #expect(samples == ([0, 127.0 / 128] as [Float]))
    }

    @Test("unknown chunks (LIST, JUNK, bext) before and between fmt and data are skipped")
    func unknownChunksSkipped() throws {
        let list = ByteWriter.make(.little) { w in
            w.fourCC("INFO")
            w.chunk("INAM", Array("ding\0".utf8))  // odd: padded inside the LIST too
        }
        let file = WAVBuilder()
            .chunk("JUNK", [UInt8](repeating: 0, count: 28))
            .fmt()
            .chunk("LIST", list)
            .chunk("bext", [UInt8](repeating: 0x41, count: 17))
            .data(Self.payload)
            .chunk("LIST", list)
            .bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 6)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("data size 0xFFFFFFFF, or 0 in a streamed file, means to the end of the file",
          arguments: [(UInt32(0), UInt32(0)), (0, 0xFFFF_FFFF), (0xFFFF_FFFF, 0xFFFF_FFFF), (0xFFFF_FFFF, nil)])
    func streamedDataSize(claimed: UInt32, riffSize: UInt32?) throws {
        // A recorder that never came back to patch the sizes leaves them at 0 or 0xFFFFFFFF.
        var builder = WAVBuilder()
        if let riffSize { builder = builder.riffSize(riffSize) }
        let file = builder.fmt().data(Self.payload, claimedSize: claimed).bytes
        let (d, samples) = try decode(file)
        #expect(d.dataByteCount == 12)
        #expect(d.frameCount == 6)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("data size 0 in a file whose RIFF size is right is an empty data chunk")
    func emptyDataChunk() throws {
        // What follows is another chunk, not samples: playing it would be noise.
        let file = WAVBuilder().fmt().data([]).chunk("LIST", Array("INFOISFT\u{8}\u{0}\u{0}\u{0}noti-pla".utf8)).bytes
        let (d, samples) = try decode(file)
        #expect(d.dataByteCount == 0)
        #expect(d.frameCount == 0)
        #expect(samples.isEmpty)
    }

    @Test("data size larger than the file is clamped to what is there")
    func dataSizeClamped() throws {
        let file = WAVBuilder().fmt().data(Self.payload, claimedSize: 1_000_000).bytes
        let (d, samples) = try decode(file)
        #expect(d.dataByteCount == 12)
        #expect(d.frameCount == 6)
        #expect(samples.count == 6)
    }

    @Test("data size larger than the file, cut inside a frame: only whole frames")
    func dataSizeClampedMidFrame() throws {
        // 13 bytes of data; the builder's pad byte is dropped so the file ends mid-sample.
        let file = Array(WAVBuilder().fmt().data(Self.payload + [0x12], claimedSize: 100).bytes.dropLast())
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 6)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("RF64 with ds64 and data size 0xFFFFFFFF takes the size from ds64")
    func rf64() throws {
        // ds64 says 8 bytes of the 12 are data; a LIST chunk follows, which must not be decoded.
        let file = WAVBuilder(.rf64)
            .ds64(riffSize: 0, dataSize: 8, sampleCount: 4)
            .fmt()
            .data(Array(Self.payload[0..<8]), claimedSize: 0xFFFF_FFFF)
            .chunk("LIST", int16Samples([1111, 2222], .little))
            .bytes
        let (d, samples) = try decode(file)
        #expect(d.container == .rf64)
        #expect(d.dataByteCount == 8)
        #expect(d.frameCount == 4)
        #expect(samples == full16([0, 1000, -1000, 32767]))
    }

    @Test("RF64 data size 0xFFFFFFFF without ds64 is an error")
    func rf64WithoutDS64() {
        let file = WAVBuilder(.rf64).fmt().data(Self.payload, claimedSize: 0xFFFF_FFFF).bytes
        expectFailure(.malformed, saying: "ds64", file)
    }

    @Test("RIFX: big-endian sizes, fmt fields and 16-bit samples")
    func rifx() throws {
        let file = WAVBuilder(.rifx).fmt(channels: 2, rate: 22050, bits: 16)
            .data(int16Samples([256, -2, 1, 32767], .big)).bytes
        let (d, samples) = try decode(file)
        #expect(d.container == .rifx)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: true)))
        #expect(d.sampleRate == 22050)
        #expect(d.channelCount == 2)
        #expect(d.frameCount == 2)
        #expect(samples == full16([256, -2, 1, 32767]))
    }
}

/// WAV sample formats: each stored form and the Float it must become.
@Suite("WAV sample formats")
struct WAVSampleFormatTests {
    @Test("8-bit PCM is unsigned: 0x80 is silence, 0x00 is -1.0, 0xFF is 127/128")
    func unsigned8Bit() throws {
        let file = WAVBuilder().fmt(bits: 8).data([0x80, 0x00, 0xFF, 0x81, 0x7F]).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 8, isFloat: false, isBigEndian: false, isSigned: false)))
        #expect(samples == ([0, -1, 127.0 / 128, 1.0 / 128, -1.0 / 128] as [Float]))
    }

    @Test("24-bit signed extremes")
    func signed24Bit() throws {
        let values: [Int32] = [0x7F_FFFF, -0x80_0000, 1, -1, 0]
        let file = WAVBuilder().fmt(bits: 24).data(int24Samples(values, .little)).bytes
        let (d, samples) = try decode(file)
        #expect(d.bytesPerPacket == 3)
        #expect(samples == ([8_388_607.0 / 8_388_608, -1, 1.0 / 8_388_608, -1.0 / 8_388_608, 0] as [Float]))
    }

    @Test("32-bit signed extremes, as Float and as Int16")
    func signed32Bit() throws {
        let values: [Int32] = [.max, .min, 1 << 16, -(1 << 16), 0]
        let file = WAVBuilder().fmt(bits: 32).data(int32Samples(values, .little)).bytes
        let (_, samples) = try decode(file)
        // Int32.max rounds to 2^31 in a Float: full scale, as libsndfile and FFmpeg give it.
        #expect(samples == ([1, -1, 1.0 / 32768, -1.0 / 32768, 0] as [Float]))
        let ints = try readInt16(try SoundDecoder(bytes: file), framesPerRead: 64)
        #expect(ints == [32767, -32768, 1, -1, 0])
    }

    @Test("32-bit float")
    func float32() throws {
        let values: [Float] = [0.5, -1, 0.25, 1.5, -0.0001]
        let file = WAVBuilder().fmt(tag: WAVBuilder.ieeeFloat, bits: 32).data(float32Samples(values, .little)).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 32, isFloat: true, isBigEndian: false)))
        #expect(samples == values)  // out-of-range floats pass through unclipped
    }

    @Test("64-bit float")
    func float64() throws {
        let values: [Double] = [0.5, -0.75, 0.001, -1]
        let file = WAVBuilder().fmt(tag: WAVBuilder.ieeeFloat, channels: 2, bits: 64).data(float64Samples(values, .little)).bytes
        let (d, samples) = try decode(file)
        #expect(d.bytesPerPacket == 16)
        #expect(d.frameCount == 2)
        #expect(samples == values.map { Float($0) })
    }

    @Test("RIFX 32-bit float is big-endian")
    func rifxFloat() throws {
        let file = WAVBuilder(.rifx).fmt(tag: WAVBuilder.ieeeFloat, bits: 32).data(float32Samples([0.125, -0.5], .big)).bytes
        #expect(try decode(file).samples == [0.125, -0.5])
    }

    @Test("WAVE_FORMAT_EXTENSIBLE with a PCM sub-format")
    func extensiblePCM() throws {
        let file = WAVBuilder().extensibleFmt(subFormat: WAVBuilder.pcm, channels: 2, bits: 16)
            .data(int16Samples([100, -100, 200, -200], .little)).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: false)))
        #expect(samples == full16([100, -100, 200, -200]))
    }

    @Test("WAVE_FORMAT_EXTENSIBLE 24 valid bits in a 32-bit container")
    func extensible24In32() throws {
        let file = WAVBuilder().extensibleFmt(subFormat: WAVBuilder.pcm, bits: 32, validBits: 24)
            .data(int32Samples([0x7FFF_FF00, -0x8000_0000], .little)).bytes
        let (d, samples) = try decode(file)
        #expect(d.bytesPerPacket == 4)
        #expect(samples == ([8_388_607.0 / 8_388_608, -1] as [Float]))
    }

    @Test("WAVE_FORMAT_EXTENSIBLE with a float sub-format")
    func extensibleFloat() throws {
        let file = WAVBuilder().extensibleFmt(subFormat: WAVBuilder.ieeeFloat, bits: 32)
            .data(float32Samples([0.5, -0.25], .little)).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 32, isFloat: true, isBigEndian: false)))
        #expect(samples == [0.5, -0.25])
    }

    @Test("WAVE_FORMAT_EXTENSIBLE with an IMA ADPCM sub-format")
    func extensibleIMA() throws {
        let block = IMABytes.wavBlock([.init(predictor: 1234, stepIndex: 0, nibbles: [UInt8](repeating: 0, count: 32))])
        let file = WAVBuilder().extensibleFmt(subFormat: WAVBuilder.imaADPCM, bits: 4, blockAlign: 20).data(block).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .imaADPCM)
        #expect(d.framesPerPacket == 33)
        #expect(samples.count == 33)
        #expect(samples.first == 1234.0 / 32768)
    }

    @Test("µ-law known codes: 0xFF and 0x7F are 0, 0x00 is -32124, 0x80 is +32124")
    func muLaw() throws {
        // ITU-T G.711: code bits are inverted; 0x00 is the largest negative step (-8031 in 14-bit
        // units, ×4 = -32124), 0x80 the largest positive; 0xFF and 0x7F are the two zeros.
        let file = WAVBuilder().fmt(tag: WAVBuilder.muLaw, bits: 8).data([0xFF, 0x7F, 0x00, 0x80, 0xFE, 0x7E]).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .muLaw)
        // 0xFE: positive, segment 0, mantissa 1 → (2·1 + 33)·1 − 33 = 2 in 14-bit units, 8 in 16-bit.
        #expect(samples == full16([0, 0, -32124, 32124, 8, -8]))
        #expect(try readInt16(SoundDecoder(bytes: file), framesPerRead: 3) == [0, 0, -32124, 32124, 8, -8])
    }

    @Test("A-law known codes: 0xD5 is +8, 0x55 is -8, 0xAA is +32256, 0x2A is -32256")
    func aLaw() throws {
        // ITU-T G.711: even bits inverted (XOR 0x55); 0xD5 → 0x80: sign set, segment 0, step 0 →
        // +1 in 13-bit units (×8 = +8). 0xAA → 0xFF: segment 7, step 15 → 4032 (×8 = 32256).
        let file = WAVBuilder().fmt(tag: WAVBuilder.aLaw, bits: 8).data([0xD5, 0x55, 0xAA, 0x2A, 0xD4]).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .aLaw)
        // 0xD4 → 0x81: segment 0, step 1 → (2·1 + 1)·8 = 24.
        #expect(samples == full16([8, -8, 32256, -32256, 24]))
    }
}
