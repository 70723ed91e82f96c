import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayTestSupport
import Testing

/// The sound theme as an attacker and a theme's author meet it: the work one lookup may do, and
/// an index that changes.
@Suite struct ThemeLookupTests {
    let folder = TemporaryDirectory("theme")
    var sandbox: NotificationSandbox { NotificationSandbox(folder: folder) }

    /// 255 bytes, 128 parts: the longest name, with the most fallbacks.
    static let hostileName = Array(repeating: "a", count: 128).joined(separator: "-")

    /// A chain of `themes` themes under `base` (t0 inherits t1 … ), each listing `directories`
    /// folders that exist, with a `de` subfolder each.
    func hostileThemes(in base: String, themes: Int = 32, directories: Int) throws {
        for theme in 0..<themes {
            let folder = base + "/t\(theme)"
            let names = (0..<directories).map { "d\($0)" }
            for name in names { try FileManager.default.createDirectory(atPath: folder + "/\(name)/de", withIntermediateDirectories: true) }
            let inherits = theme + 1 < themes ? "Inherits=t\(theme + 1)\n" : ""
            let sections = names.map { "[\($0)]\nOutputProfile=stereo\n" }.joined()
            try "[Sound Theme]\nName=t\(theme)\n\(inherits)Directories=\(names.joined(separator: ","))\n\n\(sections)"
                .write(toFile: folder + "/index.theme", atomically: true, encoding: .utf8)
        }
    }

    func theme(_ name: String, base: String, cache: ThemeIndexCache, locales: [String] = []) -> SoundTheme {
        var theme = SoundTheme(name: name)
        theme.baseFolders = [base]
        theme.locales = locales
        theme.indexes = cache
        return theme
    }

    // MARK: The bound of one lookup

    /// Before the bound: every candidate name (128) in every theme (33), every directory and
    /// locale, with each index read again for each candidate: 0.34 s to 70 s (issue 23).
    @Test func aHostileThemeAndNameCostAtMostTheLookupsBound() throws {
        let base = folder.file("sounds")
        try hostileThemes(in: base, directories: 40)
        let cache = ThemeIndexCache()
        let hostile = theme("t0", base: base, cache: cache, locales: ["de"])

        let answer = hostile.lookup(Self.hostileName)
        #expect(answer.match == nil)
        #expect(answer.operations <= SoundTheme.Limits.fileSystemOperations, "\(answer.operations) file-system operations")
        #expect(answer.stopped?.contains("stopped after \(SoundTheme.Limits.fileSystemOperations) file-system operations") == true,
                "\(String(describing: answer.stopped))")
        // Each index once per lookup, and not again while it is unchanged.
        #expect(cache.parses == 32)
        #expect(hostile.lookup(Self.hostileName).operations <= SoundTheme.Limits.fileSystemOperations)
        #expect(cache.parses == 32)
    }

    /// Within the bound the spec's order holds: the first parts of a long name, a sound of an
    /// inherited theme, a locale's subfolder first.
    @Test func aLongNameIsSoughtFromItsFirstPartsThroughTheInheritedThemes() throws {
        let base = folder.file("sounds")
        try hostileThemes(in: base, themes: 3, directories: 2)
        _ = try sandbox.tone("a-a-a-a-a-a-a-a.wav", seconds: 0.05, in: base + "/t2/d1")
        _ = try sandbox.tone("a-a-a-a-a-a-a-a.wav", seconds: 0.05, in: base + "/t2/d1/de")
        let cache = ThemeIndexCache()
        let answer = theme("t0", base: base, cache: cache, locales: ["de"]).lookup(Self.hostileName)
        #expect(answer.match == .file(base + "/t2/d1/de/a-a-a-a-a-a-a-a.wav"), "\(answer)")
        #expect(answer.stopped == nil)
        #expect(answer.operations < 100, "\(answer.operations)")
        #expect(cache.parses == 3)
    }

    /// What the command says, and that it ends, on the same kind of theme.
    @Test func theCommandAnswersAHostileLookupWithItsReason() throws {
        try hostileThemes(in: folder.file("data/sounds"), directories: 16)
        let tap = try ALSATap(in: folder, name: "hostile")
        let child = try ChildProcess(TestTools.notiPlay, ["--sound-name", Self.hostileName],
                                     environment: try sandbox.environment(tap, config: "theme = t0\n"), in: folder)
        // Only against a hang: the test asserts what it says, not how long it took.
        let killer = DispatchWorkItem { child.signal(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: killer)
        let status = child.wait()
        killer.cancel()
        #expect(status == 1)
        #expect(child.stderr.split(separator: "\n").count == 1, "\(child.stderr)")
        #expect(child.stderr.hasPrefix("noti-play: sound 'a-a-a-"), "\(child.stderr)")
        #expect(child.stderr.contains("was not found: looking it up in sound theme 't0' stopped after 1024 file-system operations"),
                "\(child.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tap.capturePath))
    }

    // MARK: The index cache

    @Test func anEditedIndexIsReadAgainAndAnUnchangedOneIsNot() throws {
        let base = folder.file("sounds")
        let one = try sandbox.tone("bell.wav", seconds: 0.05, in: base + "/mine/one")
        let two = try sandbox.tone("bell.wav", seconds: 0.05, in: base + "/mine/two")
        let index = base + "/mine/index.theme"
        let cache = ThemeIndexCache()
        let mine = theme("mine", base: base, cache: cache)

        try "[Sound Theme]\nName=Mine\nDirectories=one\n".write(toFile: index, atomically: false, encoding: .utf8)
        #expect(mine.lookup("bell").match == .file(one))
        #expect(mine.lookup("bell").match == .file(one))
        #expect(cache.parses == 1)

        // Edited in place to the same size (same device, inode and size): its modification time
        // tells. Set apart explicitly, as two writes may fall within one tick of the file
        // system's clock.
        let before = try #require(try FileManager.default.attributesOfItem(atPath: index)[.modificationDate] as? Date)
        try "[Sound Theme]\nName=Mine\nDirectories=two\n".write(toFile: index, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: before.addingTimeInterval(-10)], ofItemAtPath: index)
        #expect(mine.lookup("bell").match == .file(two))
        #expect(cache.parses == 2)

        // Replaced (a new inode), as a package update does.
        try "[Sound Theme]\nName=Mine\nDirectories=one\n".write(toFile: index, atomically: true, encoding: .utf8)
        #expect(mine.lookup("bell").match == .file(one))
        #expect(mine.lookup("bell").match == .file(one))
        #expect(cache.parses == 3)
    }

    /// The stereo profile's directories first, whatever the order they are listed in; a
    /// section's OutputProfile given twice counts as its last.
    @Test func theOutputProfilesDirectoriesAreSearchedFirst() throws {
        let base = folder.file("sounds")
        let surround = try sandbox.tone("bell.wav", seconds: 0.05, in: base + "/mine/surround")
        let stereo = try sandbox.tone("bell.wav", seconds: 0.05, in: base + "/mine/stereo")
        let sections = "[surround]\nOutputProfile=stereo\nOutputProfile=5.1\n[stereo]\nOutputProfile=5.1\nOutputProfile=stereo\n"
        try "[Sound Theme]\nName=Mine\nDirectories=surround, stereo\n\n\(sections)"
            .write(toFile: base + "/mine/index.theme", atomically: true, encoding: .utf8)
        #expect(theme("mine", base: base, cache: ThemeIndexCache()).lookup("bell").match == .file(stereo), "not \(surround)")
    }

    /// An index's directories stay inside its theme, however it spells them.
    @Test func anIndexDirectoryThatLeavesTheThemeIsIgnored() throws {
        let base = folder.file("sounds")
        let outside = try sandbox.tone("bell.wav", seconds: 0.05, in: folder.file("outside"))
        let inside = try sandbox.tone("bell.wav", seconds: 0.05, in: base + "/mine/stereo")
        try "[Sound Theme]\nName=Mine\nDirectories=../../outside,/\(folder.path)/outside,stereo\n"
            .write(toFile: base + "/mine/index.theme", atomically: true, encoding: .utf8)
        #expect(theme("mine", base: base, cache: ThemeIndexCache()).lookup("bell").match == .file(inside), "not \(outside)")
    }
}
