import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// Every class of malformed input a notification daemon may be handed (issue 6), one test per
/// class, named for it. Each case is checked twice: in the library (the error's kind and one-line
/// message, within a time bound) and through `noti-play info` as a user runs it (status 1 and
/// exactly that line on stderr, within a time bound and a 256 MiB address-space limit). A case
/// whose field decoding does not use is tolerated, and the test's name says so.
///
/// ErrorTests, LeniencyTests and the container tests hold more cases of some classes; the cases
/// here are the values at the edges (the largest field values, -1, sizes that overflow).
@Suite("Malformed input classes")
struct MalformedInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var testDescription: String
        var bytes: [UInt8]
        /// The error expected, or nil when the file must decode.
        var kind: DecodingError.Kind?
        var fragment: String = ""

        static func refused(_ name: String, _ kind: DecodingError.Kind, _ fragment: String, _ bytes: [UInt8]) -> Case {
            Case(testDescription: name, bytes: bytes, kind: kind, fragment: fragment)
        }

        static func tolerated(_ name: String, _ bytes: [UInt8]) -> Case {
            Case(testDescription: name, bytes: bytes, kind: nil)
        }
    }

    static let pcm = int16Samples([100, -200, 300, -400], .little)
    static let pcmBE = int16Samples([100, -200, 300, -400], .big)
    /// Two Apple IMA4 packets of one channel.
    static let ima4Packets = [UInt8](repeating: 0x17, count: 68)

    /// Library and command agree: the error (or the decode) is the same, bounded in time and memory.
    func check(_ c: Case, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let start = Date()
        if let kind = c.kind {
            expectFailure(kind, saying: c.fragment, c.bytes, sourceLocation: sourceLocation)
        } else {
            let decoder = try SoundDecoder(bytes: c.bytes)
            let samples = try decoder.readAll()
            #expect(samples.count == decoder.description.frameCount * decoder.description.channelCount, sourceLocation: sourceLocation)
        }
        #expect(Date().timeIntervalSince(start) < 1, "the library took \(Date().timeIntervalSince(start)) s", sourceLocation: sourceLocation)

        let folder = TemporaryDirectory("malformed")
        let path = folder.file("case.bin")
        try Data(c.bytes).write(to: URL(fileURLWithPath: path))
        let result = try Self.info(path)
        if let kind = c.kind {
            let message = Self.message(c.bytes)
            #expect(result.status == 1, "\(kind): \(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr == "noti-play: \(path): \(message)\n", sourceLocation: sourceLocation)
        } else {
            #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.isEmpty, sourceLocation: sourceLocation)
        }
        #expect(result.seconds < 5, "noti-play info took \(result.seconds) s", sourceLocation: sourceLocation)
    }

    static func message(_ bytes: [UInt8]) -> String {
        do { _ = try SoundDecoder(bytes: bytes); return "" } catch { return error.message }
    }

    /// `noti-play info PATH` with its address space limited to 256 MiB: an allocation driven by
    /// a header's claim would fail there and crash the command, which the status would show.
    static func info(_ path: String, asUser: Bool = false) throws -> (status: Int32, stderr: String, seconds: Double) {
        let start = Date()
        var command = ["prlimit", "--as=268435456", TestTools.notiPlay, "info", path]
        if asUser { command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command }
        let result = try TestTools.run(command[0], Array(command.dropFirst()))
        return (result.status, result.stderr, Date().timeIntervalSince(start))
    }

    // MARK: Channel counts

    static let channelCounts: [Case] = [
        .refused("WAV 0 channels", .malformed, "channel count 0", WAVBuilder().fmt(channels: 0, blockAlign: 2).data(pcm).bytes),
        .refused("WAV 65535 channels", .malformed, "channel count 65535", WAVBuilder().fmt(channels: 65535, blockAlign: 2).data(pcm).bytes),
        .refused("AIFF 32767 channels", .malformed, "channel count 32767", AIFFBuilder().comm(channels: 32767, frames: 1).ssnd(pcmBE).bytes),
        .refused("AIFF -32768 channels", .malformed, "channel count -32768", AIFFBuilder().comm(channels: -32768, frames: 1).ssnd(pcmBE).bytes),
        .refused("CAF 0 channels", .malformed, "channel count 0", CAFBuilder().desc(format: "lpcm", bytesPerPacket: 2, channels: 0, bits: 16).data(pcmBE).bytes),
        .refused("CAF 2^32-1 channels", .malformed, "channel count 4294967295", CAFBuilder().desc(format: "lpcm", bytesPerPacket: 2, channels: .max, bits: 16).data(pcmBE).bytes),
    ]

    @Test("zero and huge channel counts", arguments: channelCounts)
    func zeroAndHugeChannelCounts(_ c: Case) throws { try check(c) }

    // MARK: Block align and frames per block

    static let blockAligns: [Case] = [
        .refused("WAV PCM block align 0", .malformed, "block align 0", WAVBuilder().fmt(blockAlign: 0).data(pcm).bytes),
        .refused("WAV PCM block align 3 for 16-bit mono", .malformed, "block align 3", WAVBuilder().fmt(blockAlign: 3).data(pcm).bytes),
        .refused("WAV µ-law block align 65535", .malformed, "block align 65535", WAVBuilder().fmt(tag: WAVBuilder.muLaw, bits: 8, blockAlign: 65535).data([1, 2]).bytes),
        .refused("WAV IMA ADPCM block align 0", .malformed, "block align 0", WAVBuilder().fmt(tag: WAVBuilder.imaADPCM, bits: 4, blockAlign: 0).data([0, 0, 0, 0]).bytes),
        .refused("WAV IMA ADPCM stereo block align 8 (headers only)", .malformed, "block align 8", WAVBuilder().fmt(tag: WAVBuilder.imaADPCM, channels: 2, bits: 4, blockAlign: 8).data([UInt8](repeating: 0, count: 16)).bytes),
        .refused("CAF ima4 0 bytes per packet", .malformed, "0 bytes and 64 frames", CAFBuilder().desc(format: "ima4", bytesPerPacket: 0, framesPerPacket: 64, bits: 0).data(ima4Packets).bytes),
        .refused("CAF ima4 0 frames per packet", .malformed, "34 bytes and 0 frames", CAFBuilder().desc(format: "ima4", bytesPerPacket: 34, framesPerPacket: 0, bits: 0).data(ima4Packets).bytes),
        .refused("CAF lpcm 2^32-1 frames per packet", .malformed, "4294967295 frames", CAFBuilder().desc(format: "lpcm", bytesPerPacket: 2, framesPerPacket: .max, bits: 16).data(pcmBE).bytes),
    ]

    @Test("zero or inconsistent block align and frames per packet", arguments: blockAligns)
    func zeroOrInconsistentBlockAlign(_ c: Case) throws { try check(c) }

    /// The extension's samples per block is derived data: the block align decides (FFmpeg agrees).
    @Test("IMA ADPCM samples per block that contradicts block align is tolerated: the block's bytes decide")
    func inconsistentFramesPerBlockTolerated() throws {
        let block = IMABytes.wavBlock([.init(predictor: 0, stepIndex: 0, nibbles: [UInt8](repeating: 3, count: 8))])
        for samplesPerBlock: UInt16 in [0, 1, 0xFFFF] {
            let file = WAVBuilder()
                .fmt(tag: WAVBuilder.imaADPCM, bits: 4, blockAlign: UInt16(block.count), extra: ByteWriter.make(.little) { $0.u16(samplesPerBlock) })
                .data(block).bytes
            try check(.tolerated("samples per block \(samplesPerBlock)", file))
            #expect(try SoundDecoder(bytes: file).description.frameCount == 9)
        }
    }

    // MARK: Bits per sample

    static let bitsPerSample: [Case] = [
        .refused("WAV PCM 0 bits", .unsupported, "0-bit", WAVBuilder().fmt(bits: 0, blockAlign: 2).data(pcm).bytes),
        .refused("WAV PCM 65 bits", .malformed, "bits per sample 65", WAVBuilder().fmt(bits: 65, blockAlign: 9).data(pcm).bytes),
        .refused("WAV float 65535 bits", .malformed, "bits per sample 65535", WAVBuilder().fmt(tag: WAVBuilder.ieeeFloat, bits: 65535, blockAlign: 4).data(pcm).bytes),
        .refused("WAV µ-law 72 bits", .malformed, "bits per sample 72", WAVBuilder().fmt(tag: WAVBuilder.muLaw, bits: 72, blockAlign: 1).data(pcm).bytes),
        .refused("WAV IMA ADPCM 65 bits", .malformed, "bits per sample 65", WAVBuilder().fmt(tag: WAVBuilder.imaADPCM, bits: 65, blockAlign: 256).data(pcm).bytes),
        .refused("WAV extensible 16 bits, 65 valid", .malformed, "bits per sample 65", WAVBuilder().extensibleFmt(subFormat: WAVBuilder.pcm, bits: 0, validBits: 65, blockAlign: 2).data(pcm).bytes),
        .refused("AIFF 0 bits", .unsupported, "0-bit", AIFFBuilder().comm(frames: 1, bits: 0).ssnd(pcmBE).bytes),
        .refused("AIFF 65 bits", .malformed, "bits per sample 65", AIFFBuilder().comm(frames: 1, bits: 65).ssnd(pcmBE).bytes),
        .refused("AIFF -1 bits", .malformed, "bits per sample -1", AIFFBuilder().comm(frames: 1, bits: -1).ssnd(pcmBE).bytes),
        .refused("AIFF-C fl32 with 32767 bits", .malformed, "bits per sample 32767", AIFFBuilder(aifc: true).comm(frames: 1, bits: 32767, compression: "fl32").ssnd(pcmBE).bytes),
        .refused("CAF lpcm 0 bits", .unsupported, "0-bit", CAFBuilder().desc(format: "lpcm", bytesPerPacket: 2, bits: 0).data(pcmBE).bytes),
        .refused("CAF lpcm 128 bits", .malformed, "bits per sample 128", CAFBuilder().desc(format: "lpcm", bytesPerPacket: 16, bits: 128).data(pcmBE).bytes),
        .refused("CAF ima4 2^32-1 bits", .malformed, "bits per sample 4294967295", CAFBuilder().desc(format: "ima4", bytesPerPacket: 34, framesPerPacket: 64, bits: .max).data(ima4Packets).bytes),
    ]

    @Test("bits per sample 0 where decoding uses it, or above 64 anywhere", arguments: bitsPerSample)
    func bitsPerSampleZeroOrAbove64(_ c: Case) throws { try check(c) }

    /// IMA4 in CAF says 0 bits (Apple writes it so), and WAV IMA ADPCM may: the codec fixes the width.
    @Test("bits per sample 0 is tolerated where the codec fixes the width (CAF ima4, WAV IMA ADPCM, AIFF-C ulaw)")
    func zeroBitsToleratedForFixedWidthCodecs() throws {
        let block = IMABytes.wavBlock([.init(predictor: 5, stepIndex: 0, nibbles: [UInt8](repeating: 1, count: 8))])
        try check(.tolerated("CAF ima4", CAFBuilder().ima4().data(Self.ima4Packets).bytes))
        try check(.tolerated("WAV IMA", WAVBuilder().fmt(tag: WAVBuilder.imaADPCM, bits: 0, blockAlign: UInt16(block.count)).data(block).bytes))
        try check(.tolerated("AIFC ulaw", AIFFBuilder(aifc: true).comm(frames: 2, bits: 0, compression: "ulaw").ssnd([0x10, 0x90]).bytes))
    }

    // MARK: Bytes per second

    @Test("zero bytes per second is tolerated: decoding does not use it")
    func zeroBytesPerSecondTolerated() throws {
        let fmt = ByteWriter.make(.little) { w in
            w.u16(WAVBuilder.pcm)
            w.u16(1)
            w.u32(8000)
            w.u32(0)  // average bytes per second
            w.u16(2)
            w.u16(16)
        }
        let file = WAVBuilder().chunk("fmt ", fmt).data(Self.pcm).bytes
        try check(.tolerated("0 bytes per second", file))
        #expect(try SoundDecoder(bytes: file).readAll() == full16([100, -200, 300, -400]))
    }

    // MARK: Chunk sizes

    static let zeroSizes: [Case] = [
        .refused("WAV fmt of 0 bytes", .malformed, "0 bytes; at least 16", WAVBuilder().chunk("fmt ", []).data(pcm).bytes),
        .refused("AIFF COMM of 0 bytes", .malformed, "COMM chunk is too short", AIFFBuilder().chunk("COMM", []).ssnd(pcmBE).bytes),
        .refused("AIFF SSND of 0 bytes", .malformed, "SSND chunk is 0 bytes", AIFFBuilder().comm(frames: 1).chunk("SSND", []).chunk("ANNO", Array("a note".utf8) + [0]).bytes),
        .refused("CAF desc of 0 bytes", .malformed, "0 bytes; it must be 32", CAFBuilder().chunk("desc", []).data(pcmBE).bytes),
        .refused("CAF pakt of 0 bytes", .malformed, "'pakt' chunk is 0 bytes", CAFBuilder().ima4().chunk("pakt", []).data(ima4Packets).bytes),
        .refused("CAF data of 0 bytes (no edit count)", .malformed, "'data' chunk size 0", CAFBuilder().lpcm(bits: 16).chunk("data", []).bytes),
        .tolerated("unknown chunks of 0 bytes are skipped", WAVBuilder().chunk("JUNK", []).fmt().chunk("LIST", []).data(pcm).bytes),
        .tolerated("WAV data of 0 bytes is an empty sound", WAVBuilder().fmt().data([]).bytes),
    ]

    @Test("chunk size 0", arguments: zeroSizes)
    func chunkSizeZero(_ c: Case) throws { try check(c) }

    static let oddSizes: [Case] = [
        .tolerated("odd-sized WAV chunk with its pad byte", WAVBuilder().chunk("LIST", [1, 2, 3]).fmt().data(pcm).bytes),
        .tolerated("odd-sized AIFF SSND with its pad byte", AIFFBuilder().comm(frames: 1, bits: 8).ssnd([5]).chunk("ANNO", [0x41, 0]).bytes),
        .tolerated("odd-sized CAF chunk (CAF has no pad bytes)", CAFBuilder().lpcm(bits: 16).chunk("free", [0, 0, 0]).data(pcmBE).bytes),
        // A writer that forgot the pad byte: the next chunk starts where the pad belongs, and is
        // read from there (MissingPadByteTests has the samples).
        .tolerated("odd-sized WAV chunk without its pad byte", {
            var file = WAVBuilder().fmt().chunk("LIST", [1, 2, 3]).data(pcm).bytes
            file.remove(at: 12 + 24 + 8 + 3)  // the pad byte after LIST's body
            return file
        }()),
    ]

    @Test("odd chunk sizes", arguments: oddSizes)
    func oddChunkSizes(_ c: Case) throws { try check(c) }

    static let hugeSizes: [Case] = [
        .refused("WAV fmt claiming 0xFFFF0000 bytes", .malformed, "claims 4294901760 bytes", WAVBuilder().chunk("fmt ", [0, 0], claimedSize: 0xFFFF_0000).bytes),
        .refused("WAV chunk before fmt claiming 0xFFFFFFFE bytes", .truncated, "before its 'fmt '", WAVBuilder().chunk("LIST", [0, 0], claimedSize: 0xFFFF_FFFE).fmt().data(pcm).bytes),
        .tolerated("WAV data claiming 0xFFFF0000 bytes plays what is there", WAVBuilder().fmt().data(pcm, claimedSize: 0xFFFF_0000).bytes),
        .refused("AIFF COMM claiming 0xFFFFFFFF bytes", .malformed, "claims 4294967295 bytes", AIFFBuilder().chunk("COMM", [0, 1], claimedSize: 0xFFFF_FFFF).bytes),
        .tolerated("AIFF SSND claiming 0xFFFF0000 bytes plays what is there", AIFFBuilder().comm(frames: 4).ssnd(pcmBE, claimedSize: 0xFFFF_0000).bytes),
        .refused("CAF desc claiming 0xFFFF0000 bytes", .malformed, "4294901760 bytes; it must be 32", CAFBuilder().chunk("desc", [], claimedSize: 0xFFFF_0000).bytes),
        .refused("WAV fmt larger than the file", .truncated, "inside the 'fmt ' chunk", WAVBuilder().chunk("fmt ", [1, 0, 1, 0], claimedSize: 40).bytes),
        .refused("AIFF COMM larger than the file", .truncated, "inside the COMM chunk", AIFFBuilder().chunk("COMM", [0, 1], claimedSize: 18).bytes),
    ]

    @Test("chunk sizes at or above 0xFFFF0000, and larger than the file", arguments: hugeSizes)
    func hugeChunkSizes(_ c: Case) throws { try check(c) }

    static let cafNegativeSizes: [Case] = [
        .refused("CAF desc of size -1", .malformed, "-1 bytes; it must be 32", CAFBuilder().chunk("desc", [], claimedSize: -1).bytes),
        .refused("CAF pakt of size -1 before data swallows the data", .truncated, "before its 'data'", CAFBuilder().ima4().chunk("pakt", [UInt8](repeating: 0, count: 24), claimedSize: -1).data(ima4Packets).bytes),
        .refused("CAF chunk of size -2", .malformed, "negative size -2", CAFBuilder().chunk("free", [], claimedSize: -2).lpcm(bits: 16).data(pcmBE).bytes),
        .refused("CAF chunk of size Int64.min", .malformed, "negative size", CAFBuilder().lpcm(bits: 16).chunk("free", [], claimedSize: .min).data(pcmBE).bytes),
        .tolerated("CAF data of size -1 runs to the end of the file", CAFBuilder().lpcm(bits: 16).data(pcmBE, claimedSize: -1).bytes),
    ]

    @Test("CAF chunk size -1 and other negative sizes", arguments: cafNegativeSizes)
    func cafNegativeChunkSizes(_ c: Case) throws { try check(c) }

    // MARK: Size arithmetic

    static let overflows: [Case] = [
        .tolerated("RF64 ds64 data size 2^64-1", WAVBuilder(.rf64).ds64(dataSize: .max).fmt().data(pcm, claimedSize: 0xFFFF_FFFF).bytes),
        .tolerated("RF64 ds64 data size 2^32+2 (overflows 32 bits)", WAVBuilder(.rf64).ds64(dataSize: 0x1_0000_0002).fmt().data(pcm, claimedSize: 0xFFFF_FFFF).bytes),
        .tolerated("RF64 ds64 sample count 2^64-1", WAVBuilder(.rf64).ds64(dataSize: 8, sampleCount: .max).fmt().data(pcm, claimedSize: 0xFFFF_FFFF).bytes),
        .tolerated("CAF data size Int64.max", CAFBuilder().lpcm(bits: 16).data(pcmBE, claimedSize: .max).bytes),
        .refused("CAF chunk of size Int64.max before data", .truncated, "before its 'data'", CAFBuilder().lpcm(bits: 16).chunk("free", [], claimedSize: .max).data(pcmBE).bytes),
        .refused("AIFF SSND offset 2^32-1 in a chunk of 2^32-1 bytes", .malformed, "SSND offset 4294967295", AIFFBuilder().comm(frames: 1).ssnd(pcmBE, offset: 0, claimedSize: 0xFFFF_FFFF).bytes.patchingSSNDOffset(0xFFFF_FFFF)),
        .tolerated("AIFF SSND offset 2^32-9 beyond the file: no frames", AIFFBuilder().comm(frames: 1).ssnd(pcmBE, offset: 0, claimedSize: 0xFFFF_FFFF).bytes.patchingSSNDOffset(0xFFFF_FFF7)),
        .tolerated("AIFF-C ima4 COMM counting 2^32-1 packets (× 64 frames)", AIFFBuilder(aifc: true).comm(frames: 0xFFFF_FFFF, compression: "ima4").ssnd(ima4Packets).bytes),
        .tolerated("WAV fact of 2^32-1 frames", WAVBuilder().imaFmt(blockAlign: 36).fact(.max).data([UInt8](repeating: 0x21, count: 36)).bytes),
    ]

    @Test("size arithmetic that would overflow 32 or 64 bits", arguments: overflows)
    func sizeArithmeticOverflow(_ c: Case) throws { try check(c) }

    // MARK: Truncation

    static let truncations: [Case] = [
        .refused("RF64 cut inside ds64", .truncated, "'ds64'", Array(WAVBuilder(.rf64).ds64(dataSize: 8).fmt().data(pcm).bytes.prefix(12 + 8 + 10))),
        .refused("AIFF cut inside COMM's rate", .truncated, "COMM", Array(AIFFBuilder().comm(frames: 1).bytes.prefix(12 + 8 + 12))),
        .refused("AIFF cut inside SSND's offset and block size", .truncated, "SSND", Array(AIFFBuilder().comm(frames: 1).ssnd(pcmBE).bytes.prefix(12 + 26 + 8 + 5))),
        .refused("CAF cut inside a chunk header", .truncated, "'desc'", Array(CAFBuilder().lpcm(bits: 16).bytes.prefix(8 + 7))),
        .tolerated("CAF ima4 cut inside its last packet: whole packets only", Array(CAFBuilder().ima4().data(ima4Packets).bytes.dropLast(5))),
        .tolerated("AIFF-C ima4 cut inside its last packet: whole packets only", Array(AIFFBuilder(aifc: true).comm(frames: 2, compression: "ima4").ssnd(ima4Packets).bytes.dropLast(7))),
        .tolerated("AIFF 24-bit cut inside its last frame", Array(AIFFBuilder().comm(frames: 3, bits: 24).ssnd(int24Samples([1, 2, 3], .big)).bytes.dropLast(2))),  // the pad byte and one sample byte
        .tolerated("WAV IMA ADPCM cut inside its last block", Array(WAVBuilder().imaFmt(blockAlign: 36).data([UInt8](repeating: 0x21, count: 72)).bytes.dropLast(9))),
    ]

    @Test("truncated headers and truncated final blocks", arguments: truncations)
    func truncatedHeadersAndFinalBlocks(_ c: Case) throws { try check(c) }

    @Test("a file cut inside its last IMA4 packet keeps the whole packets' frames only")
    func cutIMA4KeepsWholePackets() throws {
        let decoder = try SoundDecoder(bytes: Array(CAFBuilder().ima4().data(Self.ima4Packets).bytes.dropLast(5)))
        #expect(decoder.description.frameCount == 64)
        #expect(try decoder.readAll().count == 64)
    }

    // MARK: IMA headers

    /// The reserved byte of a WAV IMA block header carries nothing; FFmpeg and libsndfile ignore it.
    @Test("IMA step index above 88 and a non-zero reserved byte are tolerated: clamped and ignored")
    func imaStepIndexAndReservedByteTolerated() throws {
        let nibbles: [UInt8] = [7, 15, 0, 8, 1, 2, 4, 0]
        let clean = IMABytes.wavBlock([.init(predictor: 1000, stepIndex: 88, nibbles: nibbles)])
        var hostile = IMABytes.wavBlock([.init(predictor: 1000, stepIndex: 255, nibbles: nibbles)])
        hostile[3] = 0xA5  // reserved
        let reference = try decode(WAVBuilder().imaFmt(blockAlign: UInt16(clean.count)).data(clean).bytes).samples
        let file = WAVBuilder().imaFmt(blockAlign: UInt16(hostile.count)).data(hostile).bytes
        try check(.tolerated("step index 255, reserved 0xA5", file))
        #expect(try decode(file).samples == reference)
        // Apple IMA4's 7-bit index: 127, with the predictor bits set.
        let packet = IMABytes.ima4Packet(header: 0x7FFF, nibbles: [UInt8](repeating: 0xF, count: 64))
        try check(.tolerated("ima4 step index 127", CAFBuilder().ima4().data(packet).bytes))
    }

    // MARK: fmt and cbSize

    static let shortFormats: [Case] = [0, 2, 8, 14, 15].map { size in
        .refused("fmt of \(size) bytes", .malformed, "\(size) bytes; at least 16",
                 WAVBuilder().chunk("fmt ", Array(WAVBuilder().fmt().bytes[20..<(20 + size)])).data(pcm).bytes)
    } + [
        .refused("extensible cbSize 0xFFFF beyond the chunk", .malformed, "extension of 65535 bytes", WAVBuilder().extensibleFmt(subFormat: WAVBuilder.pcm, bits: 16, cbSize: 0xFFFF).data(pcm).bytes),
        // Nothing reads a non-extensible format's extension (not even IMA's samples per block).
        .tolerated("IMA cbSize 0xFFFF beyond the chunk is tolerated", WAVBuilder().fmt(tag: WAVBuilder.imaADPCM, bits: 4, blockAlign: 36, extra: []).patchingLastU16OfFmt(0xFFFF).data([UInt8](repeating: 0x21, count: 36)).bytes),
    ]

    @Test("fmt shorter than 16 bytes, and cbSize beyond the chunk", arguments: shortFormats)
    func shortFmtAndCbSize(_ c: Case) throws { try check(c) }

    // MARK: Duplicates and order

    static let duplicates: [Case] = [
        .refused("duplicate fmt", .malformed, "more than one 'fmt '", WAVBuilder().fmt().data(pcm).fmt().bytes),
        .refused("duplicate ds64", .malformed, "more than one 'ds64'", WAVBuilder(.rf64).ds64(dataSize: 8).ds64(dataSize: 4).fmt().data(pcm, claimedSize: 0xFFFF_FFFF).bytes),
        .refused("duplicate COMM (after SSND)", .malformed, "more than one COMM", AIFFBuilder().comm(frames: 4).ssnd(pcmBE).comm(frames: 4).bytes),
        .refused("duplicate SSND", .malformed, "more than one SSND", AIFFBuilder().comm(frames: 4).ssnd(pcmBE).ssnd(pcmBE).bytes),
        .refused("duplicate desc (after data)", .malformed, "more than one 'desc'", CAFBuilder().lpcm(bits: 16).data(pcmBE).lpcm(bits: 16).bytes),
        .refused("duplicate pakt", .malformed, "more than one 'pakt'", CAFBuilder().ima4().pakt(packets: 2, validFrames: 100, priming: 0, remainder: 28).pakt(packets: 2, validFrames: 1, priming: 0, remainder: 0).data(ima4Packets).bytes),
        .refused("duplicate CAF data", .malformed, "more than one 'data'", CAFBuilder().lpcm(bits: 16).data(pcmBE).data(pcmBE).bytes),
    ]

    @Test("duplicate fmt, ds64, COMM, SSND, desc, pakt and data", arguments: duplicates)
    func duplicateChunks(_ c: Case) throws { try check(c) }

    static let dataFirst: [Case] = [
        .tolerated("WAV data before fmt", WAVBuilder().data(pcm).fmt().bytes),
        .tolerated("AIFF SSND before COMM", AIFFBuilder().ssnd(pcmBE).comm(frames: 4).bytes),
        .tolerated("CAF data before desc", CAFBuilder().data(pcmBE).lpcm(bits: 16).bytes),
        // Its size is in ds64, which must come first (the RF64 specification puts it first).
        .refused("RF64 data of size 0xFFFFFFFF before ds64", .malformed, "no 'ds64' chunk precedes it", WAVBuilder(.rf64).fmt().data(pcm, claimedSize: 0xFFFF_FFFF).ds64(dataSize: 8).bytes),
    ]

    @Test("data before fmt (tolerated where the size is known)", arguments: dataFirst)
    func dataBeforeFormat(_ c: Case) throws { try check(c) }

    // MARK: pakt

    static let hugePakt: [Case] = [
        .tolerated("pakt counting Int64.max packets and valid frames", CAFBuilder().ima4().pakt(packets: .max, validFrames: .max, priming: 0, remainder: 0).data(ima4Packets).bytes),
        .tolerated("pakt priming Int32.max: no sound left", CAFBuilder().ima4().pakt(packets: 2, validFrames: 100, priming: .max, remainder: 0).data(ima4Packets).bytes),
        .tolerated("pakt remainder Int32.max", CAFBuilder().ima4().pakt(packets: 2, validFrames: 100, priming: 0, remainder: .max).data(ima4Packets).bytes),
        .refused("pakt valid frames Int64.min", .malformed, "negative frame counts", CAFBuilder().ima4().pakt(packets: 2, validFrames: .min, priming: 0, remainder: 0).data(ima4Packets).bytes),
        .refused("pakt priming Int32.min", .malformed, "negative frame counts", CAFBuilder().ima4().pakt(packets: 2, validFrames: 100, priming: .min, remainder: 0).data(ima4Packets).bytes),
    ]

    @Test("huge pakt counts: bounded by the data present", arguments: hugePakt)
    func hugePaktCounts(_ c: Case) throws { try check(c) }

    // MARK: Sample rates

    static let rates: [Case] = [
        .refused("CAF rate 1e300", .malformed, "sample rate", CAFBuilder().lpcm(bits: 16, rate: 1e300).data(pcmBE).bytes),
        .refused("CAF rate 5e-324 (subnormal)", .malformed, "sample rate", CAFBuilder().lpcm(bits: 16, rate: .leastNonzeroMagnitude).data(pcmBE).bytes),
        .refused("CAF rate -0", .malformed, "sample rate", CAFBuilder().lpcm(bits: 16, rate: -0.0).data(pcmBE).bytes),
        .refused("CAF rate -infinity", .malformed, "sample rate", CAFBuilder().lpcm(bits: 16, rate: -.infinity).data(pcmBE).bytes),
        .refused("CAF rate signalling NaN", .malformed, "sample rate", CAFBuilder().lpcm(bits: 16, rate: .signalingNaN).data(pcmBE).bytes),
        .refused("CAF rate 1536001 Hz", .malformed, "sample rate", CAFBuilder().lpcm(bits: 16, rate: 1_536_001).data(pcmBE).bytes),
        .refused("WAV rate 2^32-1", .malformed, "sample rate", WAVBuilder().fmt(rate: .max).data(pcm).bytes),
        .refused("AIFF 80-bit NaN", .malformed, "sample rate", AIFFBuilder().comm(frames: 4, rateBytes: extended80(signAndExponent: 0x7FFF, mantissa: 0xC000_0000_0000_0001)).ssnd(pcmBE).bytes),
        .refused("AIFF 80-bit -infinity", .malformed, "sample rate", AIFFBuilder().comm(frames: 4, rateBytes: extended80(signAndExponent: 0xFFFF, mantissa: 0x8000_0000_0000_0000)).ssnd(pcmBE).bytes),
        .refused("AIFF 80-bit negative zero", .malformed, "sample rate", AIFFBuilder().comm(frames: 4, rateBytes: extended80(signAndExponent: 0x8000, mantissa: 0)).ssnd(pcmBE).bytes),
        .refused("AIFF 80-bit 2^100 Hz", .malformed, "sample rate", AIFFBuilder().comm(frames: 4, rateBytes: extended80(signAndExponent: 0x3FFF + 100, mantissa: 0x8000_0000_0000_0000)).ssnd(pcmBE).bytes),
        // An unnormal (integer bit clear) still has a value: 44100 written with the mantissa
        // shifted right by one and the exponent raised by one.
        .tolerated("AIFF 80-bit unnormal 44100", AIFFBuilder().comm(frames: 4, rateBytes: extended80(signAndExponent: 0x400F, mantissa: 0x5622_0000_0000_0000)).ssnd(pcmBE).bytes),
    ]

    @Test("NaN, infinite, zero and absurd 80-bit and Float64 sample rates", arguments: rates)
    func absurdSampleRates(_ c: Case) throws { try check(c) }

    // MARK: Paths that are not regular files

    @Test("a path that is a directory or a device", arguments: [
        ("/dev/null", "a device"), ("/dev/zero", "a device"), ("/tmp", "a directory"),
    ])
    func notARegularFile(path: String, kind: String) throws {
        expectFailure(.io, saying: kind) { try SoundDecoder(path: path) }
        let result = try Self.info(path)
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): is \(kind), not a regular file\n")
        #expect(result.seconds < 5)
    }

    @Test("a FIFO nobody writes to is refused at once")
    func fifo() throws {
        let folder = TemporaryDirectory("malformed")
        let path = folder.file("pipe.caf")
        try #require(mkfifo(path, 0o600) == 0)
        let result = try Self.info(path)
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): is a FIFO, not a regular file\n")
        #expect(result.seconds < 5)
    }

    /// As root every file is readable, so the command runs as `nobody` (setpriv).
    @Test("an unreadable file")
    func unreadableFile() throws {
        let folder = TemporaryDirectory("malformed")
        chmod(folder.path, 0o755)
        let path = folder.file("secret.wav")
        try Data(WAVBuilder().fmt().data(Self.pcm).bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o000)
        let asNobody = getuid() == 0
        if !asNobody { expectFailure(.io, saying: "permission denied") { try SoundDecoder(path: path) } }
        let result = try Self.info(path, asUser: asNobody)
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): cannot open: Permission denied\n")
    }
}

extension [UInt8] {
    /// Rewrites the SSND offset field of an AIFF file built with one COMM before SSND.
    func patchingSSNDOffset(_ offset: UInt32) -> [UInt8] {
        var bytes = self
        let ssnd = bytes.indices.first { $0 + 4 <= bytes.count && Array(bytes[$0..<($0 + 4)]) == Array("SSND".utf8) }!
        for i in 0..<4 { bytes[ssnd + 8 + i] = UInt8(truncatingIfNeeded: offset >> (24 - 8 * UInt32(i))) }
        return bytes
    }
}

extension WAVBuilder {
    /// Replaces the empty extension just written (cbSize 0) with a cbSize that lies.
    func patchingLastU16OfFmt(_ cbSize: UInt16) -> WAVBuilder {
        var bytes = self.bytes
        // fmt with an empty extra: 16 bytes + cbSize, as the last chunk so far.
        bytes[bytes.count - 2] = UInt8(cbSize & 0xFF)
        bytes[bytes.count - 1] = UInt8(cbSize >> 8)
        return WAVBuilder().chunk("fmt ", Array(bytes[20...]))
    }
}
