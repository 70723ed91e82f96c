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
        #expect(result.stderr == "noti-play: \(path): not valid: not a WAV, AIFF or CAF file\n")
    }
}
