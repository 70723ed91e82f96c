import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// `noti-play FILE` through ALSA's `file` plugin: what reaches the PCM must be exactly the
/// decoded samples times the volume, in the device's format.
@Suite struct TapTests {
    /// Sounds made by ffmpeg in every encoding and container, mono, stereo and 6-channel.
    static let fixtures: [(name: String, channels: Int, ffmpegOptions: [String])] = [
        ("pcm16-stereo.wav", 2, ["-c:a", "pcm_s16le"]),
        ("pcm24-6ch.aiff", 6, ["-c:a", "pcm_s24be"]),
        ("float-6ch.caf", 6, ["-c:a", "pcm_f32le"]),
        ("ima4-stereo.caf", 2, ["-c:a", "adpcm_ima_qt"]),
        ("ima4-mono.aifc", 1, ["-c:a", "adpcm_ima_qt"]),
        ("ima-stereo.wav", 2, ["-c:a", "adpcm_ima_wav"]),
        ("ulaw-mono.aifc", 1, ["-c:a", "pcm_mulaw"]),
        ("alaw-stereo.caf", 2, ["-c:a", "pcm_alaw"]),
        ("alaw-6ch.wav", 6, ["-c:a", "pcm_alaw"]),
    ]

    let folder = TemporaryDirectory("tap")

    /// 0.3 s at 44.1 kHz: each channel its own tone, loud enough that 0.8 × it is not trivial.
    func makeFixture(_ name: String, channels: Int, _ options: [String]) throws -> String {
        let tones = (0..<channels).map { "0.9*sin(2*PI*\(330 + 110 * $0)*t)" }.joined(separator: "|")
        let path = folder.file(name)
        try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=\(tones):s=44100:d=0.3",
        ] + options + ["-y", path])
        return path
    }

    func play(_ path: String, _ arguments: [String], tap: ALSATap) throws -> ProcessResult {
        try TestTools.run(TestTools.notiPlay, [path] + arguments, environment: tap.environment)
    }

    @Test(arguments: fixtures)
    func criticalAtVolumePutsDecodedSamplesTimesVolumeOnThePCM(fixture: (name: String, channels: Int, ffmpegOptions: [String])) throws {
        let path = try makeFixture(fixture.name, channels: fixture.channels, fixture.ffmpegOptions)
        let tap = try ALSATap(in: folder, name: fixture.name)
        let result = try play(path, ["--critical", "--volume", "0.8"], tap: tap)
        #expect(result.status == 0, "\(result.stderr)")
        let decoded = try SoundDecoder(path: path).readAll()
        let volume: Float = 0.8
        let expected = decoded.map { min(max($0 * volume, -1), 1) }
        let captured = try tap.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(captured.count == expected.count)
        #expect(captured == expected)
    }

    /// Ogg Vorbis and Opus hold 5.1 in Vorbis's order (L C R Ls Rs LFE), which libsndfile keeps
    /// and does not name; FLAC holds WAVE's. Each speaker's tone (its own level) reaches the
    /// device's channel for that speaker, in WAVE's order: as ffmpeg decodes it (Vorbis codes
    /// its LFE louder; ffmpeg hands out WAVE's order). The levels lie apart, so a swap shows.
    @Test(arguments: ["ogg", "opus", "flac"])
    func aSurroundSoundThroughLibsndfileReachesEachSpeakerByName(container: String) throws {
        let given = [0.05, 0.12, 0.2, 0.3, 0.45, 0.65]  // FL FR FC LFE BL BR, as ffmpeg takes them
        let path = folder.file("surround.\(container)"), reference = folder.file("surround-\(container).f32")
        let tones = given.map { "\($0)*sin(2*PI*100*t)" }.joined(separator: "|")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "aevalsrc=exprs=\(tones):c=5.1:s=48000:d=0.5", "-y", path])
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-i", path, "-f", "f32le", "-y", reference])
        let tap = try ALSATap(in: folder, name: "surround-\(container)")
        let result = try play(path, [], tap: tap)
        #expect(result.status == 0, "\(result.stderr)")
        func levels(_ samples: [Float]) -> [Double] {
            // Each channel's level from its RMS, past the codec's first quarter (its start-up).
            let frames = samples.count / 6
            return (0..<6).map { channel in
                let power = (frames / 4..<frames).reduce(0.0) { $0 + Double(samples[$1 * 6 + channel]) * Double(samples[$1 * 6 + channel]) }
                return (power / Double(frames - frames / 4) * 2).squareRoot()
            }
        }
        let captured = try tap.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let expected = try Data(contentsOf: URL(fileURLWithPath: reference)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        try #require(captured.count == 24000 * 6, "\(captured.count) samples")
        let heard = levels(captured), decoded = levels(expected)
        for channel in 0..<6 {
            #expect(abs(heard[channel] - decoded[channel]) < 0.01, "channel \(channel): \(heard), ffmpeg \(decoded)")
            #expect(abs(heard[channel] / given[channel] - 1) < 0.5, "channel \(channel): \(heard)")
        }
    }

    /// With S16 and S32 forced, each sample is rounded to nearest and clipped.
    @Test(arguments: ["S16", "S32"])
    func integerDeviceFormatsRoundAndClip(format: String) throws {
        let path = try makeFixture("ima4-\(format).caf", channels: 2, ["-c:a", "adpcm_ima_qt"])
        let tap = try ALSATap(in: folder, name: format)
        let result = try play(path, ["--volume", "0.8", "--sample-format", format], tap: tap)
        #expect(result.status == 0, "\(result.stderr)")
        let decoded = try SoundDecoder(path: path).readAll()
        let bytes = try tap.captured()
        if format == "S16" {
            let expected = decoded.map { Int16(clamping: Int(roundingHalfEven(Double($0 * 0.8) * 32768))) }
            #expect(bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } == expected)
        } else {
            let expected = decoded.map { Int32(clamping: Int64(roundingHalfEven(Double($0 * 0.8) * 2147483648))) }
            #expect(bytes.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) } == expected)
        }
    }

    /// Full volume on a 16-bit device gives back the file's own bytes: nothing was changed.
    @Test func fullVolumeS16ReproducesThePCMBytesOfTheFile() throws {
        let path = try makeFixture("bytes.wav", channels: 2, ["-c:a", "pcm_s16le"])
        let tap = try ALSATap(in: folder, name: "bytes")
        let result = try play(path, ["--sample-format", "S16"], tap: tap)
        #expect(result.status == 0, "\(result.stderr)")
        let file = try SoundDecoder(path: path).description
        let wav = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(try tap.captured() == Array(wav[file.dataOffset..<(file.dataOffset + file.dataByteCount)]))
    }

    @Test func volumeZeroIsSilence() throws {
        let path = try makeFixture("zero.caf", channels: 1, ["-c:a", "adpcm_ima_qt"])
        let tap = try ALSATap(in: folder, name: "zero")
        #expect(try play(path, ["--volume", "0"], tap: tap).status == 0)
        let captured = try tap.captured()
        #expect(captured.count == 4 * (try SoundDecoder(path: path).description.frameCount))
        #expect(captured.allSatisfy { $0 == 0 })
    }

    @Test(arguments: ["1.5", "-0.1", "nan", "inf", "loud"])
    func volumeOutsideZeroToOneIsRefused(volume: String) throws {
        let path = try makeFixture("refuse-\(volume).wav", channels: 1, ["-c:a", "pcm_s16le"])
        let tap = try ALSATap(in: folder, name: "refuse-\(volume)")
        let result = try play(path, ["--volume", volume], tap: tap)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--volume"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tap.capturePath))
    }

    @Test func aMissingDeviceIsOneLineWithTheReasonAndAHint() throws {
        let path = try makeFixture("nodevice.wav", channels: 1, ["-c:a", "pcm_s16le"])
        let tap = try ALSATap(in: folder, name: "nodevice")
        let result = try play(path, ["--device", "nosuchdevice"], tap: tap)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("noti-play: audio device 'nosuchdevice' (ALSA): cannot open: "))
        #expect(result.stderr.contains("--list-devices"))
    }

    @Test func aBadFileIsOneLineAndNothingIsPlayed() throws {
        let path = folder.file("garbage.caf")
        try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: path))
        let tap = try ALSATap(in: folder, name: "garbage")
        let result = try play(path, [], tap: tap)
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): not a WAV, AIFF or CAF file, nor a format libsndfile reads\n")
        #expect(!FileManager.default.fileExists(atPath: tap.capturePath))
    }

    @Test func listDevicesNamesTheConfiguredPCM() throws {
        let tap = try ALSATap(in: folder, name: "list")
        let result = try TestTools.run(TestTools.notiPlay, ["--list-devices"], environment: tap.environment)
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("default"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("noti-play test tap"))
    }
}

/// Round half to even, as the renderer (and `rint`) does.
func roundingHalfEven(_ value: Double) -> Double { value.rounded(.toNearestOrEven) }
