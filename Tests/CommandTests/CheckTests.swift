import Foundation
import NotiPlayTestSupport
import Testing

/// `noti-play check FILE [--attachment]`: valid notification sounds pass, each failing rule is named.
@Suite struct CheckTests {
    let folder = TemporaryDirectory("check")
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test(arguments: ["default", "critical", "ringtone"])
    func theBundledSoundsAreValidAttachments(name: String) throws {
        let path = repository + "/Sounds/\(name).caf"
        let result = try TestTools.run(TestTools.notiPlay, ["check", path, "--attachment"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.hasSuffix("\(path): a valid notification sound and attachment\n"))
    }

    @Test func aSoundOf30SecondsIsNotValid() throws {
        let path = folder.file("thirty.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1", "-b", "8", "-e", "u-law", path, "synth", "30", "sine", "300"])
        let result = try TestTools.run(TestTools.notiPlay, ["check", path])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): not valid: it lasts 30.0 s; notification sounds must be shorter than 30 s\n")
    }

    @Test func aFileCutShortIsNotAValidAttachment() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: repository + "/Sounds/ringtone.caf"))
        let path = folder.file("cut.caf")
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        let result = try TestTools.run(TestTools.notiPlay, ["check", path, "--attachment"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not valid: it is cut short"), "\(result.stderr)")
        #expect(try TestTools.run(TestTools.notiPlay, ["info", "--json", path]).stdoutText.contains("\"truncated\": true"))
    }

    @Test func anAttachmentOver5MBIsRefusedEvenWhenItIsShortEnough() throws {
        // 20 s of 8-channel 16-bit 24 kHz PCM: 7.7 MB, well under 30 s.
        let path = folder.file("big.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "24000", "-c", "8", "-b", "16", path, "synth", "20", "sine", "440"])
        let asSound = try TestTools.run(TestTools.notiPlay, ["check", path])
        #expect(asSound.status == 0)
        let asAttachment = try TestTools.run(TestTools.notiPlay, ["check", path, "--attachment"])
        #expect(asAttachment.status == 1)
        #expect(asAttachment.stderr.contains("an audio attachment may be at most 5000000"), "\(asAttachment.stderr)")
    }

    @Test func aFileOfAnotherTypeIsOneLine() throws {
        let path = folder.file("song.mp3")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=d=0.2", "-y", path])
        let result = try TestTools.run(TestTools.notiPlay, ["check", path, "--attachment"])
        #expect(result.status == 1)
        // libsndfile reads MP3 (so `noti-play song.mp3` plays it); a notification sound it is not.
        #expect(result.stderr == "noti-play: \(path): not valid: it is MPEG-1/2 Audio, MPEG Layer III (played from a path through libsndfile); a notification sound is WAV, AIFF/AIFC or CAF\n")
    }

    @Test func aSoundOfNoFramesIsNotValid() throws {
        let path = folder.file("empty.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", path, "trim", "0", "0"])
        let result = try TestTools.run(TestTools.notiPlay, ["check", path])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): not valid: it holds no sound (0 frames)\n")
    }

    /// A 1 GiB WAV lasting 10.9 s (64 channels of µ-law at 1,536,000 Hz, sparse on disk): once
    /// the 5 MB attachment rule has failed, nothing is decoded (decoding it took 26 s), and the
    /// answer comes at once.
    @Test func anAttachmentOverTheLimitIsNotDecoded() throws {
        let path = folder.file("wide.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "1536000", "-c", "64", "-e", "u-law", path, "synth", "0.001", "sine", "440"])
        try TestTools.runChecked("truncate", ["-s", "1G", path])
        // The data chunk runs to the end of the file, as a streamed writer leaves it.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let header = try #require(try handle.read(upToCount: 4096))
        let dataAt = try #require(header.range(of: Data("data".utf8))).lowerBound
        try handle.seek(toOffset: UInt64(dataAt + 4))
        try handle.write(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF] as [UInt8])
        try handle.close()

        let start = Date()
        let result = try TestTools.run(TestTools.notiPlay, ["check", path, "--attachment"])
        let seconds = Date().timeIntervalSince(start)
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): not valid: it is 1073741824 bytes; an audio attachment may be at most 5000000\n")
        #expect(result.stdoutText.contains(", 64 channel(s), 10.923 s, 1073741824 bytes"), "\(result.stdoutText)")
        #expect(seconds < 3, "check took \(seconds) s")
    }

    /// Beyond the largest file noti-play opens: refused from its size alone, at once.
    @Test func anEightGigabyteFileIsRefusedAtOnce() throws {
        let path = folder.file("huge.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1", path, "synth", "0.1", "sine", "440"])
        try TestTools.runChecked("truncate", ["-s", "8G", path])
        let start = Date()
        let result = try TestTools.run(TestTools.notiPlay, ["check", path, "--attachment"])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: \(path): not valid: is 8589934592 bytes, over the 1073741824-byte limit for this file\n")
        #expect(Date().timeIntervalSince(start) < 3)
    }

    /// Output that cannot be written (a full disk) is a failure with one line, not exit 0.
    @Test(arguments: [["check"], ["info"], ["info", "--json"]])
    func aFullDiskIsAFailure(command: [String]) throws {
        let path = repository + "/Sounds/default.caf"
        let result = try TestTools.run("sh", ["-c", "exec \"$0\" \"$@\" >/dev/full", TestTools.notiPlay] + command + [path])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: cannot write the output: No space left on device\n")
    }

    /// A file name that is not UTF-8 (`$'\xe9t\xe9.wav'`, Latin-1) opens as the bytes given.
    @Test(arguments: [["check"], ["info"]])
    func aLatin1FileNameOpens(command: [String]) throws {
        let made = folder.file("plain.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1", made, "synth", "0.1", "sine", "440"])
        // The shell gives the name's bytes; Foundation's String paths could not hold them.
        let script = "cd \"$1\" && mv plain.wav \"$(printf '\\351t\\351.wav')\" && exec \"$0\" \"$2\" \"$(printf '\\351t\\351.wav')\""
        let result = try TestTools.run("sh", ["-c", script, TestTools.notiPlay, folder.path] + command)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains(command == ["check"] ? "a valid notification sound" : "Frames:          800"), "\(result.stdoutText)")
    }
}
