import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// 24-bit samples in 4-byte words, in both layouts and both headers: sox's 24-bit tone rewritten
/// by Python as ALSA's S24_LE (`arecord -f S24_LE`: the sample in the low three bytes, the top
/// byte its sign or zero) and as WAVE_FORMAT_EXTENSIBLE specifies it (the top three bytes);
/// hound's test files byte for byte. The expectation is the 24-bit file itself, as libsndfile
/// decodes it.
@Suite("24-bit samples in 4-byte words")
struct Word24Tests {
    let folder = TemporaryDirectory("word24")

    /// Writes `out` from sox's packed 24-bit little-endian raw samples `raw`:
    /// `layout` high | low-sign | low-zero, `header` plain | extensible, `order` RIFF | RIFX.
    /// A sample's word is also replaced where `PATCH` names it: `frame:channel:hexword`.
    static let writer = """
        import struct, sys
        raw, out, channels, rate, layout, header, order = sys.argv[1:8]
        channels, rate = int(channels), int(rate)
        patches = {int(f) * channels + int(c): int(w, 16) for f, c, w in (p.split(':') for p in sys.argv[8:])}
        data = open(raw, 'rb').read()
        e = '>' if order == 'RIFX' else '<'
        words = bytearray()
        for i in range(0, len(data) - len(data) % 3, 3):
            v = int.from_bytes(data[i:i + 3], 'little', signed=True)
            w = {'high': (v << 8) & 0xFFFFFFFF, 'low-sign': v & 0xFFFFFFFF, 'low-zero': v & 0xFFFFFF}[layout]
            words += struct.pack(e + 'I', patches.get(i // 3, w))
        block = 4 * channels
        fmt = struct.pack(e + 'HHIIHH', 1 if header == 'plain' else 0xFFFE, channels, rate, rate * block, block,
                          24 if header == 'plain' else 32)
        if header == 'extensible':
            fmt += struct.pack(e + 'HHIIHH', 22, 24, 3 if channels == 2 else 4, 1, 0, 0x10) + bytes.fromhex('800000aa00389b71')
        body = b'WAVE' + b'fmt ' + struct.pack(e + 'I', len(fmt)) + fmt + b'data' + struct.pack(e + 'I', len(words)) + words
        open(out, 'wb').write(order.encode() + struct.pack(e + 'I', len(body)) + body)
        """

    /// A −6 dBFS two-tone sine from sox: its 24-bit WAV (the expectation) and its raw samples.
    func tone(seconds: String = "0.2", channels: Int = 2, rate: Int = 48000) throws -> (wav: String, raw: String) {
        let wav = folder.file("tone-\(seconds).wav")
        let raw = folder.file("tone-\(seconds).raw")
        try TestTools.runChecked("sox", ["-n", "-r", String(rate), "-c", String(channels), "-b", "24", wav,
                                         "synth", seconds, "sine", "440", "sine", "660", "gain", "-6"])
        try TestTools.runChecked("sox", [wav, "-t", "raw", "-e", "signed-integer", "-b", "24", "-L", raw])
        return (wav, raw)
    }

    func write(_ raw: String, _ name: String, layout: String, header: String, order: String = "RIFF",
               channels: Int = 2, rate: Int = 48000, patches: [String] = []) throws -> String {
        let out = folder.file(name)
        try TestTools.runChecked("python3", ["-c", Self.writer, raw, out, String(channels), String(rate), layout, header, order] + patches)
        return out
    }

    func int16s(_ decoder: SoundDecoder) throws -> [Int16] {
        var all: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 999 * decoder.description.channelCount)
        while case let n = try buffer.withUnsafeMutableBufferPointer({ try decoder.read(into: $0) }), n > 0 {
            all += buffer[..<(n * decoder.description.channelCount)]
        }
        return all
    }

    /// What arecord wrote, and the other three: the −6 dBFS tone read in the wrong layout is a
    /// −42 dB buzz (the low layout read as the high one: all values ≥ 0); here it is the
    /// 24-bit tone, sample for sample, Float and Int16.
    @Test(arguments: [("low-sign", "plain", "RIFF"), ("low-zero", "plain", "RIFF"), ("low-sign", "extensible", "RIFF"),
                      ("low-zero", "extensible", "RIFF"), ("high", "plain", "RIFF"), ("high", "extensible", "RIFF"),
                      ("low-sign", "plain", "RIFX"), ("high", "extensible", "RIFX")])
    func bothLayoutsUnderBothHeadersDecodeAsTheTwentyFourBitTone(layout: String, header: String, order: String) throws {
        let (wav, raw) = try tone()
        let path = try write(raw, "\(layout)-\(header)-\(order).wav", layout: layout, header: header, order: order)
        let expected = try #require(LibSndFile.decode(wav)).samples
        #expect(expected.count == 19200)

        let decoder = try SoundDecoder(path: path)
        let pcm = try #require({ if case .linearPCM(let f) = decoder.description.encoding { f } else { nil } }())
        #expect(pcm.alignment24 == (layout == "high" ? .high : .low))
        let ours = try decoder.readAll()
        #expect(SampleComparison.firstMismatch(ours, expected) == nil)
        #expect(ours.map(abs).max()! > 0.49)
        // Int16 keeps the top 16 of the 24 bits, as for packed 24-bit samples.
        decoder.rewind()
        let shorts = try int16s(decoder)
        #expect(shorts.count == expected.count)
        #expect(!zip(shorts, expected).contains { $0 != Int16(Int32($1 * 8_388_608) >> 8) })

        let info = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(info.status == 0)
        let where24 = layout == "high" ? "top" : "low"
        #expect(info.stdoutText.contains("Linear PCM, 24-bit signed integer in the \(where24) three bytes of 32-bit words"), "\(info.stdoutText)")
        // A layout that is not the header's own convention is said.
        let unusual = (header == "plain") == (layout == "high")
        #expect(info.stdoutText.contains("Note:") == unusual, "\(info.stdoutText)")
    }

    /// hound's testsamples/pcmwaveformat-24bit-4byte-48kHz-stereo.wav and its
    /// waveformatextensible twin, written byte for byte: four samples, the top byte zero.
    @Test(arguments: ["plain", "extensible"])
    func houndsFilesHoldTheirFourSamples(header: String) throws {
        let out = folder.file("hound-\(header).wav")
        try TestTools.runChecked("python3", ["-c", """
            import struct, sys
            ext = sys.argv[2] == 'extensible'
            fmt = struct.pack('<HHIIHH', 0xFFFE if ext else 1, 2, 48000, 384000, 8, 32 if ext else 24)
            if ext:
                fmt += struct.pack('<HHIIHH', 22, 24, 3, 1, 0, 0x10) + bytes.fromhex('800000aa00389b71')
            data = bytes.fromhex('a0ffff000c5a0000ffff7f00206d8000')
            body = b'WAVE' + b'fmt ' + struct.pack('<I', len(fmt)) + fmt + b'data' + struct.pack('<I', len(data)) + data
            open(sys.argv[1], 'wb').write(b'RIFF' + struct.pack('<I', len(body)) + body)
            """, out, header])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(bytes.count == (header == "plain" ? 60 : 84))  // hound's files' sizes
        let samples = try SoundDecoder(path: out).readAll()
        #expect(samples == [-96, 23_052, 8_388_607, -8_360_672].map { Float($0) / 8_388_608 })
    }

    /// Words that fit both layouts: silence is the same either way; quiet 16-bit samples
    /// (the low byte zero, the top byte the sign) follow the header's convention, with a note.
    @Test func wordsThatFitBothLayoutsFollowTheHeader() throws {
        let raw = folder.file("sixteen.raw")
        let sixteen = folder.file("sixteen.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", sixteen, "synth", "0.1", "sine", "440", "gain", "-1"])
        // 16-bit samples as 24-bit ones: each value × 256, the low byte zero.
        try TestTools.runChecked("sox", [sixteen, "-t", "raw", "-e", "signed-integer", "-b", "24", "-L", raw])
        let expected = try #require(LibSndFile.decode(sixteen)).samples

        let plain = try write(raw, "sixteen-plain.wav", layout: "low-sign", header: "plain", channels: 1, rate: 8000)
        let asLow = try SoundDecoder(path: plain)
        #expect(SampleComparison.firstMismatch(try asLow.readAll(), expected) == nil)
        #expect(asLow.description.notes == ["the 24-bit samples read fit both layouts of 32-bit words: read in the low three bytes of 32-bit words (the top byte the sign or zero) as ALSA's S24_LE (arecord) has them"])

        // The same words under WAVE_FORMAT_EXTENSIBLE are its samples shifted down 8 bits.
        let extensible = try write(raw, "sixteen-extensible.wav", layout: "low-sign", header: "extensible", channels: 1, rate: 8000)
        let asHigh = try SoundDecoder(path: extensible)
        #expect(SampleComparison.firstMismatch(try asHigh.readAll(), expected.map { $0 / 256 }) == nil)
        #expect(asHigh.description.notes.count == 1)

        let silence = folder.file("silence.raw")
        try Data(count: 3 * 800).write(to: URL(fileURLWithPath: silence))
        let quiet = try SoundDecoder(path: try write(silence, "silence.wav", layout: "low-sign", header: "extensible", channels: 1, rate: 8000))
        #expect(try quiet.readAll() == [Float](repeating: 0, count: 800))
        #expect(quiet.description.notes.isEmpty)
    }

    /// A word that fits neither layout, or the two layouts in one file, is refused with one
    /// line when the file is opened.
    @Test(arguments: [(["5:1:12345678"], "the one at frame 5 fits neither layout"),
                      (["3:0:12345600", "7:1:00004501"], "frame 3 holds one in the top three bytes, frame 7 one in the low three")])
    func samplesThatSayNeitherOrBothAreRefused(patches: [String], message: String) throws {
        let raw = folder.file("short.raw")
        // Silence, so that only the patched words say anything.
        try Data(count: 3 * 2 * 100).write(to: URL(fileURLWithPath: raw))
        let path = try write(raw, "refused.wav", layout: "low-sign", header: "plain", patches: patches)
        let result = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): 24-bit samples in 4-byte words: \(message)" + (message.contains("neither") ? " (its low byte is not zero, and its top byte is neither zero nor its sign)\n" : "\n"))
    }

    /// The layout is read from at most 16 windows of 64 KiB when the file is opened; a sample
    /// outside them that contradicts it ends the decoding with an error at its frame, after
    /// every frame before it was delivered.
    @Test func aContradictionPastTheWindowsIsAnErrorAtItsFrame() throws {
        // 4 s of 48 kHz stereo: 1.5 MB of words; the first window holds frames 0..<8192, the
        // second starts 1/15 of the way (frame 12253). Frame 10000 lies between them.
        let (wav, raw) = try tone(seconds: "4")
        let path = try write(raw, "contradicted.wav", layout: "low-sign", header: "plain", patches: ["10000:0:12345600"])
        let expected = try #require(LibSndFile.decode(wav)).samples

        // Reads that end at the bad frame, and reads that run into it (4096 frames: the third
        // read decodes frames 8192..<10000 before it, and returns them).
        for frames in [1000, 4096] {
            let decoder = try SoundDecoder(path: path)
            var delivered: [Float] = []
            var buffer = [Float](repeating: 0, count: frames * 2)
            var failure: DecodingError?
            do {
                while case let n = try buffer.withUnsafeMutableBufferPointer({ try decoder.read(into: $0) }), n > 0 {
                    delivered += buffer[..<(2 * n)]
                }
            } catch {
                failure = error as? DecodingError
            }
            #expect(failure?.kind == .malformed)
            #expect(failure?.message == "the 24-bit sample at frame 10000 is not in the low three bytes of 32-bit words (the top byte the sign or zero) as the samples read when the file was opened are: the file mixes layouts or changed while it was read")
            // Compared by index: a failure that printed 20,000 samples would take minutes.
            #expect(delivered.count == 20000, "reading \(frames) frames at a time")
            #expect(SampleComparison.firstMismatch(delivered, Array(expected[..<20000])) == nil)
        }

        // What a user sees: one line and status 1.
        let converted = try TestTools.run(TestTools.notiPlay, ["convert", path, folder.file("out.caf")])
        #expect(converted.status == 1)
        #expect(converted.stderr.split(separator: "\n").count == 1)
        #expect(converted.stderr.contains("frame 10000"), "\(converted.stderr)")
    }
}
