#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NotiPlayDecoder
import Testing

/// Hostile and broken files: each fails with the right kind and one line that says what is wrong.
@Suite("Errors")
struct ErrorTests {
    static let pcm = int16Samples([1, 2, 3, 4], .little)

    // MARK: Not a sound file at all

    @Test("empty file")
    func emptyFile() {
        expectFailure(.unknownContainer, saying: "empty", [])
    }

    @Test("3-byte file")
    func threeBytes() {
        expectFailure(.unknownContainer, saying: "too short", Array("RIF".utf8))
    }

    @Test("not a sound file: not a WAV, AIFF or CAF file")
    func notASoundFile() {
        let ogg = Array("OggS".utf8) + [UInt8](repeating: 0, count: 60)
        expectFailure(.unknownContainer, saying: "not a WAV, AIFF or CAF file", ogg)
        expectFailure(.unknownContainer, saying: "not a WAV, AIFF or CAF file", Array("riff\0\0\0\0wave".utf8))
    }

    @Test("RIFF but AVI")
    func riffAVI() {
        let avi = ByteWriter.make(.little) { w in
            w.fourCC("RIFF")
            w.u32(16)
            w.fourCC("AVI ")
            w.chunk("LIST", [0, 0, 0, 0])
        }
        expectFailure(.unknownContainer, saying: "not WAVE", avi)
    }

    @Test("IFF FORM that is not AIFF (8SVX)")
    func form8SVX() {
        let file = ByteWriter.make(.big) { w in
            w.fourCC("FORM")
            w.u32(12)
            w.fourCC("8SVX")
            w.chunk("BODY", [0, 0, 0, 0])
        }
        expectFailure(.unknownContainer, saying: "'8SVX'", file)
    }

    // MARK: Missing or repeated chunks

    @Test("WAV with no fmt chunk")
    func noFmt() {
        expectFailure(.malformed, saying: "no 'fmt ' chunk", WAVBuilder().chunk("LIST", [0, 0, 0, 0]).data(Self.pcm).bytes)
    }

    @Test("WAV with no data chunk")
    func noData() {
        expectFailure(.malformed, saying: "no 'data' chunk", WAVBuilder().fmt().chunk("LIST", [0, 0, 0, 0]).bytes)
    }

    @Test("AIFF with no COMM chunk")
    func noCOMM() {
        expectFailure(.malformed, saying: "no COMM chunk", AIFFBuilder().ssnd(int16Samples([1], .big)).bytes)
        expectFailure(.malformed, saying: "no COMM chunk", AIFFBuilder(aifc: true).ssnd(int16Samples([1], .big)).bytes)
    }

    @Test("CAF with no desc chunk")
    func noDesc() {
        expectFailure(.malformed, saying: "no 'desc' chunk", CAFBuilder().data(int16Samples([1], .big)).bytes)
    }

    @Test("CAF with no data chunk")
    func cafNoData() {
        expectFailure(.malformed, saying: "no 'data' chunk", CAFBuilder().lpcm(bits: 16).chunk("free", [0]).bytes)
    }

    @Test("duplicate fmt chunk")
    func duplicateFmt() {
        let file = WAVBuilder().fmt().fmt(channels: 2).data(Self.pcm).bytes
        expectFailure(.malformed, saying: "more than one 'fmt '", file)
    }

    @Test("duplicate COMM chunk")
    func duplicateCOMM() {
        let file = AIFFBuilder().comm(frames: 1).comm(frames: 1, bits: 8).ssnd([0, 0]).bytes
        expectFailure(.malformed, saying: "more than one COMM", file)
    }

    @Test("duplicate desc chunk")
    func duplicateDesc() {
        let file = CAFBuilder().lpcm(bits: 16).lpcm(bits: 8).data([0, 0]).bytes
        expectFailure(.malformed, saying: "more than one 'desc'", file)
    }

    @Test("duplicate data chunk")
    func duplicateData() {
        let file = WAVBuilder().fmt().data(Self.pcm).data(Self.pcm).bytes
        expectFailure(.malformed, saying: "more than one 'data'", file)
    }

    // MARK: Header values out of range

    @Test("WAV with 0 and with 65 channels", arguments: [UInt16(0), 65])
    func wavChannelCount(channels: UInt16) {
        let file = WAVBuilder().fmt(channels: channels, bits: 16, blockAlign: 2).data(Self.pcm).bytes
        expectFailure(.malformed, saying: "channel count \(channels)", file)
    }

    @Test("AIFF with 0, 65 and -1 channels", arguments: [Int16(0), 65, -1])
    func aiffChannelCount(channels: Int16) {
        let file = AIFFBuilder().comm(channels: channels, frames: 1).ssnd([0, 0]).bytes
        expectFailure(.malformed, saying: "channel count \(channels)", file)
    }

    @Test("CAF with 0 and 65 channels", arguments: [UInt32(0), 65])
    func cafChannelCount(channels: UInt32) {
        let file = CAFBuilder().desc(format: "lpcm", bytesPerPacket: 2 * channels, channels: channels, bits: 16).data([0, 0]).bytes
        expectFailure(.malformed, saying: "channel count \(channels)", file)
    }

    @Test("64 channels is the most accepted")
    func sixtyFourChannels() throws {
        let file = WAVBuilder().fmt(channels: 64, bits: 8).data([UInt8](repeating: 0x80, count: 128)).bytes
        let (d, samples) = try decode(file)
        #expect(d.channelCount == 64)
        #expect(samples == [Float](repeating: 0, count: 128))
    }

    @Test("PCM block align inconsistent with channels × bits")
    func blockAlignMismatch() {
        let file = WAVBuilder().fmt(channels: 2, bits: 16, blockAlign: 2).data(Self.pcm).bytes
        let error = expectFailure(.malformed, saying: "block align 2", file)
        #expect(error?.message.contains("4 expected") == true)
    }

    @Test("IMA ADPCM block align too small for its headers")
    func imaBlockAlignTooSmall() {
        let file = WAVBuilder().fmt(tag: WAVBuilder.imaADPCM, channels: 2, bits: 4, blockAlign: 8).data([UInt8](repeating: 0, count: 16)).bytes
        expectFailure(.malformed, saying: "block align 8", file)
    }

    @Test("WAV sample rate 0")
    func wavRateZero() {
        expectFailure(.malformed, saying: "sample rate", WAVBuilder().fmt(rate: 0).data(Self.pcm).bytes)
    }

    @Test("CAF sample rate NaN, 0 and negative", arguments: [Double.nan, 0, -8000, .infinity])
    func cafBadRate(rate: Double) {
        let file = CAFBuilder().lpcm(bits: 16, rate: rate).data([0, 0]).bytes
        expectFailure(.malformed, saying: "sample rate", file)
    }

    @Test("fmt shorter than 16 bytes")
    func shortFmt() {
        let fmt = ByteWriter.make(.little) { w in
            w.u16(1)
            w.u16(1)
            w.u32(8000)
            w.u32(16000)
            w.u16(2)  // no bits per sample: 14 bytes
        }
        expectFailure(.malformed, saying: "at least 16", WAVBuilder().chunk("fmt ", fmt).data(Self.pcm).bytes)
    }

    @Test("extensible cbSize beyond the chunk", arguments: [UInt16(40), 0xFFFF])
    func extensibleCbSizeTooLarge(cbSize: UInt16) {
        let file = WAVBuilder().extensibleFmt(subFormat: WAVBuilder.pcm, bits: 16, cbSize: cbSize).data(Self.pcm).bytes
        expectFailure(.malformed, saying: "extension", file)
    }

    @Test("extensible cbSize too small for the extension")
    func extensibleCbSizeTooSmall() {
        let file = WAVBuilder().extensibleFmt(subFormat: WAVBuilder.pcm, bits: 16, cbSize: 2).data(Self.pcm).bytes
        expectFailure(.malformed, saying: "extension", file)
    }

    @Test("extensible fmt with no extension at all")
    func extensibleWithoutExtension() {
        let file = WAVBuilder().fmt(tag: WAVBuilder.extensible, bits: 16).data(Self.pcm).bytes
        expectFailure(.malformed, saying: "extension", file)
    }

    // MARK: Cut short

    @Test("truncated fmt chunk")
    func truncatedFmt() {
        let whole = WAVBuilder().fmt().bytes
        expectFailure(.truncated, saying: "'fmt '", Array(whole.prefix(whole.count - 6)))
    }

    @Test("truncated COMM chunk")
    func truncatedCOMM() {
        let whole = AIFFBuilder().comm(frames: 1).bytes
        expectFailure(.truncated, saying: "COMM", Array(whole.prefix(whole.count - 4)))
    }

    @Test("truncated desc chunk")
    func truncatedDesc() {
        let whole = CAFBuilder().lpcm(bits: 16).bytes
        expectFailure(.truncated, saying: "'desc'", Array(whole.prefix(whole.count - 1)))
    }

    // A file cut inside a header or a chunk header is .truncated, like one cut inside a body,
    // and never claims a chunk is missing that the cut took away.

    @Test("truncated RIFF header (10 bytes)")
    func truncatedRIFFHeader() {
        expectFailure(.truncated, saying: "WAV", Array(WAVBuilder().fmt().bytes.prefix(10)))
    }

    @Test("truncated CAF file header (6 bytes)")
    func truncatedCAFHeader() {
        expectFailure(.truncated, saying: "CAF", Array(CAFBuilder().bytes.prefix(6)))
    }

    @Test("file cut inside the fmt chunk header")
    func truncatedChunkHeader() {
        // "fmt " and two bytes of its size: the file ends inside a chunk header.
        expectFailure(.truncated, saying: "fmt", Array(WAVBuilder().fmt().bytes.prefix(18)))
    }

    // MARK: Encodings noti-play does not decode

    @Test("unsupported WAV tag 0x0002 (MS ADPCM) is named")
    func msADPCM() {
        let file = WAVBuilder().fmt(tag: 0x0002, bits: 4, blockAlign: 256).data([UInt8](repeating: 0, count: 256)).bytes
        let error = expectFailure(.unsupported, saying: "0x0002", file)
        #expect(error?.message.contains("Microsoft ADPCM") == true)
    }

    @Test("unsupported WAV tag 0x0055 (MP3) is named")
    func mp3() {
        let file = WAVBuilder().fmt(tag: 0x0055, channels: 2, rate: 44100, bits: 0, blockAlign: 1).data([0xFF, 0xFB]).bytes
        let error = expectFailure(.unsupported, saying: "0x0055", file)
        #expect(error?.message.contains("MP3") == true)
    }

    @Test("unsupported WAV tag inside WAVE_FORMAT_EXTENSIBLE is named")
    func extensibleUnsupported() {
        let file = WAVBuilder().extensibleFmt(subFormat: 0x0002, bits: 4, blockAlign: 256).data([0, 0]).bytes
        expectFailure(.unsupported, saying: "0x0002", file)
    }

    static let unsupportedFormats: [(tag: UInt16, bits: UInt16)] = [(WAVBuilder.pcm, 64), (WAVBuilder.ieeeFloat, 16), (WAVBuilder.pcm, 0)]

    @Test("unsupported PCM and float widths", arguments: unsupportedFormats)
    func unsupportedWidths(tag: UInt16, bits: UInt16) {
        let file = WAVBuilder().fmt(tag: tag, bits: bits, blockAlign: 8).data([UInt8](repeating: 0, count: 8)).bytes
        expectFailure(.unsupported, saying: "\(bits)-bit", file)
    }

    @Test("3-bit IMA ADPCM is unsupported")
    func threeBitIMA() {
        let file = WAVBuilder().fmt(tag: WAVBuilder.imaADPCM, bits: 3, blockAlign: 256).data([UInt8](repeating: 0, count: 256)).bytes
        expectFailure(.unsupported, saying: "3-bit", file)
    }

    // MARK: Paths

    @Test("a path that is a directory")
    func directoryPath() throws {
        try withTemporaryDirectory { directory in
            expectFailure(.io, saying: "directory") { try SoundDecoder(path: directory) }
        }
    }

    @Test("a path that does not exist")
    func missingPath() throws {
        try withTemporaryDirectory { directory in
            expectFailure(.io, saying: "no such file") { try SoundDecoder(path: directory + "/missing.wav") }
        }
    }

    @Test("a path that is a FIFO is refused without blocking")
    func fifoPath() throws {
        try withTemporaryDirectory { directory in
            let fifo = directory + "/pipe.wav"
            try #require(mkfifo(fifo, 0o600) == 0)
            defer { unlink(fifo) }
            expectFailure(.io, saying: "FIFO") { try SoundDecoder(path: fifo) }
        }
    }

    @Test("a real file decodes by path like the same bytes in memory")
    func filePath() throws {
        let bytes = WAVBuilder().fmt(channels: 2).data(Self.pcm).bytes
        try withTemporaryDirectory { directory in
            let path = try writeFile(bytes, to: directory + "/ding.wav")
            defer { unlink(path) }
            let decoder = try SoundDecoder(path: path)
            #expect(decoder.description == (try SoundDecoder(bytes: bytes)).description)
            #expect(try decoder.readAll() == full16([1, 2, 3, 4]))
        }
    }

    @Test("an empty file on disk")
    func emptyFileOnDisk() throws {
        try withTemporaryDirectory { directory in
            let path = try writeFile([], to: directory + "/empty.caf")
            defer { unlink(path) }
            expectFailure(.unknownContainer, saying: "empty") { try SoundDecoder(path: path) }
        }
    }
}

struct FileSetupError: Error, CustomStringConvertible {
    var description: String
}

/// Runs `body` with a fresh directory under /tmp, removed afterwards (`body` removes what it puts
/// there).
func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
    var template = Array("/tmp/noti-play-decoder-tests-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw FileSetupError(description: "mkdtemp failed")
    }
    let path = String(cString: made)
    defer { rmdir(path) }
    try body(path)
}

/// Writes `bytes` to a new file at `path` and returns the path.
func writeFile(_ bytes: [UInt8], to path: String) throws -> String {
    guard let handle = fopen(path, "wb") else { throw FileSetupError(description: "cannot create \(path)") }
    defer { fclose(handle) }
    guard bytes.isEmpty || fwrite(bytes, 1, bytes.count, handle) == bytes.count else {
        throw FileSetupError(description: "cannot write \(path)")
    }
    return path
}
