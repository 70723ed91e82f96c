import NotiPlayDecoder
import Testing

/// Reading in pieces must give exactly what one readAll gives: packets split across reads,
/// priming skipped once, the last packet cut at the right frame.
@Suite("Streaming reads")
struct StreamingTests {
    /// Stereo WAV IMA ADPCM: 3 full blocks, a short last block, and fact trimming inside it.
    static let wavIMA: [UInt8] = {
        var random = Nibbles(seed: 2024)
        var blocks: [UInt8] = []
        for i in 0..<3 {
            blocks += IMABytes.wavBlock([
                .init(predictor: Int16(i * 1000), stepIndex: UInt8(i * 7), nibbles: random.next(56)),
                .init(predictor: Int16(-i * 900), stepIndex: UInt8(i * 11), nibbles: random.next(56)),
            ])
        }
        blocks += IMABytes.wavBlock([
            .init(predictor: 5, stepIndex: 50, nibbles: random.next(16)),
            .init(predictor: -5, stepIndex: 60, nibbles: random.next(16)),
        ])
        // 3 × 57 + 17 = 188 frames in the data; fact says 180.
        return WAVBuilder().imaFmt(channels: 2, blockAlign: 64).fact(180).data(blocks).bytes
    }()

    /// Mono CAF ima4 with 37 priming and 11 remainder frames over 5 packets.
    static let cafIMA4: [UInt8] = {
        var random = Nibbles(seed: 77)
        let packets = (0..<5).flatMap { i in IMABytes.ima4Packet(header: UInt16(i * 0x0900 + 3 * i), nibbles: random.next(64)) }
        return CAFBuilder().ima4().pakt(packets: 5, validFrames: 320 - 37 - 11, priming: 37, remainder: 11).data(packets).bytes
    }()

    /// Stereo AIFC ima4, 3 packets.
    static let aifcIMA4: [UInt8] = {
        var random = Nibbles(seed: 5150)
        let packets = (0..<6).flatMap { i in IMABytes.ima4Packet(header: UInt16(i * 0x1280), nibbles: random.next(64)) }
        return AIFFBuilder(aifc: true).comm(channels: 2, frames: 3, compression: "ima4").ssnd(packets).bytes
    }()

    static let files: [(String, [UInt8])] = [("WAV IMA ADPCM", wavIMA), ("CAF ima4 with priming", cafIMA4), ("AIFC ima4", aifcIMA4)]

    @Test("the fixtures are what they claim")
    func fixtures() throws {
        let wav = try SoundDecoder(bytes: Self.wavIMA).description
        #expect(wav.frameCount == 180)
        let caf = try SoundDecoder(bytes: Self.cafIMA4).description
        #expect(caf.frameCount == 272)
        #expect(caf.primingFrames == 37)
        #expect(try SoundDecoder(bytes: Self.aifcIMA4).description.frameCount == 192)
    }

    @Test("reading with a 1-frame buffer equals readAll", arguments: [0, 1, 2])
    func oneFrameReads(file: Int) throws {
        let bytes = Self.files[file].1
        let whole = try SoundDecoder(bytes: bytes).readAll()
        let pieces = try readFloat(SoundDecoder(bytes: bytes), framesPerRead: 1)
        let d = try SoundDecoder(bytes: bytes).description
        #expect(whole.count == d.frameCount * d.channelCount)
        #expect(pieces == whole, "\(Self.files[file].0)")
    }

    @Test("odd buffer sizes (7, 63, 64, 65, 1000 frames) equal readAll", arguments: [0, 1, 2])
    func oddSizedReads(file: Int) throws {
        let bytes = Self.files[file].1
        let whole = try SoundDecoder(bytes: bytes).readAll()
        for frames in [7, 63, 64, 65, 1000] {
            #expect(try readFloat(SoundDecoder(bytes: bytes), framesPerRead: frames) == whole, "\(Self.files[file].0), \(frames) frames a read")
        }
    }

    @Test("Int16 reads of IMA equal the Float samples × 32768", arguments: [0, 1, 2])
    func int16IMA(file: Int) throws {
        let bytes = Self.files[file].1
        let floats = try SoundDecoder(bytes: bytes).readAll()
        for frames in [1, 64, 4096] {
            let ints = try readInt16(SoundDecoder(bytes: bytes), framesPerRead: frames)
            #expect(ints.map { Float($0) / 32768 } == floats, "\(Self.files[file].0), \(frames) frames a read")
        }
    }

    @Test("switching from Float to Int16 in the middle of a packet loses and repeats nothing")
    func mixedSampleTypes() throws {
        let bytes = Self.cafIMA4
        let expected = try readInt16(SoundDecoder(bytes: bytes), framesPerRead: 4096)
        let decoder = try SoundDecoder(bytes: bytes)
        var first = [Float](repeating: 0, count: 5)
        let n = try first.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        #expect(n == 5)
        let rest = try readInt16(decoder, framesPerRead: 3)
        #expect(first.map { Int16($0 * 32768) } + rest == expected)
    }

    @Test("Int16 reads of 16-bit PCM are the stored values")
    func int16PCM() throws {
        let values: [Int16] = [0, 1, -1, 32767, -32768, 12345]
        let file = WAVBuilder().fmt(channels: 2).data(int16Samples(values, .little)).bytes
        #expect(try readInt16(SoundDecoder(bytes: file), framesPerRead: 1) == values)
        #expect(try readInt16(SoundDecoder(bytes: file), framesPerRead: 100) == values)
    }

    @Test("Int16 reads of float PCM round to nearest and clip")
    func int16FromFloat() throws {
        // 1/65536 is half a step: rounds to even (0); 3/65536 rounds to 2.
        let values: [Float] = [0.5, -1, 1, 2, -2, 1.0 / 65536, 3.0 / 65536, -0.25]
        let file = WAVBuilder().fmt(tag: WAVBuilder.ieeeFloat, bits: 32).data(float32Samples(values, .little)).bytes
        #expect(try readInt16(SoundDecoder(bytes: file), framesPerRead: 3) == [16384, -32768, 32767, 32767, -32768, 0, 2, -8192])
    }

    @Test("Int16 reads of 8-bit and 24-bit PCM")
    func int16FromOtherWidths() throws {
        let eight = WAVBuilder().fmt(bits: 8).data([0x80, 0x00, 0xFF]).bytes
        #expect(try readInt16(SoundDecoder(bytes: eight), framesPerRead: 2) == [0, -32768, 32512])
        let twentyFour = WAVBuilder().fmt(bits: 24).data(int24Samples([0x7F_FFFF, -0x80_0000, 0x0001FF], .little)).bytes
        #expect(try readInt16(SoundDecoder(bytes: twentyFour), framesPerRead: 2) == [32767, -32768, 1])
    }

    @Test("more than one 64 KiB read-ahead chunk: PCM and IMA in pieces equal readAll")
    func manyChunks() throws {
        // 40,000 stereo 16-bit frames = 160,000 bytes.
        let values = (0..<80_000).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        let pcm = WAVBuilder().fmt(channels: 2).data(int16Samples(values, .little)).bytes
        let all = try SoundDecoder(bytes: pcm).readAll()
        #expect(all == full16(values.map(Int.init)))
        #expect(try readFloat(SoundDecoder(bytes: pcm), framesPerRead: 4097) == all)

        // 100 mono blocks of 1024 bytes (2041 frames each) = 102,400 bytes.
        var random = Nibbles(seed: 8)
        let blocks = (0..<100).flatMap { i in
            IMABytes.wavBlock([.init(predictor: Int16(i * 300 - 15000), stepIndex: UInt8(i % 89), nibbles: random.next(2040))])
        }
        let ima = WAVBuilder().imaFmt(channels: 1, blockAlign: 1024).data(blocks).bytes
        let imaAll = try SoundDecoder(bytes: ima).readAll()
        #expect(imaAll.count == 204_100)
        #expect(try readFloat(SoundDecoder(bytes: ima), framesPerRead: 1) == imaAll)
        #expect(try readFloat(SoundDecoder(bytes: ima), framesPerRead: 10_000) == imaAll)
    }

    @Test("rewind starts again at the first sound frame, after priming")
    func rewind() throws {
        let decoder = try SoundDecoder(bytes: Self.cafIMA4)
        let first = try decoder.readAll()
        #expect(decoder.framesRemaining == 0)
        decoder.rewind()
        #expect(try readFloat(decoder, framesPerRead: 10) == first)
    }

    @Test("reading after the end returns 0")
    func readAfterEnd() throws {
        let decoder = try SoundDecoder(bytes: Self.wavIMA)
        _ = try decoder.readAll()
        var buffer = [Float](repeating: 0, count: 64)
        #expect(try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) } == 0)
        #expect(try decoder.readAll().isEmpty)
    }
}
