import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// The notification model as the command shows it, through ALSA's file tap: what was looked up,
/// what policy let through, and the exact samples that reached the PCM.
@Suite struct CommandNotificationTests {
    let folder = TemporaryDirectory("notification")
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    var sandbox: NotificationSandbox { NotificationSandbox(folder: folder) }
    func environment(_ tap: ALSATap, config: String? = nil) throws -> [String: String] { try sandbox.environment(tap, config: config) }
    func tone(_ name: String, seconds: Double, in directory: String? = nil) throws -> String { try sandbox.tone(name, seconds: seconds, in: directory) }
    func captured(_ tap: ALSATap) throws -> [Float] { try sandbox.captured(tap) }

    // MARK: The sound theme

    @Test func soundNamePlaysTheFreedesktopThemeSound() throws {
        let tap = try ALSATap(in: folder, name: "theme")
        let result = try TestTools.run(TestTools.notiPlay, ["--sound-name", "message-new-instant"], environment: try environment(tap))
        #expect(result.status == 0, "\(result.stderr)")
        let reference = try #require(LibSndFile.decode("/usr/share/sounds/freedesktop/stereo/message-new-instant.oga"))
        #expect(try captured(tap) == reference.samples)
    }

    @Test func aThemeNameFallsBackByDroppingItsLastPart() throws {
        let tap = try ALSATap(in: folder, name: "fallback")
        let result = try TestTools.run(TestTools.notiPlay, ["--sound-name", "message-new-email-urgent"], environment: try environment(tap))
        #expect(result.status == 0, "\(result.stderr)")
        let reference = try #require(LibSndFile.decode("/usr/share/sounds/freedesktop/stereo/message.oga"))
        #expect(try captured(tap) == reference.samples)
    }

    @Test func aUserThemeInheritingFreedesktopOverridesOneSoundAndDisablesAnother() throws {
        let themes = folder.file("data/sounds/mine")
        let own = try tone("bell.wav", seconds: 0.2, in: themes + "/stereo")
        FileManager.default.createFile(atPath: themes + "/stereo/message.disabled", contents: Data())
        try "[Sound Theme]\nName=Mine\nInherits=freedesktop\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n"
            .write(toFile: themes + "/index.theme", atomically: true, encoding: .utf8)
        let config = "theme = mine\n"

        let tap = try ALSATap(in: folder, name: "mine-bell")
        #expect(try TestTools.run(TestTools.notiPlay, ["--sound-name", "bell"], environment: try environment(tap, config: config)).status == 0)
        #expect(try captured(tap) == (try SoundDecoder(path: own).readAll()))

        let disabled = try ALSATap(in: folder, name: "mine-message")
        let result = try TestTools.run(TestTools.notiPlay, ["--sound-name", "message"], environment: try environment(disabled, config: config))
        #expect(result.status == 0)
        #expect(result.stderr.contains("switches 'message' off"), "\(result.stderr)")
        #expect(try captured(disabled).isEmpty)

        let inherited = try ALSATap(in: folder, name: "mine-complete")
        #expect(try TestTools.run(TestTools.notiPlay, ["--sound-name", "complete"], environment: try environment(inherited, config: config)).status == 0)
        #expect(try captured(inherited) == (try #require(LibSndFile.decode("/usr/share/sounds/freedesktop/stereo/complete.oga"))).samples)
    }

    // MARK: Names stay inside the allowed folders

    @Test(arguments: ["../x.caf", "/etc/passwd", "sub/x.caf", "..", ".", "", "a\u{1B}[2J.caf"])
    func escapingNamesAreRefused(name: String) throws {
        let sounds = folder.file("app-sounds")
        _ = try tone("x.caf", seconds: 0.1, in: folder.path)  // what ../x.caf would reach
        _ = try tone("ok.caf", seconds: 0.1, in: sounds)
        let tap = try ALSATap(in: folder, name: "escape-\(name.hashValue)")
        let result = try TestTools.run(TestTools.notiPlay, ["--named", name, "--sounds-dir", sounds], environment: try environment(tap))
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("noti-play: sound name '"), "\(result.stderr)")
        #expect(result.stderr.contains("is refused"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try captured(tap).isEmpty)
    }

    @Test func aSymlinkOutOfTheFolderIsRefusedButASymlinkedFolderIsFollowed() throws {
        let outside = try tone("secret.caf", seconds: 0.1, in: folder.file("outside"))
        let sounds = folder.file("linked-sounds")
        try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sounds + "/evil.caf", withDestinationPath: outside)
        let tap = try ALSATap(in: folder, name: "symlink")
        let refused = try TestTools.run(TestTools.notiPlay, ["--named", "evil.caf", "--sounds-dir", sounds], environment: try environment(tap))
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("evil.caf: is a symbolic link, refused"), "\(refused.stderr)")

        let real = try tone("fine.caf", seconds: 0.1, in: folder.file("real-sounds"))
        try FileManager.default.createSymbolicLink(atPath: folder.file("folder-link"), withDestinationPath: folder.file("real-sounds"))
        let followed = try ALSATap(in: folder, name: "folder-link")
        #expect(try TestTools.run(TestTools.notiPlay, ["--named", "fine.caf", "--sounds-dir", folder.file("folder-link")], environment: try environment(followed)).status == 0)
        #expect(try captured(followed) == (try SoundDecoder(path: real).readAll()))
    }

    @Test func theAppsFolderComesBeforeTheUsersFolder() throws {
        let app = try tone("ping.caf", seconds: 0.1, in: folder.file("app"))
        let user = try tone("ping.caf", seconds: 0.3, in: folder.file("data/noti-play/sounds"))
        let tap = try ALSATap(in: folder, name: "order")
        #expect(try TestTools.run(TestTools.notiPlay, ["--named", "ping.caf", "--sounds-dir", folder.file("app")], environment: try environment(tap)).status == 0)
        #expect(try captured(tap) == (try SoundDecoder(path: app).readAll()))
        let userOnly = try ALSATap(in: folder, name: "order-user")
        #expect(try TestTools.run(TestTools.notiPlay, ["--named", "ping.caf"], environment: try environment(userOnly)).status == 0)
        #expect(try captured(userOnly) == (try SoundDecoder(path: user).readAll()))
    }

    // MARK: The 30-second rule

    @Test(arguments: [false, true])
    func aSoundOf30SecondsOrMorePlaysTheDefaultInstead(critical: Bool) throws {
        let sounds = folder.file("long-\(critical)")
        _ = try tone("long.caf", seconds: 31, in: sounds)
        let tap = try ALSATap(in: folder, name: "long-\(critical)")
        let result = try TestTools.run(TestTools.notiPlay, ["--named", "long.caf", "--sounds-dir", sounds] + (critical ? ["--critical"] : []),
                                       environment: try environment(tap))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("long.caf lasts 31.0 s"), "\(result.stderr)")
        #expect(result.stderr.contains("the default sound plays instead"))
        let expected = try SoundDecoder(path: repository + "/Sounds/\(critical ? "critical" : "default").caf").readAll()
        // The default is mono; the long sound's stereo never reached the device.
        #expect(try captured(tap) == expected)
    }

    // MARK: Policy

    @Test(arguments: ["do-not-disturb = true", "quiet-hours = 00:00-24:00"])
    func quietSilencesANormalSoundAndLetsACriticalOneThroughAtItsVolume(config: String) throws {
        let sound = try tone("quiet-\(config.count).caf", seconds: 0.2)
        let normal = try ALSATap(in: folder, name: "quiet-normal-\(config.count)")
        let silenced = try TestTools.run(TestTools.notiPlay, [sound], environment: try environment(normal, config: config))
        #expect(silenced.status == 0)
        #expect(silenced.stderr.contains("not playing"), "\(silenced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: normal.capturePath))

        let critical = try ALSATap(in: folder, name: "quiet-critical-\(config.count)")
        let passed = try TestTools.run(TestTools.notiPlay, [sound, "--critical", "--volume", "0.6"], environment: try environment(critical, config: config))
        #expect(passed.status == 0, "\(passed.stderr)")
        #expect(try captured(critical) == (try SoundDecoder(path: sound).readAll()).map { $0 * Float(0.6) })
    }

    @Test func theNotificationVolumeScalesNormalSoundsButNotCriticalOnes() throws {
        let sound = try tone("volume.caf", seconds: 0.2)
        let decoded = try SoundDecoder(path: sound).readAll()
        let config = "notification-volume = 0.5\n"
        let normal = try ALSATap(in: folder, name: "volume-normal")
        #expect(try TestTools.run(TestTools.notiPlay, [sound, "--volume", "0.8"], environment: try environment(normal, config: config)).status == 0)
        #expect(try captured(normal) == decoded.map { $0 * (Float(0.8) * Float(0.5)) })
        let critical = try ALSATap(in: folder, name: "volume-critical")
        #expect(try TestTools.run(TestTools.notiPlay, [sound, "--critical", "--volume", "0.8"], environment: try environment(critical, config: config)).status == 0)
        #expect(try captured(critical) == decoded.map { $0 * Float(0.8) })
    }

    @Test func aBrokenConfigurationLineWarnsAndTheRestApplies() throws {
        let sound = try tone("config.caf", seconds: 0.1)
        let tap = try ALSATap(in: folder, name: "config")
        let result = try TestTools.run(TestTools.notiPlay, [sound], environment: try environment(tap, config: "volume = loud\nnotification-volume = 0.25\n"))
        #expect(result.status == 0)
        #expect(result.stderr.contains("noti-play.conf:1: unknown key 'volume'"), "\(result.stderr)")
        #expect(try captured(tap) == (try SoundDecoder(path: sound).readAll()).map { $0 * Float(0.25) })
    }

    @Test func defaultAndDefaultCriticalPlayTheBundledSounds() throws {
        let tap = try ALSATap(in: folder, name: "default")
        #expect(try TestTools.run(TestTools.notiPlay, ["--default"], environment: try environment(tap)).status == 0)
        #expect(try captured(tap) == (try SoundDecoder(path: repository + "/Sounds/default.caf").readAll()))
        let critical = try ALSATap(in: folder, name: "default-critical")
        #expect(try TestTools.run(TestTools.notiPlay, ["--default-critical", "--volume", "0.5"], environment: try environment(critical)).status == 0)
        #expect(try captured(critical) == (try SoundDecoder(path: repository + "/Sounds/critical.caf").readAll()).map { $0 * Float(0.5) })
    }
}
