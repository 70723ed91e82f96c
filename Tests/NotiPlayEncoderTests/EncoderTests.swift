import Foundation
import NotiPlayDecoder
import NotiPlayEncoder
import NotiPlayTestSupport
import Testing

func format(_ container: Container, _ encoding: Encoding, rate: Double = 44100, channels: Int = 2) -> SoundFormat {
    SoundFormat(container: container, encoding: encoding, sampleRate: rate, channelCount: channels)
}

func pcm(_ bits: Int, float: Bool = false, big: Bool = false, signed: Bool = true) -> Encoding {
    .linearPCM(.init(bitsPerSample: bits, isFloat: float, isBigEndian: big, isSigned: signed))
}

/// A chirp with a little noise, deterministic, `frames` × `channels` interleaved.
func testSignal(frames: Int, channels: Int, rate: Double = 44100) -> [Float] {
    var state: UInt32 = 12345
    var out: [Float] = []
    out.reserveCapacity(frames * channels)
    for i in 0..<frames {
        let t = Double(i) / rate
        for c in 0..<channels {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = (Double(state >> 8) / Double(1 << 24) - 0.5) * 0.02
            out.append(Float(0.6 * sin(2 * .pi * (200 + 3000 * t + Double(c) * 50) * t) + noise))
        }
    }
    return out
}

func decode(_ bytes: [UInt8]) throws -> (StreamDescription, [Float]) {
    let decoder = try SoundDecoder(bytes: bytes)
    return (decoder.description, try decoder.readAll())
}

func uint32(_ b: [UInt8], _ at: Int, big: Bool) -> Int {
    let v = b[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
    return big ? v : Int(UInt32(v).byteSwapped)
}

@Suite struct QuantizationTests {
    /// Every 16-bit value decoded as x/32768 encodes back to itself.
    @Test func int16RoundTripsExactly() throws {
        let samples = (Int(Int16.min)...Int(Int16.max)).map { Float($0) / 32768 }
        let bytes = try SoundWriter.encode(samples, format: format(.wave, pcm(16), channels: 1))
        let (_, decoded) = try decode(bytes)
        #expect(decoded == samples)
    }

    @Test func int24RoundTripsExactly() throws {
        let scale: Float = 8_388_608  // 2^23
        var values = Array(stride(from: -8_388_608, to: 8_388_608, by: 251))
        values.append(8_388_607)
        let samples = values.map { Float($0) / scale }
        for container in [Container.aiff, .caf] {
            let bytes = try SoundWriter.encode(samples, format: format(container, pcm(24, big: true), channels: 1))
            #expect(try decode(bytes).1 == samples)
        }
    }

    /// Scale by 2^(bits-1), round to nearest (ties to even), clip; NaN is silence.
    @Test func roundsToNearestAndClips() throws {
        let input: [Float] = [1.0, 1.5, -1.0, -1.5, .nan, 0.5 / 32768, 1.5 / 32768, -2.5 / 32768, 0.4 / 32768, .infinity]
        let expected: [Int16] = [32767, 32767, -32768, -32768, 0, 0, 2, -2, 0, 32767]
        let bytes = try SoundWriter.encode(input, format: format(.wave, pcm(16), channels: 1))
        let decoder = try SoundDecoder(bytes: bytes)
        var out = [Int16](repeating: 0, count: input.count)
        let n = try out.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        #expect(n == input.count && out == expected)

        let eight = try decode(try SoundWriter.encode([1, -1, 0.5, -0.003], format: format(.wave, pcm(8, signed: false), channels: 1))).1
        let expectedEight: [Float] = [127.0 / 128, -1, 0.5, 0]
        #expect(eight == expectedEight)
    }
}

@Suite struct G711Tests {
    /// The 256 values a law decodes to, read by our decoder from a file holding every code.
    func table(_ encoding: Encoding) throws -> [Float] {
        var bytes = try SoundWriter.encode([Float](repeating: 0, count: 256), format: format(.wave, encoding, channels: 1))
        bytes.replaceSubrange(bytes.count - 256..<bytes.count, with: (0...255).map { UInt8($0) })
        return try decode(bytes).1
    }

    /// Every 16-bit input gets a code whose value is as near as any code's (the standard's
    /// truncation alone misses by a little just above each segment boundary).
    @Test(arguments: [Encoding.muLaw, .aLaw])
    func picksTheNearestCode(encoding: Encoding) throws {
        let values = try table(encoding)
        let inputs = (Int(Int16.min)...Int(Int16.max)).map { Float($0) / 32768 }
        let decoded = try decode(try SoundWriter.encode(inputs, format: format(.wave, encoding, channels: 1))).1
        for (x, y) in zip(inputs, decoded) {
            let best = values.map { abs($0 - x) }.min()!
            if abs(y - x) > best {
                Issue.record("\(encoding.afconvertName): \(x * 32768) encodes to \(y * 32768), but a code gives \(best * 32768) away")
                return
            }
        }
    }

}

@Suite struct IMATests {
    /// Block align by Microsoft's ACM rule; `fmt ` carries samples per block; `fact` the true
    /// length; each block's header sample is the input sample itself.
    @Test(arguments: [(44100.0, 2, 2048, 2041), (44100, 1, 1024, 2041), (22050, 1, 512, 1017), (8000, 1, 256, 505), (48000, 6, 6144, 2041)])
    func wavBlocks(rate: Double, channels: Int, blockAlign: Int, framesPerBlock: Int) throws {
        let frames = framesPerBlock * 3 + 100
        let samples = testSignal(frames: frames, channels: channels, rate: rate)
        let bytes = try SoundWriter.encode(samples, format: format(.wave, .imaADPCM, rate: rate, channels: channels))
        // RIFF, fmt  (20 bytes), fact, data.
        #expect(bytes[20] == 0x11 && bytes[21] == 0)
        #expect(Int(bytes[32]) | Int(bytes[33]) << 8 == blockAlign)
        #expect(Int(bytes[38]) | Int(bytes[39]) << 8 == framesPerBlock)
        #expect(String(decoding: bytes[40..<44], as: UTF8.self) == "fact" && uint32(bytes, 48, big: false) == frames)
        let dataStart = 60
        #expect(uint32(bytes, 56, big: false) == 4 * blockAlign)  // the last block is padded
        for block in 0..<4 {
            for c in 0..<channels {
                let at = dataStart + block * blockAlign + 4 * c
                let first = Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)
                let input = samples[block * framesPerBlock * channels + c] * 32768
                #expect(first == Int16(input.rounded(.toNearestOrEven)))
                #expect(bytes[at + 2] <= 88 && bytes[at + 3] == 0)
            }
        }
        let (description, decoded) = try decode(bytes)
        #expect(description.frameCount == frames && decoded.count == samples.count)
    }

    /// Packet headers hold a multiple of 128 and a valid step index; `pakt` gives the true
    /// length, and AIFC's COMM the packet count.
    @Test func appleIMA4Headers() throws {
        let frames = 64 * 10 + 5
        let samples = testSignal(frames: frames, channels: 2)
        let caf = try SoundWriter.encode(samples, format: format(.caf, .appleIMA4))
        // caff header 8, desc 12 + 32, pakt 12 + 24, data 12 + 4.
        #expect(String(decoding: caf[52..<56], as: UTF8.self) == "pakt")
        #expect(uint32(caf, 64 + 4, big: true) == 11)  // packets
        #expect(uint32(caf, 72 + 4, big: true) == frames)  // valid frames
        #expect(uint32(caf, 80, big: true) == 0 && uint32(caf, 84, big: true) == 64 * 11 - frames)
        let data = 104
        #expect(caf.count == data + 11 * 68)
        for packet in 0..<22 {
            let header = UInt16(caf[data + 34 * packet]) << 8 | UInt16(caf[data + 34 * packet + 1])
            #expect(header & 0x7F <= 88)
        }
        let (description, decoded) = try decode(caf)
        #expect(description.frameCount == frames && decoded.count == samples.count)
        #expect(signalToNoise(samples, decoded) > 20)

        let aifc = try SoundWriter.encode(samples, format: format(.aifc, .appleIMA4))
        let comm = try #require(aifc.indices.first { String(decoding: aifc[$0..<$0 + 4], as: UTF8.self) == "COMM" })
        #expect(uint32(aifc, comm + 10, big: true) == 11)
    }

    /// 20 dB and better on a chirp with noise, for both flavours.
    @Test(arguments: [(Container.wave, Encoding.imaADPCM), (.caf, .appleIMA4)])
    func quality(container: Container, encoding: Encoding) throws {
        let samples = testSignal(frames: 44100, channels: 2)
        let decoded = try decode(try SoundWriter.encode(samples, format: format(container, encoding))).1
        #expect(signalToNoise(samples, decoded) > 20)
    }
}

func signalToNoise(_ signal: [Float], _ decoded: [Float]) -> Double {
    var s = 0.0, n = 0.0
    for (a, b) in zip(signal, decoded) {
        s += Double(a) * Double(a)
        n += Double(a - b) * Double(a - b)
    }
    return 10 * log10(s / max(n, 1e-30))
}

@Suite struct WriterTests {
    static let formats: [SoundFormat] = [
        format(.caf, .appleIMA4), format(.wave, .imaADPCM), format(.aifc, .muLaw), format(.wave, .aLaw),
        format(.aiff, pcm(24, big: true)), format(.caf, pcm(64, float: true)), format(.wave, pcm(8, signed: false), channels: 3),
    ]

    /// Chunk boundaries do not show in the output.
    @Test(arguments: formats)
    func chunkingDoesNotChangeTheBytes(format: SoundFormat) throws {
        let samples = testSignal(frames: 9000 + 37, channels: format.channelCount)
        let whole = try SoundWriter.encode(samples, format: format)
        let writer = try SoundWriter(format: format)
        var offset = 0
        var sizes = [1, 7, 63, 64, 1000, 4097, 5].makeIterator()
        try samples.withUnsafeBufferPointer { all in
            while offset < samples.count {
                let frames = sizes.next() ?? 4096
                let count = min(frames * format.channelCount, samples.count - offset)
                try writer.write(UnsafeBufferPointer(rebasing: all[offset..<offset + count]))
                offset += count
            }
        }
        try writer.finish()
        #expect(writer.encodedBytes == whole)
    }

    @Test(arguments: formats)
    func fileMatchesMemory(format: SoundFormat) throws {
        let folder = TemporaryDirectory("writer")
        let samples = testSignal(frames: 5000, channels: format.channelCount)
        let path = folder.file("out")
        let writer = try SoundWriter(path: path, format: format)
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.finish()
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == SoundWriter.encode(samples, format: format))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out"])
    }

    /// The 80-bit extended rate reads back exactly; 44100 is the well-known 400E AC44 0000….
    @Test func sampleRatesSurviveTheExtendedFloat() throws {
        for rate in [8000, 11025, 22050, 44100, 48000, 96000, 1, 1_536_000, 22254.545454545456] {
            let bytes = try SoundWriter.encode([0, 0], format: format(.aiff, pcm(16, big: true), rate: rate))
            #expect(try SoundDecoder(bytes: bytes).description.sampleRate == rate)
            if rate == 44100 { #expect(Array(bytes[28..<38]) == [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]) }
        }
    }

    @Test func misuseAndImpossibleFormatsAreRefused() throws {
        let writer = try SoundWriter(format: format(.wave, pcm(16)))
        #expect(throws: EncodingError.self) { try [Float(0)].withUnsafeBufferPointer { try writer.write($0) } }
        try writer.finish()
        #expect(throws: EncodingError.self) { try writer.finish() }

        func refusal(_ f: SoundFormat) -> String? {
            do { try f.validate(); return nil } catch { return error.message }
        }
        #expect(refusal(format(.wave, pcm(16), channels: 0)) == "channel count 0 is out of range (1 to 64)")
        #expect(refusal(format(.caf, pcm(16), channels: 65)) == "channel count 65 is out of range (1 to 64)")
        #expect(refusal(format(.caf, pcm(16), rate: 0)) == "sample rate 0.0 Hz is out of range (1 to 1536000 Hz)")
        #expect(refusal(format(.wave, pcm(16), rate: 22254.5)) == "WAVE needs a whole-number sample rate, not 22254.5 Hz; use -f caff")
        #expect(refusal(format(.aiff, pcm(32, float: true))) == "AIFF holds big-endian integer PCM only; use -f WAVE or -f caff for LEF32")
        #expect(refusal(format(.caf, .imaADPCM)) == "CAF holds Apple ima4 packets, not WAV IMA ADPCM blocks; use -f WAVE for ima-adpcm")
        #expect(refusal(format(.rifx, pcm(16, big: true))) == "noti-play reads WAVE (RIFX, big-endian) but writes plain RIFF WAVE only")
        #expect(SoundFormat.closestEncoding(to: pcm(24), in: .aiff) == pcm(24, big: true))
        #expect(SoundFormat.closestEncoding(to: pcm(8, signed: false), in: .caf) == pcm(8, big: true))
        #expect(SoundFormat.closestEncoding(to: .imaADPCM, in: .aifc) == pcm(16, big: true))
    }

    /// Replacing a file keeps its permission bits; the path is bytes, which need not be UTF-8.
    @Test func replacingKeepsTheModeAndNamesAreBytes() throws {
        let folder = TemporaryDirectory("writer")
        let path = Array(folder.path.utf8) + [0x2F, 0xE9] + Array(".wav".utf8)  // "/\xE9.wav"
        let cPath = path.map { CChar(bitPattern: $0) } + [0]
        let fd = open(cPath, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(fd >= 0)
        #expect(fchmod(fd, 0o604) == 0 && close(fd) == 0)

        let samples = testSignal(frames: 1000, channels: 2)
        let writer = try SoundWriter(path: path, format: format(.wave, pcm(16)))
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.finish()

        var info = stat()
        #expect(stat(cPath, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o604)
        #expect(Int(info.st_size) == (try SoundWriter.encode(samples, format: format(.wave, pcm(16)))).count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
    }

    /// A writer released or cancelled before `finish()` leaves no file, temporary or final.
    @Test func abandonedOutputLeavesNothing() throws {
        let folder = TemporaryDirectory("writer")
        do {
            let writer = try SoundWriter(path: folder.file("a.caf"), format: format(.caf, .appleIMA4))
            try testSignal(frames: 10000, channels: 2).withUnsafeBufferPointer { try writer.write($0) }
        }
        let cancelled = try SoundWriter(path: folder.file("b.wav"), format: format(.wave, pcm(16)))
        cancelled.cancel()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(throws: EncodingError(.io, "cannot create: No such file or directory")) {
            try SoundWriter(path: folder.file("none/x.wav"), format: format(.wave, pcm(16)))
        }
    }
}
