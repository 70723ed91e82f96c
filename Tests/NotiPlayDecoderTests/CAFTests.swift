import NotiPlayDecoder
import Testing

/// CAF parsing: desc, data's edit count and size -1, pakt, skipped chunks.
@Suite("CAF")
struct CAFTests {
    static let samples: [Int16] = [0, 1000, -1000, 32767, -32768]

    /// `count` packets of mono IMA4 with varied nibbles and predictors.
    static func ima4Packets(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
        var random = Nibbles(seed: seed)
        return (0..<count).flatMap { i in
            IMABytes.ima4Packet(header: UInt16(truncatingIfNeeded: i * 0x1180 + 20), nibbles: random.next(64))
        }
    }

    @Test("lpcm 16-bit big-endian (flags 0)")
    func lpcm16BigEndian() throws {
        let file = CAFBuilder().lpcm(bits: 16, rate: 44100).data(int16Samples(Self.samples, .big)).bytes
        let (d, samples) = try decode(file)
        #expect(d.container == .caf)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: true)))
        #expect(d.sampleRate == 44100)
        #expect(d.frameCount == 5)
        #expect(d.dataOffset == 8 + 12 + 32 + 12 + 4)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("lpcm 16-bit little-endian (flag bit 1)")
    func lpcm16LittleEndian() throws {
        let file = CAFBuilder().lpcm(bits: 16, channels: 1, littleEndian: true).data(int16Samples(Self.samples, .little)).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 16, isFloat: false, isBigEndian: false)))
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("lpcm 32-bit float, big- and little-endian (flag bit 0)", arguments: [false, true])
    func lpcmFloat32(littleEndian: Bool) throws {
        let order: ByteWriter.Order = littleEndian ? .little : .big
        let file = CAFBuilder().lpcm(bits: 32, channels: 2, float: true, littleEndian: littleEndian)
            .data(float32Samples([0.5, -0.5, 0.25, -1], order)).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .linearPCM(.init(bitsPerSample: 32, isFloat: true, isBigEndian: !littleEndian)))
        #expect(d.frameCount == 2)
        #expect(samples == [0.5, -0.5, 0.25, -1])
    }

    @Test("lpcm 64-bit float")
    func lpcmFloat64() throws {
        let file = CAFBuilder().lpcm(bits: 64, float: true).data(float64Samples([0.125, -0.875], .big)).bytes
        #expect(try decode(file).samples == [0.125, -0.875])
    }

    @Test("lpcm 24-bit")
    func lpcm24() throws {
        let file = CAFBuilder().lpcm(bits: 24).data(int24Samples([0x7F_FFFF, -0x80_0000, -1], .big)).bytes
        #expect(try decode(file).samples == ([8_388_607.0 / 8_388_608, -1, -1.0 / 8_388_608] as [Float]))
    }

    @Test("lpcm 8-bit is signed")
    func lpcm8() throws {
        let file = CAFBuilder().lpcm(bits: 8).data([0x00, 0x7F, 0x80]).bytes
        #expect(try decode(file).samples == ([0, 127.0 / 128, -1] as [Float]))
    }

    @Test("data size -1 means to the end of the file")
    func dataToEndOfFile() throws {
        let file = CAFBuilder().lpcm(bits: 16).data(int16Samples(Self.samples, .big), claimedSize: -1).bytes
        let (d, samples) = try decode(file)
        #expect(d.dataByteCount == 10)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("data's 4-byte edit count is skipped, not decoded")
    func editCountSkipped() throws {
        // An edit count that would decode as two loud samples if it were taken for audio.
        let file = CAFBuilder().lpcm(bits: 16).data(int16Samples([5, 6], .big), editCount: 0x7FFF_8000).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 2)
        #expect(samples == full16([5, 6]))
    }

    @Test("data size larger than the file is clamped")
    func dataSizeClamped() throws {
        let file = CAFBuilder().lpcm(bits: 16).data(int16Samples(Self.samples, .big), claimedSize: 4 + 1000).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 5)
        #expect(samples.count == 5)
    }

    @Test("chan, kuki, free, info and strg chunks are skipped, before and after data")
    func otherChunksSkipped() throws {
        let info = ByteWriter.make(.big) { w in
            w.u32(1)
            w.raw(Array("title\0ding\0".utf8))
        }
        let file = CAFBuilder()
            .lpcm(bits: 16)
            .chunk("chan", [UInt8](repeating: 0, count: 12))
            .chunk("kuki", [1, 2, 3])  // odd: CAF has no pad bytes
            .chunk("free", [UInt8](repeating: 0, count: 7))
            .chunk("info", info)
            .data(int16Samples(Self.samples, .big))
            .chunk("strg", [0, 0, 0, 0])
            .chunk("free", [0])
            .bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 5)
        #expect(samples == full16(Self.samples.map(Int.init)))
    }

    @Test("ima4 without pakt: whole packets of 64 frames")
    func ima4NoPakt() throws {
        let file = CAFBuilder().ima4().data(Self.ima4Packets(3)).bytes
        let (d, samples) = try decode(file)
        #expect(d.encoding == .appleIMA4)
        #expect(d.frameCount == 192)
        #expect(d.primingFrames == 0)
        #expect(samples.count == 192)
    }

    @Test("pakt priming and remainder frames trim ima4 output")
    func paktTrimsIMA4() throws {
        let audio = Self.ima4Packets(3)
        let raw = try decode(CAFBuilder().ima4().data(audio).bytes).samples
        // 3 packets = 192 frames: 10 priming, 162 valid, 20 remainder.
        let file = CAFBuilder().ima4().pakt(packets: 3, validFrames: 162, priming: 10, remainder: 20).data(audio).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 162)
        #expect(d.primingFrames == 10)
        #expect(samples.count == 162)
        #expect(samples.first == raw[10])
        #expect(samples == Array(raw[10..<172]))
    }

    @Test("pakt priming longer than a packet")
    func paktLongPriming() throws {
        let audio = Self.ima4Packets(4, seed: 9)
        let raw = try decode(CAFBuilder().ima4().data(audio).bytes).samples
        let file = CAFBuilder().ima4().pakt(packets: 4, validFrames: 150, priming: 100, remainder: 6).data(audio).bytes
        let (d, samples) = try decode(file)
        #expect(d.frameCount == 150)
        #expect(samples == Array(raw[100..<250]))
    }

    @Test("pakt left at zero by a writer says nothing: all frames play")
    func zeroPakt() throws {
        let file = CAFBuilder().ima4().pakt(packets: 0, validFrames: 0, priming: 0, remainder: 0).data(Self.ima4Packets(2)).bytes
        #expect(try decode(file).description.frameCount == 128)
    }

    @Test("pakt after data is honoured too")
    func paktAfterData() throws {
        let file = CAFBuilder().ima4().data(Self.ima4Packets(2)).pakt(packets: 2, validFrames: 100, priming: 2, remainder: 26).bytes
        let d = try SoundDecoder(bytes: file).description
        #expect(d.frameCount == 100)
        #expect(d.primingFrames == 2)
    }

    @Test("stereo ima4: 68-byte packets, channels' packets follow each other")
    func stereoIMA4() throws {
        let left = Self.ima4Packets(2, seed: 3)
        let right = Self.ima4Packets(2, seed: 4)
        let interleavedPackets = Array(left[0..<34] + right[0..<34] + left[34...] + right[34...])
        let (d, samples) = try decode(CAFBuilder().ima4(channels: 2).data(interleavedPackets).bytes)
        let l = try decode(CAFBuilder().ima4().data(left).bytes).samples
        let r = try decode(CAFBuilder().ima4().data(right).bytes).samples
        #expect(d.bytesPerPacket == 68)
        #expect(samples == zip(l, r).flatMap { [$0, $1] })
    }

    @Test("ulaw and alaw in CAF")
    func g711() throws {
        let mu = CAFBuilder().desc(format: "ulaw", bytesPerPacket: 1, bits: 8).data([0x00, 0x80]).bytes
        let a = CAFBuilder().desc(format: "alaw", bytesPerPacket: 1, bits: 8).data([0xD5, 0x2A]).bytes
        #expect(try decode(mu).samples == full16([-32124, 32124]))
        #expect(try decode(a).samples == full16([8, -32256]))
    }

    @Test("desc must be exactly 32 bytes", arguments: [28, 36])
    func descSize(size: Int) {
        let desc = ByteWriter.make(.big) { w in
            w.f64(8000)
            w.fourCC("lpcm")
            w.u32(0)
            w.u32(2)
            w.u32(1)
            w.u32(1)
            w.u32(16)
        }
        let body = Array((desc + [0, 0, 0, 0]).prefix(size))
        let file = CAFBuilder().chunk("desc", body).data(int16Samples([1], .big)).bytes
        expectFailure(.malformed, saying: "32", file)
    }

    @Test("desc bytes per packet inconsistent with the format is an error")
    func descInconsistent() {
        // 16-bit mono is 2 bytes a packet, not 4.
        let file = CAFBuilder().desc(format: "lpcm", bytesPerPacket: 4, bits: 16).data(int16Samples([1, 2], .big)).bytes
        expectFailure(.malformed, saying: "per packet", file)
        // ima4 is 64 frames a packet, not 1.
        let ima = CAFBuilder().desc(format: "ima4", bytesPerPacket: 34, framesPerPacket: 1, bits: 0).data(Self.ima4Packets(1)).bytes
        expectFailure(.malformed, saying: "per packet", ima)
    }

    @Test("unknown format ID 'aac ' is unsupported and named")
    func unknownFormat() {
        let file = CAFBuilder().desc(format: "aac ", bytesPerPacket: 0, framesPerPacket: 1024, channels: 2, bits: 0).data([1, 2, 3]).bytes
        expectFailure(.unsupported, saying: "'aac '", file)
    }

    @Test("lpcm with an unsupported width is unsupported", arguments: [(12 as UInt32, false), (16, true)])
    func unsupportedWidth(bits: UInt32, float: Bool) {
        let file = CAFBuilder().desc(format: "lpcm", flags: float ? 1 : 0, bytesPerPacket: 2, bits: bits).data([0, 0]).bytes
        expectFailure(.unsupported, saying: "\(bits)-bit", file)
    }

    @Test("CAF version other than 1 is unsupported")
    func version() {
        var file = CAFBuilder().lpcm(bits: 16).data([0, 0]).bytes
        file[5] = 2
        expectFailure(.unsupported, saying: "version", file)
    }

    @Test("negative pakt counts are an error")
    func negativePakt() {
        let file = CAFBuilder().ima4().pakt(packets: 1, validFrames: 64, priming: -1, remainder: 0).data(Self.ima4Packets(1)).bytes
        expectFailure(.malformed, saying: "pakt", file)
    }
}
