import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// FLAC in Ogg (the `.oga` sounds of deepin's theme), which libsndfile 1.2.0 refuses: decoded by
/// libFLAC, sample for sample as ffmpeg decodes it, through the theme, `info`, `convert` and a loop.
@Suite struct OggFLACTests {
    let folder = TemporaryDirectory("ogg-flac")
    var sandbox: NotificationSandbox { NotificationSandbox(folder: folder) }

    /// An Ogg FLAC file as ffmpeg writes it (STREAMINFO's total is 0; the length is the last
    /// page's granule position), checked to be that by ffprobe.
    func oggFLAC(_ name: String, in directory: String, channels: Int = 2, rate: Int = 44100, sampleFormat: String = "s16",
                 seconds: Double = 0.3) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + name
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=\(seconds):r=\(rate)", "-f", "lavfi", "-i", "anoisesrc=d=\(seconds):a=0.2:r=\(rate)",
            "-filter_complex", "amix=inputs=2", "-ac", "\(channels)", "-c:a", "flac", "-sample_fmt", sampleFormat, "-y", path,
        ])
        let probe = try TestTools.runChecked("ffprobe", ["-v", "error", "-show_entries", "format=format_name:stream=codec_name",
                                                         "-of", "default=noprint_wrappers=1", path])
        try #require(probe.stdoutText.contains("codec_name=flac") && probe.stdoutText.contains("format_name=ogg"), "\(probe.stdoutText)")
        return path
    }

    @Test func anOggFLACThemeSoundPlaysExactlyAsFFmpegDecodesIt() throws {
        let stereo = folder.file("data/sounds/deepin/stereo")
        let bell = try oggFLAC("bell.oga", in: stereo)
        try "[Sound Theme]\nName=Deepin\nInherits=freedesktop\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n"
            .write(toFile: folder.file("data/sounds/deepin/index.theme"), atomically: true, encoding: .utf8)
        let reference = try FFmpeg.decode(bell)
        try #require(LibSndFile.decode(bell) == nil, "libsndfile reads Ogg FLAC now: this test no longer shows the fix")

        let tap = try ALSATap(in: folder, name: "deepin")
        let result = try TestTools.run(TestTools.notiPlay, ["--sound-name", "bell"], environment: try sandbox.environment(tap, config: "theme = deepin\n"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.captured(tap) == reference.samples)

        // info describes it as convert reads it.
        let info = try TestTools.run(TestTools.notiPlay, ["info", bell])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdoutText.contains("Container:       OGG (OGG Container format) (read by libFLAC)"), "\(info.stdoutText)")
        #expect(info.stdoutText.contains("Encoding:        FLAC (Free Lossless Audio Codec), signed 16 bit PCM"), "\(info.stdoutText)")
        #expect(info.stdoutText.contains("Frames:          \(reference.frameCount)\n"), "\(info.stdoutText)")
        let converted = folder.file("bell.wav")
        let convert = try TestTools.run(TestTools.notiPlay, ["convert", bell, converted, "-d", "LEF32"])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(try SoundDecoder(path: converted).readAll() == reference.samples)
    }

    @Test(arguments: [(1, 48000, "s16"), (2, 96000, "s32"), (6, 44100, "s32"), (8, 22050, "s16")])
    func everyFLACShapeDecodesBitExactly(channels: Int, rate: Int, sampleFormat: String) throws {
        let path = try oggFLAC("shape-\(channels)-\(rate).oga", in: folder.path, channels: channels, rate: rate, sampleFormat: sampleFormat)
        let reference = try FFmpeg.decode(path)
        let source = try SoundSources.open(SoundFile(try RegularFile(path: path), formats: .themeSound))
        #expect(source.sampleRate == Double(rate) && source.channelCount == channels)
        #expect(try readAll(source) == reference.samples)
    }

    @Test func aLoopingOggFLACStartsAgainFromItsFirstFrame() throws {
        let path = try oggFLAC("loop.oga", in: folder.path, seconds: 0.1)
        let once = try FFmpeg.decode(path).samples
        let source = try SoundSources.open(SoundFile(try RegularFile(path: path), formats: .themeSound), loops: true)
        #expect(try readAll(source, samples: 3 * once.count) == once + once + once)
    }

    /// A FLAC frame damaged under a valid Ogg page (its checksum made right again): one line,
    /// status 1, nothing played. A notification's own sound-file may not be Ogg at all.
    @Test func aDamagedOggFLACIsOneLineAndANotificationFileIsRefused() throws {
        let path = try oggFLAC("damaged.oga", in: folder.path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // 100 bytes in the middle of the last page's FLAC frames.
        let last = try #require(OggPages.starts(in: bytes).last)
        let middle = (last + 27 + Int(bytes[last + 26]) + bytes.count) / 2
        try #require(bytes.count - middle > 200, "the last page is too short to damage its middle")
        for index in middle..<middle + 100 { bytes[index] ^= 0x55 }
        OggPages.reseal(&bytes, pageAt: last)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let result = try TestTools.run(TestTools.notiPlay, ["convert", path, folder.file("damaged.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        // Which words depend on what the damage hits (ffmpeg's Ogg serial number is random, so
        // the bytes damaged differ): the frame's CRC, the stream's sync, its data.
        #expect(result.stderr.hasPrefix("noti-play: \(path): ") && result.stderr.contains("FLAC") && result.stderr.contains("damaged")
                || result.stderr.contains("FLAC stream cannot be decoded"), "\(result.stderr)")

        let intact = try oggFLAC("intact.oga", in: folder.path)
        #expect(throws: NotificationSoundError.file(intact, .unsupportedFormat, "not a WAV, AIFF or CAF file (a notification sound is WAV, AIFF/AIFC or CAF)")) {
            try SoundSources.open(SoundFile(try RegularFile(path: intact), formats: .notificationSound))
        }
    }

    func readAll(_ source: any FrameSource, samples limit: Int = .max) throws -> [Float] {
        var all: [Float] = []
        var buffer = [Float](repeating: 0, count: 4096 * source.channelCount)
        while all.count < limit {
            let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            if frames == 0 { break }
            all += buffer.prefix(frames * source.channelCount)
        }
        return Array(all.prefix(limit))
    }
}

/// Ogg pages in a file's bytes, to damage one and make its checksum right again.
enum OggPages {
    /// Where each page starts, walking the pages from the first.
    static func starts(in bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var at = 0
        while at + 27 <= bytes.count && bytes[at..<at + 4].elementsEqual("OggS".utf8) {
            starts.append(at)
            let segments = Int(bytes[at + 26])
            at += 27 + segments + bytes[(at + 27)..<(at + 27 + segments)].reduce(0) { $0 + Int($1) }
        }
        return starts
    }

    /// Writes the page's CRC-32 (polynomial 0x04C11DB7, not reflected, from 0, over the page with
    /// its checksum field zeroed), as libogg computes it.
    static func reseal(_ bytes: inout [UInt8], pageAt start: Int) {
        let segments = Int(bytes[start + 26])
        let end = start + 27 + segments + bytes[(start + 27)..<(start + 27 + segments)].reduce(0) { $0 + Int($1) }
        for index in start + 22..<start + 26 { bytes[index] = 0 }
        var crc: UInt32 = 0
        for byte in bytes[start..<end] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        for k in 0..<4 { bytes[start + 22 + k] = UInt8(truncatingIfNeeded: crc >> (8 * k)) }
    }
}
