import Foundation
import NotiPlayTestSupport
import Testing

/// `noti-play info` run as a user runs it, on files other tools wrote.
@Suite struct InfoTests {
    let folder = TemporaryDirectory("info")

    /// A 0.25 s stereo 22050 Hz tone written by sox in the given form.
    func soxFile(_ name: String, _ options: [String]) throws -> String {
        let path = folder.file(name)
        try TestTools.runChecked("sox", ["-n", "-r", "22050", "-c", "2"] + options + [path, "synth", "0.25", "sine", "660"])
        return path
    }

    @Test func describesEveryFieldOfAnAIFCFile() throws {
        let path = try soxFile("tone.aifc", ["-b", "16", "-e", "signed-integer"])
        let result = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains("File:            \(path)"))
        #expect(lines.contains("Container:       AIFF-C"))
        #expect(lines.contains("Encoding:        Linear PCM, 16-bit signed integer, big-endian [BEI16]"))
        #expect(lines.contains("Sample rate:     22050 Hz"))
        #expect(lines.contains("Channels:        2"))
        #expect(lines.contains("Frames:          5513") || lines.contains("Frames:          5512"))
        #expect(lines.contains { $0.hasPrefix("Duration:        0.25") })
        #expect(result.stderr.isEmpty)
    }

    /// The JSON agrees with libsndfile on rate, channels and frames. For WAV IMA ADPCM the true
    /// length is the `fact` chunk's (as sndfile-info dumps it): libsndfile, ffmpeg and sox all
    /// ignore `fact` when decoding and count the last block's padding as sound.
    @Test(arguments: [
        ("a.wav", ["-e", "u-law"]), ("b.caf", ["-b", "24"]), ("c.aiff", ["-b", "8"]), ("d.wav", ["-e", "ima-adpcm"]),
    ])
    func jsonAgreesWithLibSndFile(name: String, options: [String]) throws {
        let path = try soxFile(name, options)
        let result = try TestTools.run(TestTools.notiPlay, ["info", "--json", path])
        #expect(result.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]])
        let info = try #require(array.first)
        let reference = try #require(LibSndFile.decode(path))
        #expect(info["file"] as? String == path)
        #expect(info["sampleRate"] as? Int == reference.sampleRate)
        #expect(info["channels"] as? Int == reference.channelCount)
        var frames = reference.frameCount
        if name.hasSuffix(".wav"), options.contains("ima-adpcm") {
            let dump = try TestTools.runChecked("sndfile-info", [path]).stdoutText.split(separator: "\n")
            let factLine = try #require(dump.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("frames  :") })
            frames = try #require(Int(factLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
            #expect(frames < reference.frameCount)  // the padding exists, and is not counted
        }
        #expect(info["frames"] as? Int == frames)
        let duration = try #require(info["duration"] as? Double)
        #expect(abs(duration - Double(frames) / Double(reference.sampleRate)) < 1e-6)
    }

    /// A sound of the freedesktop theme (Ogg Vorbis, read by libsndfile): its codec, rate,
    /// channels, frames and duration, as libsndfile decodes it and as convert writes it out.
    @Test func describesAThemeOggAsFullyAsConvertReadsIt() throws {
        let path = "/usr/share/sounds/freedesktop/stereo/message-new-instant.oga"
        let reference = try #require(LibSndFile.decode(path), "libsndfile reads \(path)")
        let converted = folder.file("converted.wav")
        try TestTools.runChecked(TestTools.notiPlay, ["convert", path, converted])
        let written = try #require(LibSndFile.decode(converted))
        #expect(written.frameCount == reference.frameCount && written.sampleRate == reference.sampleRate)

        let result = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains("Encoding:        Vorbis"), "\(lines)")
        #expect(lines.contains("Sample rate:     \(reference.sampleRate) Hz"))
        #expect(lines.contains("Channels:        \(reference.channelCount)"))
        #expect(lines.contains("Frames:          \(reference.frameCount)"))
        let seconds = Double(reference.frameCount) / Double(reference.sampleRate)
        #expect(lines.contains { $0.hasPrefix("Duration:        ") && abs((Double($0.dropFirst(17).dropLast(2)) ?? 0) - seconds) < 0.0005 }, "\(lines)")

        let json = try TestTools.run(TestTools.notiPlay, ["info", "--json", path])
        let object = try #require((try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]])?.first)
        #expect(object["encodingDescription"] as? String == "Vorbis")
        #expect(object["sampleRate"] as? Int == reference.sampleRate)
        #expect(object["channels"] as? Int == reference.channelCount)
        #expect(object["frames"] as? Int == reference.frameCount)
        #expect(abs((object["duration"] as? Double ?? 0) - seconds) < 1e-6)
    }

    @Test func aMissingFileIsOneLineAndStatusOne() throws {
        let result = try TestTools.run(TestTools.notiPlay, ["info", folder.file("nothing.caf")])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(folder.file("nothing.caf")): cannot open: No such file or directory\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func aDirectoryIsRefused() throws {
        let result = try TestTools.run(TestTools.notiPlay, ["info", folder.path])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(folder.path): is a directory, not a regular file\n")
    }

    @Test func aTextFileIsNotASound() throws {
        let path = folder.file("notes.wav")
        try "just some words\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): not a WAV, AIFF or CAF file\n")
    }

    /// One bad file among good ones: the good ones are still described, and the status says failure.
    @Test func goodFilesAreDescribedBesideABadOne() throws {
        let good = try soxFile("good.wav", [])
        let bad = folder.file("bad.caf")
        try Data("caff".utf8 + [0, 1, 0, 0]).write(to: URL(fileURLWithPath: bad))
        let result = try TestTools.run(TestTools.notiPlay, ["info", "--json", good, bad])
        #expect(result.status == 1)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]])
        #expect(array.count == 2)
        #expect(array[0]["channels"] as? Int == 2)
        #expect(array[1]["error"] as? String == "CAF file has no 'desc' chunk")
        #expect(result.stderr == "noti-play: \(bad): CAF file has no 'desc' chunk\n")
    }
}
