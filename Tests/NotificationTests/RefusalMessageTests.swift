import Foundation
import NotiPlay
import NotiPlayTestSupport
import Testing

/// What a refused name or app id says: the reason it was refused, in its own terms.
@Suite struct RefusalMessageTests {
    let folder = TemporaryDirectory("refusal")
    var sandbox: NotificationSandbox { NotificationSandbox(folder: folder) }

    @Test func aSymlinkInASoundFolderIsSaidToBeRefusedAndWhy() throws {
        let outside = try sandbox.tone("secret.caf", seconds: 0.1, in: folder.file("outside"))
        let sounds = folder.file("linked-sounds")
        try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sounds + "/evil.caf", withDestinationPath: outside)
        let why = "is a symbolic link, refused: a sound name is opened in its folder without following links (O_NOFOLLOW), so that it cannot lead out of the folder"

        let tap = try ALSATap(in: folder, name: "symlink")
        let refused = try TestTools.run(TestTools.notiPlay, ["--named", "evil.caf", "--sounds-dir", sounds], environment: try sandbox.environment(tap))
        #expect(refused.status == 1)
        #expect(refused.stderr == "noti-play: \(sounds)/evil.caf: \(why)\n", "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tap.capturePath))

        // A notification's sound-name: the default plays, and the warning says why.
        var resolver = SoundResolver(locator: SoundLocator(appFolders: [sounds]), policy: SoundPolicy())
        resolver.quietOverride = false
        let resolved = try resolver.resolve(NotificationRequest(soundName: "evil.caf"))
        #expect(resolved.warnings.first?.text == "\(sounds)/evil.caf: \(why)", "\(resolved.warnings)")
        guard case .play(let file, _, _, _) = resolved.action else { Issue.record("\(resolved)"); return }
        #expect(file.path.hasSuffix("/default.caf"))
    }

    @Test(arguments: ["../x", "a/b"])
    func anAppIDThatIsAPathIsSaidToBeOne(appID: String) throws {
        let tap = try ALSATap(in: folder, name: "app-id")
        let result = try TestTools.run(TestTools.notiPlay, ["--default", "--app-id", appID], environment: try sandbox.environment(tap))
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(
            "Error: --app-id '\(appID)' cannot be used: it contains '/': an app id names one folder (noti-play/apps/ID/sounds), not a path\n"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("sound name"))
    }
}
