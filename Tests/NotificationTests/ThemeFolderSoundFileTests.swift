import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// Issue 24: a notification's `sound-file` that lies in a sound theme folder (`$XDG_DATA_HOME/sounds`,
/// `DIR/sounds` of `$XDG_DATA_DIRS`) may be what a theme sound may be (`notify-send -h
/// string:sound-file:/usr/share/sounds/freedesktop/stereo/bell.oga` rings the bell, as the name
/// `bell` does); elsewhere only WAV, AIFF or CAF, judged where the opened file really lies.
/// Through the C library, as a daemon embeds it, on ALSA's `file:` device.
@Suite struct ThemeFolderSoundFileTests {
    let folder = TemporaryDirectory("theme-sound-file")
    static let bell = "/usr/share/sounds/freedesktop/stereo/bell.oga"
    static let refusal = "not a WAV, AIFF or CAF file (a notification sound is WAV, AIFF/AIFC or CAF)"

    @Test func anOggInAThemeFolderPlaysAndTheSameOggElsewhereIsRefused() throws {
        let reference = try #require(LibSndFile.decode(Self.bell), "the freedesktop sound theme is not installed")
        let dataDirs = folder.file("share")
        let theme = dataDirs + "/sounds/mine/stereo"
        let elsewhere = folder.file("elsewhere")
        for directory in [theme, elsewhere] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let inside = theme + "/bell.oga", outside = elsewhere + "/bell.oga"
        try FileManager.default.copyItem(atPath: Self.bell, toPath: inside)
        try FileManager.default.copyItem(atPath: Self.bell, toPath: outside)
        // A link in the theme folder to the Ogg elsewhere, and a path that climbs out with `..`.
        try FileManager.default.createSymbolicLink(atPath: theme + "/link.oga", withDestinationPath: outside)
        let climbing = dataDirs + "/sounds/mine/../../../elsewhere/bell.oga"
        // A WAV elsewhere plays as before (at the bell's rate and channels: one stream, no conversion).
        let wav = elsewhere + "/tone.wav"
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=523:d=0.2:r=44100", "-ac", "2",
                                            "-c:a", "pcm_s16le", "-y", wav])

        let capture = folder.file("played.raw")
        let lines = try run([
            // One app's sounds within a second are the rate limit's to silence: not tested here.
            "limits off",
            "notify sound-file=\(inside)", "wait",
            "notify sound-file=\(outside)", "wait",
            "notify sound-file=\(theme)/link.oga", "wait",
            "notify sound-file=\(climbing)", "wait",
            "notify sound-file=\(wav)", "wait", "quit",
        ], capture: capture, dataDirs: dataDirs)
        #expect(lines == [
            "started 1", "ended 1 finished ", "idle",
            "started 2", "ended 2 failed \(outside): \(Self.refusal)", "idle",
            "started 3", "ended 3 failed \(theme)/link.oga: \(Self.refusal)", "idle",
            "started 4", "ended 4 failed \(climbing): \(Self.refusal)", "idle",
            "started 5", "ended 5 finished ", "idle",
        ])
        let played = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(played == reference.samples + (try SoundDecoder(path: wav).readAll()))
    }

    /// The example daemon, installed as a host gets it, with `dataDirs` as `$XDG_DATA_DIRS`.
    func run(_ requests: [String], capture: String, dataDirs: String) throws -> [String] {
        let daemon = folder.file("noti-play-daemon")
        try InstalledLibrary(in: folder).compile(Repository.path + "/docs/examples/noti-play-daemon.c", into: daemon)
        let input = folder.file("requests")
        try (requests.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let result = try TestTools.run("/bin/sh", ["-c", "cd / && exec \"$0\" < \"$1\"", daemon, input], environment: [
            "NOTI_PLAY_DEVICE": "file:FILE=\(capture),FORMAT=raw", "XDG_CONFIG_HOME": folder.file("config"),
            "XDG_DATA_HOME": folder.file("data"), "XDG_DATA_DIRS": dataDirs,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdoutText.split(separator: "\n").map(String.init)
    }
}
