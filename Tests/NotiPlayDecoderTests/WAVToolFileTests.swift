import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// WAV files written by sox and patched the way broken writers leave them: a `fact` that
/// contradicts the IMA ADPCM blocks, a stray byte after the last frame, 24-bit samples in
/// 4-byte words. Checked against libsndfile and ffmpeg, and through `noti-play info`.
@Suite("WAV files from tools, patched")
struct WAVToolFileTests {
    let folder = TemporaryDirectory("wav-patched")

    /// The body offset and size of the first chunk `id` of a little-endian RIFF file.
    static func chunk(_ id: String, in bytes: [UInt8]) -> (offset: Int, size: Int)? {
        func le32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = le32(offset + 4)
            if String(decoding: bytes[offset..<offset + 4], as: UTF8.self) == id { return (offset + 8, size) }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    static func putLE32(_ value: Int, into bytes: inout [UInt8], at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = folder.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func info(_ path: String) throws -> [String: Any] {
        let result = try TestTools.run(TestTools.notiPlay, ["info", "--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]])
        return try #require(array.first)
    }

    /// A stereo 44.1 kHz IMA ADPCM tone by sox (with its `fact`), and libsndfile's decode of it:
    /// libsndfile plays every block and ignores `fact`.
    func imaTone() throws -> (bytes: [UInt8], blockFrames: Int, reference: ReferenceAudio) {
        let path = folder.file("tone.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-e", "ima-adpcm", path, "synth", "0.5", "sine", "440", "sine", "660"])
        let reference = try #require(LibSndFile.decode(path))
        return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), reference.frameCount, reference)
    }

    /// MonoGame's tone_stereo_44khz_imaadpcm.wav says 11,225 frames where its blocks hold 22,451:
    /// a `fact` that ends blocks before the data does is a writer's mistake, not padding.
    @Test func aFactThatEndsBlocksEarlyIsOverruledByTheBlocks() throws {
        var (bytes, blockFrames, reference) = try imaTone()
        let fact = try #require(Self.chunk("fact", in: bytes))
        let half = blockFrames / 2
        Self.putLE32(half, into: &bytes, at: fact.offset)
        let path = try write(bytes, "half-fact.wav")

        let decoder = try SoundDecoder(bytes: bytes)
        #expect(decoder.description.frameCount == blockFrames)
        let samples = try decoder.readAll()
        #expect(SampleComparison.firstMismatch(samples, reference.samples) == nil)

        let json = try info(path)
        #expect(json["frames"] as? Int == blockFrames)
        #expect(json["notes"] as? [String] == ["fact says \(half) frames; the blocks hold \(blockFrames): playing the blocks"])
        let text = try TestTools.run(TestTools.notiPlay, ["info", path]).stdoutText
        #expect(text.contains("\nNote:            fact says \(half) frames; the blocks hold \(blockFrames): playing the blocks\n"), "\(text)")
    }

    /// A `fact` within the last block trims its padding (sox's own `fact` is such a one).
    @Test func aFactWithinTheLastBlockIsHonoured() throws {
        let (bytes, blockFrames, reference) = try imaTone()
        let fact = try #require(Self.chunk("fact", in: bytes))
        let said = Int(bytes[fact.offset]) | Int(bytes[fact.offset + 1]) << 8 | Int(bytes[fact.offset + 2]) << 16
        #expect(said < blockFrames)
        let decoder = try SoundDecoder(bytes: bytes)
        #expect(decoder.description.frameCount == said)
        #expect(decoder.description.notes.isEmpty)
        let samples = try decoder.readAll()
        #expect(Array(reference.samples.prefix(samples.count)) == samples)
    }

    /// A `fact` promising more than the blocks hold: the file was cut, and `info` says so.
    @Test func aFactPromisingMoreThanTheBlocksMeansTruncated() throws {
        var (bytes, blockFrames, _) = try imaTone()
        let fact = try #require(Self.chunk("fact", in: bytes))
        Self.putLE32(blockFrames + 5000, into: &bytes, at: fact.offset)
        let path = try write(bytes, "long-fact.wav")
        let json = try info(path)
        #expect(json["truncated"] as? Bool == true)
        #expect(json["frames"] as? Int == blockFrames)
        let check = try TestTools.run(TestTools.notiPlay, ["check", path])
        #expect(check.status == 1)
        #expect(check.stderr.contains("not valid: it is cut short"), "\(check.stderr)")
    }

    /// A stray byte after the last whole frame is no packet: `info` once said "Frames: 3" beside
    /// "Packets: 4 × 2 bytes".
    @Test func thePacketLineCountsThePacketsThatHoldFrames() throws {
        let path = folder.file("three.wav")
        try TestTools.runChecked("sox", ["-r", "8000", "-n", "-c", "1", "-b", "16", path, "synth", "3s", "sine", "440"])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let data = try #require(Self.chunk("data", in: bytes))
        #expect(data.size == 6 && data.offset + 6 == bytes.count)
        bytes.append(0x55)
        Self.putLE32(7, into: &bytes, at: data.offset - 4)
        Self.putLE32(bytes.count - 8, into: &bytes, at: 4)
        let patched = try write(bytes, "three-and-a-byte.wav")
        let lines = try TestTools.run(TestTools.notiPlay, ["info", patched]).stdoutText.split(separator: "\n")
        #expect(lines.contains("Frames:          3"))
        #expect(lines.contains("Packets:         3 × 2 bytes, 1 frame each"), "\(lines)")
        #expect(try info(patched)["packets"] as? Int == 3)
    }

    /// 24-bit PCM in 4-byte words (format 1, 24 bits, block align 4 a channel): libsndfile reads
    /// the words as 32-bit samples with the 24 bits at the top. Made from sox's 24-bit tone
    /// widened to 32 bits (low bytes zero), with bits per sample patched to 24.
    @Test func twentyFourBitsInFourByteWordsDecodeAsLibSndFileDecodesThem() throws {
        let wide = folder.file("wide.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "2", "-b", "24", folder.file("s24.wav"), "synth", "0.2", "sine", "440", "sine", "660", "gain", "-3"])
        try TestTools.runChecked("sox", [folder.file("s24.wav"), "-b", "32", "-e", "signed-integer", "-t", "wavpcm", wide])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: wide)))
        let fmt = try #require(Self.chunk("fmt ", in: bytes))
        #expect(bytes[fmt.offset] == 1 && bytes[fmt.offset + 12] == 8 && bytes[fmt.offset + 14] == 32)  // PCM, 8-byte frames, 32 bits
        bytes[fmt.offset + 14] = 24
        let path = try write(bytes, "24-in-32.wav")

        let ours = try SoundDecoder(bytes: bytes).readAll()
        let libsndfile = try #require(LibSndFile.decode(path))
        #expect(libsndfile.frameCount == 1600)
        #expect(ours.count == 3200)
        #expect(SampleComparison.firstMismatch(ours, libsndfile.samples) == nil)
        // ffmpeg takes this header for Cool Edit's 24-bit float; the same words with the header
        // left at 32 bits it reads as we read these.
        let ffmpeg = try FFmpeg.decode(wide)
        #expect(SampleComparison.firstMismatch(ours, ffmpeg.samples) == nil)
        #expect(try info(path)["frames"] as? Int == 1600)
    }

    /// RIFX with WAVE_FORMAT_EXTENSIBLE: the sub-format GUID in the file's byte order, as
    /// libsndfile reads it (00 00 00 01 ...), and as sox writes it (only the tag swapped,
    /// 00 01 00 00 ...). Both are WAV files noti-play decodes itself; the first was refused
    /// ("format tag 0x0000") and handed to libsndfile, whose note said a notification sound
    /// "must be WAV".
    @Test func rifxWithWaveFormatExtensibleIsDecodedHereWhicheverWayItsGUIDIsWritten() throws {
        let source = folder.file("tone.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "2", "-b", "16", source, "synth", "0.05", "sine", "440", "sine", "660"])
        let soxRIFX = folder.file("sox-rifx.wav")
        try TestTools.runChecked("sox", [source, "-B", "-b", "24", soxRIFX])  // sox writes EXTENSIBLE for 24 bits
        let beGUID = folder.file("be-guid.wav")
        try TestTools.runChecked("python3", ["-c", """
            import struct, sys
            b = open(sys.argv[1], 'rb').read()
            data = b[44:]  # sox's plain 16-bit WAV: a 44-byte header
            samples = struct.unpack('<%dh' % (len(data) // 2), data)
            fmt = struct.pack('>HHIIHHHHI', 0xFFFE, 2, 8000, 32000, 4, 16, 22, 16, 3) + struct.pack('>IHH', 1, 0, 0x10) + bytes.fromhex('800000aa00389b71')
            pcm = struct.pack('>%dh' % len(samples), *samples)
            body = b'WAVE' + b'fmt ' + struct.pack('>I', len(fmt)) + fmt + b'data' + struct.pack('>I', len(pcm)) + pcm
            open(sys.argv[2], 'wb').write(b'RIFX' + struct.pack('>I', len(body)) + body)
            """, source, beGUID])
        let expected = try #require(LibSndFile.decode(source)).samples
        #expect(expected.count == 800)
        #expect(try #require(LibSndFile.decode(beGUID)).samples == expected)
        #expect(try SoundDecoder(path: beGUID).readAll() == expected)
        let fromSox = try SoundDecoder(path: soxRIFX)
        #expect(fromSox.description.encoding == .linearPCM(.init(bitsPerSample: 24, isFloat: false, isBigEndian: true)))
        #expect(try fromSox.readAll() == expected)

        for path in [beGUID, soxRIFX] {
            let lines = try TestTools.run(TestTools.notiPlay, ["info", path]).stdoutText.split(separator: "\n")
            #expect(lines.contains("Container:       WAVE (RIFX, big-endian)"), "\(lines)")
            #expect(!lines.contains { $0.hasPrefix("Note:") }, "\(lines)")
        }
    }

    /// What only libsndfile reads may be a WAV too (GSM 6.10, from sox): its note asks for an
    /// encoding noti-play decodes, never for "WAV".
    @Test func aWAVOnlyLibSndFileReadsIsNotCalledSomethingElse() throws {
        let path = folder.file("gsm.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1", "-e", "gsm-full-rate", path, "synth", "0.1", "sine", "440"])
        let info = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(info.status == 0)
        #expect(info.stdoutText.contains("Container:       WAV (Microsoft) (read by libsndfile)"), "\(info.stdoutText)")
        #expect(info.stdoutText.contains("Note:            noti-play plays this file from a path, through libsndfile; a notification sound (a name) must be one noti-play decodes itself: WAV, AIFF/AIFC or CAF in Linear PCM, IMA ADPCM, IMA4, µ-law or A-law"), "\(info.stdoutText)")
    }
}
