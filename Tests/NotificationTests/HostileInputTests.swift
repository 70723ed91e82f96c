import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// What an attacker, or a careless configuration, puts where noti-play looks: configuration
/// quirks, FIFOs in place of files, names swapped under the lookup, formats a notification sound
/// may not have, control characters in paths. Each ends in a line and a status, never a hang.
@Suite struct HostileInputTests {
    let folder = TemporaryDirectory("hostile")
    var sandbox: NotificationSandbox { NotificationSandbox(folder: folder) }
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Runs the command with a hard bound: a run still going after `seconds` is killed, and the
    /// test fails on the hang instead of hanging itself.
    func runBounded(
        _ arguments: [String], environment: [String: String], seconds: Double = 10
    ) throws -> (status: Int32, stderr: String, elapsed: Double) {
        let started = Date()
        let child = try ChildProcess(TestTools.notiPlay, arguments, environment: environment, in: folder)
        let killer = DispatchWorkItem { child.signal(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: killer)
        let status = child.wait()
        killer.cancel()
        let elapsed = Date().timeIntervalSince(started)
        #expect(status != 128 + SIGKILL, "noti-play \(arguments) still ran after \(seconds) s")
        return (status, child.stderr, elapsed)
    }

    func lines(_ text: String) -> [Substring] { text.split(separator: "\n") }

    // MARK: Configuration

    @Test func aCRLFConfigurationWithAByteOrderMarkIsReadLineByLine() {
        let text = "\u{FEFF}do-not-disturb = true\r\nnotification-volume = 0.25\r\n# a comment\r\ntheme = mine\r\n"
        let (policy, warnings) = SoundPolicy.parse(text)
        #expect(warnings == [])
        #expect(policy.doNotDisturb)
        #expect(policy.notificationVolume == 0.25)
        #expect(policy.theme == "mine")
    }

    /// A default sound in noti-play.conf is an absolute path: a relative one would be opened
    /// from the working folder of whatever plays it (a daemon's is anywhere), so it is ignored,
    /// with a warning; an absolute one is kept byte for byte.
    /// A relative sound path in noti-play.conf is its folder's (an older file's `sounds/ding.wav`
    /// meant the host's working folder, which a daemon does not choose); text read from no file
    /// has no folder, and such a path is ignored with a warning.
    @Test func aRelativeDefaultSoundInTheConfigurationIsItsFoldersOrIgnoredWithAWarning() throws {
        let (policy, warnings) = SoundPolicy.parse("default-sound = sounds/bell.wav\ncritical-sound = /srv/alarm.wav\n")
        #expect(policy.defaultSound == nil && policy.criticalSound == SoundPath("/srv/alarm.wav"), "\(policy)")
        #expect(warnings == ["configuration:1: default-sound must be an absolute path, not 'sounds/bell.wav'"], "\(warnings)")
        let path = folder.file("noti-play.conf")
        try "default-sound = sounds/bell.wav\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (fromFile, fileWarnings) = SoundPolicy.load(from: path)
        #expect(fromFile.defaultSound == SoundPath(folder.file("sounds/bell.wav")) && fileWarnings.isEmpty, "\(fromFile) \(fileWarnings)")
    }

    @Test(arguments: ["-1:00-05:00", "00:00-00:00", "24:00-01:00", "1:5-02:00", "01:00-+2:00", "01:00-05:00-06:00", "aa:00-05:00"])
    func aQuietHoursWindowThatIsNotOneIsRefusedWithAWarning(window: String) {
        let (policy, warnings) = SoundPolicy.parse("quiet-hours = \(window)\n")
        #expect(policy.quietHours == nil, "'\(window)' was read as \(String(describing: policy.quietHours))")
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("quiet-hours must be HH:MM-HH:MM") == true, "\(warnings)")
    }

    @Test func quietHoursMayPassMidnightAndCoverTheWholeDay() {
        #expect(SoundPolicy.parse("quiet-hours = 22:00-07:30").policy.quietHours.map { [$0.start, $0.end] } == [1320, 450])
        #expect(SoundPolicy.parse("quiet-hours = 00:00-24:00").policy.quietHours.map { [$0.start, $0.end] } == [0, 1440])
        #expect(SoundPolicy.parse("quiet-hours = 7:00-9:00").policy.quietHours.map { [$0.start, $0.end] } == [420, 540])
    }

    @Test func aConfigurationOverItsSizeLimitIsRefusedWholeWithAWarning() throws {
        let path = folder.file("big.conf")
        // The one setting that matters comes after 64 KiB of comments: it must not be half-read.
        let text = "do-not-disturb = true\n" + String(repeating: "# padding padding padding padding padding\n", count: 2000)
            + "notification-volume = 0.5\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (policy, warnings) = SoundPolicy.load(from: path)
        #expect(policy == SoundPolicy())
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("limit") == true && warnings.first?.contains("using the defaults") == true, "\(warnings)")
    }

    @Test func aFIFOAsTheConfigurationIsRefusedAtOnce() throws {
        let tap = try ALSATap(in: folder, name: "fifo-config")
        var environment = try sandbox.environment(tap, config: "")
        let config = environment["XDG_CONFIG_HOME"]! + "/noti-play/noti-play.conf"
        try FileManager.default.removeItem(atPath: config)
        #expect(mkfifo(config, 0o600) == 0)
        environment["XDG_DATA_HOME"] = folder.file("nothing")
        let result = try runBounded(["--default"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("noti-play.conf: is a FIFO, not a regular file; using the defaults"), "\(result.stderr)")
        #expect(result.elapsed < 5)
        #expect(try sandbox.captured(tap) == (try SoundDecoder(path: repository + "/Sounds/default.caf").readAll()))
    }

    @Test func aFIFOAsAThemeIndexIsSkippedAtOnce() throws {
        let theme = folder.file("data/sounds/mine")
        try FileManager.default.createDirectory(atPath: theme, withIntermediateDirectories: true)
        #expect(mkfifo(theme + "/index.theme", 0o600) == 0)
        let tap = try ALSATap(in: folder, name: "fifo-theme")
        let result = try runBounded(["--sound-name", "message-new-instant"], environment: try sandbox.environment(tap, config: "theme = mine\n"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.elapsed < 5)
        let reference = try #require(LibSndFile.decode("/usr/share/sounds/freedesktop/stereo/message-new-instant.oga"))
        #expect(try sandbox.captured(tap) == reference.samples)
    }

    @Test(arguments: ["fifo", "garbage", "missing"])
    func aConfiguredDefaultThatCannotPlayGivesWayToTheBundledOneWithAWarning(kind: String) throws {
        let configured = folder.file("configured-\(kind).caf")
        switch kind {
        case "fifo": #expect(mkfifo(configured, 0o600) == 0)
        case "garbage": try "not a sound at all".write(toFile: configured, atomically: true, encoding: .utf8)
        default: break
        }
        let tap = try ALSATap(in: folder, name: "default-\(kind)")
        let config = "critical-sound = \(configured)\n"
        let result = try runBounded(["--default-critical"], environment: try sandbox.environment(tap, config: config))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.elapsed < 5)
        #expect(result.stderr.contains("warning: \(configured)"), "\(result.stderr)")
        #expect(result.stderr.contains("the configured sound cannot be played; using noti-play's own"), "\(result.stderr)")
        #expect(try sandbox.captured(tap) == (try SoundDecoder(path: repository + "/Sounds/critical.caf").readAll()))
    }

    @Test func relativeXDGFoldersAreIgnored() throws {
        // Relative to the working folder, these would silence every sound and add a sound folder.
        let work = folder.file("work")
        _ = try sandbox.tone("relative.caf", seconds: 0.1, in: work + "/rel-data/noti-play/sounds")
        try FileManager.default.createDirectory(atPath: work + "/rel-config/noti-play", withIntermediateDirectories: true)
        try "do-not-disturb = true\n".write(toFile: work + "/rel-config/noti-play/noti-play.conf", atomically: true, encoding: .utf8)
        let tap = try ALSATap(in: folder, name: "relative")
        var environment = tap.environment
        environment["XDG_DATA_HOME"] = "rel-data"
        environment["XDG_CONFIG_HOME"] = "rel-config"
        environment["HOME"] = folder.file("home")
        let named = try TestTools.run("/bin/sh", ["-c", "cd '\(work)' && exec '\(TestTools.notiPlay)' --named relative.caf"], environment: environment)
        #expect(named.status == 1)
        #expect(named.stderr.contains("sound 'relative.caf' was not found"), "\(named.stderr)")
        let played = try TestTools.run("/bin/sh", ["-c", "cd '\(work)' && exec '\(TestTools.notiPlay)' --default"], environment: environment)
        #expect(played.status == 0, "\(played.stderr)")
        #expect(!played.stderr.contains("not playing"), "\(played.stderr)")
    }

    @Test func anInvalidAppIDIsAnErrorNotSilentlyDropped() throws {
        let tap = try ALSATap(in: folder, name: "app-id")
        let result = try TestTools.run(TestTools.notiPlay, ["--default", "--app-id", "../../etc"], environment: try sandbox.environment(tap))
        #expect(result.status == 64)
        #expect(result.stderr.contains("--app-id '../../etc' cannot be used"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tap.capturePath))

        let player = NotificationSoundPlayer(configuration: .init(appID: "a/b", device: "null", policy: SoundPolicy()))
        #expect(player.configurationWarnings.contains { $0.contains("app id 'a/b' is not used") }, "\(player.configurationWarnings)")
        player.close()
    }

    // MARK: Names swapped under the lookup

    /// A name in an allowed folder swapped, as fast as possible, between a short sound and a
    /// symlink to a secret outside (or a long sound inside): whatever is checked is what plays.
    @Test(arguments: ["symlink", "long"])
    func aNameSwappedDuringLookupNeverPlaysWhatWasNotChecked(swap: String) throws {
        let sounds = folder.file("swap-\(swap)")
        let short = try sandbox.tone("short.caf", seconds: 0.05, in: folder.file("sources-\(swap)"))
        let secret = try sandbox.tone("secret.caf", seconds: 40, in: folder.file("outside-\(swap)"))
        try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)
        let name = sounds + "/ping.caf"
        #expect(link(short, name) == 0)
        let shortFrames = try SoundDecoder(path: short).description.frameCount
        let defaultFrames = try SoundDecoder(path: repository + "/Sounds/default.caf").description.frameCount

        let stop = ManagedAtomicFlag()
        let swapper = Thread {
            var turn = 0
            while !stop.isSet {
                let temporary = sounds + "/.swap"
                unlink(temporary)
                if turn % 2 == 0 { _ = link(short, temporary) }
                else if swap == "symlink" { _ = symlink(secret, temporary) }
                else { _ = link(secret, temporary) }
                rename(temporary, name)
                turn += 1
            }
        }
        swapper.start()
        defer { stop.set() }

        let resolver = SoundResolver(locator: SoundLocator(appFolders: [sounds]), policy: SoundPolicy())
        var outcomes: [String: Int] = [:]
        for _ in 0..<300 {
            do {
                let resolved = try resolver.resolve(.named("ping.caf"))
                guard case let .play(file, _, _, _) = resolved.action else { Issue.record("silenced"); continue }
                let source = try SoundSources.open(file)
                var buffer = [Float](repeating: 0, count: 8192)
                var frames = 0
                while case let n = try buffer.withUnsafeMutableBufferPointer({ try source.read(into: $0) }), n > 0 { frames += n }
                switch frames {
                case shortFrames: outcomes["short", default: 0] += 1
                case defaultFrames where resolved.warnings.contains(where: { $0.text.contains("lasts 40.0 s") }): outcomes["default", default: 0] += 1
                default: Issue.record("played \(frames) frames: neither the short sound nor the default")
                }
            } catch {
                // The symlink, seen at the moment of the lookup, is refused, and said to be.
                #expect(String(describing: error).contains("/ping.caf: ") && String(describing: error).contains("symbolic link, refused"), "\(error)")
                outcomes["refused", default: 0] += 1
            }
        }
        #expect(outcomes["short", default: 0] > 0, "\(outcomes)")
    }

    // MARK: Formats by who named the sound

    /// Files libsndfile reads but a notification sound may not be, renamed `.caf`.
    static let foreignFormats: [(name: String, tool: [String])] = [
        ("au", ["ffmpeg", "-f", "au"]), ("voc", ["ffmpeg", "-f", "voc"]), ("flac", ["ffmpeg", "-f", "flac"]),
        ("w64", ["ffmpeg", "-f", "w64"]), ("paf", ["sox", "-t", "paf"]),
    ]

    @Test(arguments: foreignFormats.map(\.name))
    func aNamedSoundIsRefusedInAFormatOnlyLibsndfileReadsButTheSamePathPlays(format: String) throws {
        let sounds = folder.file("foreign-\(format)")
        try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)
        let path = sounds + "/ping.caf"
        let wav = try sandbox.tone("source-\(format).wav", seconds: 0.1)
        let tool = try #require(Self.foreignFormats.first { $0.name == format }?.tool)
        if tool[0] == "ffmpeg" {
            try TestTools.runChecked("ffmpeg", ["-v", "error", "-i", wav] + tool.dropFirst() + ["-y", path])
        } else {
            try TestTools.runChecked("sox", [wav] + tool.dropFirst() + [path])
        }
        let reference = try #require(LibSndFile.decode(path), "libsndfile reads the \(format) file")

        let refusedTap = try ALSATap(in: folder, name: "foreign-named-\(format)")
        let refused = try TestTools.run(TestTools.notiPlay, ["--named", "ping.caf", "--sounds-dir", sounds], environment: try sandbox.environment(refusedTap))
        #expect(refused.status == 1)
        #expect(lines(refused.stderr).count == 1)
        #expect(refused.stderr.contains("a notification sound is WAV, AIFF/AIFC or CAF"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: refusedTap.capturePath))

        let playedTap = try ALSATap(in: folder, name: "foreign-path-\(format)")
        let played = try TestTools.run(TestTools.notiPlay, [path], environment: try sandbox.environment(playedTap))
        #expect(played.status == 0, "\(played.stderr)")
        #expect(try sandbox.captured(playedTap) == reference.samples)

        // info, check and convert say of the path what play does.
        let info = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdoutText.contains("(read by libsndfile)"), "\(info.stdoutText)")
        #expect(info.stdoutText.contains("Frames:          \(reference.frameCount)\n"), "\(info.stdoutText)")
        let check = try TestTools.run(TestTools.notiPlay, ["check", path])
        #expect(check.status == 1)
        #expect(check.stderr.contains("played from a path through libsndfile); a notification sound is WAV, AIFF/AIFC or CAF"), "\(check.stderr)")
        let converted = sounds + "/converted.wav"
        let convert = try TestTools.run(TestTools.notiPlay, ["convert", path, converted, "-d", "LEF32"])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(try SoundDecoder(path: converted).readAll() == reference.samples)
    }

    @Test func aThemeSoundIsWAVOggOrFLACOnly() throws {
        let stereo = folder.file("data/sounds/mine/stereo")
        try FileManager.default.createDirectory(atPath: stereo, withIntermediateDirectories: true)
        try "[Sound Theme]\nName=Mine\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n"
            .write(toFile: folder.file("data/sounds/mine/index.theme"), atomically: true, encoding: .utf8)
        let wav = try sandbox.tone("theme-source.wav", seconds: 0.1)
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-i", wav, "-f", "au", "-y", stereo + "/bell.oga"])
        let tap = try ALSATap(in: folder, name: "theme-au")
        let result = try TestTools.run(TestTools.notiPlay, ["--sound-name", "bell"], environment: try sandbox.environment(tap, config: "theme = mine\n"))
        #expect(result.status == 1)
        #expect(result.stderr.contains("a theme sound is WAV, Ogg or FLAC"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tap.capturePath))
    }

    // MARK: The command line

    @Test func aPathWithANewlineAndEscapesStaysOneEscapedLine() throws {
        let tap = try ALSATap(in: folder, name: "newline")
        let result = try TestTools.run(TestTools.notiPlay, ["x\nnoti-play: fake \u{1B}[31mred\u{9B}"], environment: try sandbox.environment(tap))
        #expect(result.status == 1)
        #expect(lines(result.stderr).count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("noti-play: x\\nnoti-play: fake \\x1B[31mred\\u{009B}: cannot open"), "\(result.stderr)")
    }

    @Test func aFileNameThatIsNotUTF8Plays() throws {
        let work = folder.file("latin1")
        let source = try sandbox.tone("source.caf", seconds: 0.1, in: work)
        // "été.caf" in ISO 8859-1: the bytes E9 74 E9.
        let name: [CChar] = [CChar(bitPattern: 0xE9), 0x74, CChar(bitPattern: 0xE9), 0x2E, 0x63, 0x61, 0x66, 0]
        let full = Array(work.utf8CString.dropLast()) + [0x2F] + name
        #expect(link(source, full) == 0)
        let tap = try ALSATap(in: folder, name: "latin1")
        let result = try TestTools.run("/bin/sh", ["-c", "cd '\(work)' && exec '\(TestTools.notiPlay)' \"$(printf '\\351t\\351.caf')\""],
                                       environment: try sandbox.environment(tap))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.captured(tap) == (try SoundDecoder(path: source).readAll()))

        let missing = try TestTools.run("/bin/sh", ["-c", "cd '\(work)' && exec '\(TestTools.notiPlay)' \"$(printf 'x\\351.caf')\""],
                                        environment: try sandbox.environment(tap))
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("noti-play: x\\xE9.caf: cannot open: No such file or directory"), "\(missing.stderr)")
    }

    @Test(arguments: ["1e19", "inf", "nan", "-1", "0", "86401"])
    func anOutOfRangeRingtoneLengthIsRefused(seconds: String) throws {
        let tap = try ALSATap(in: folder, name: "for")
        let result = try TestTools.run(TestTools.notiPlay, ["--ringtone", "--for=\(seconds)"], environment: try sandbox.environment(tap))
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--for must be a number of seconds above 0 and at most 86400"), "\(result.stderr)")
    }
}

/// A flag one thread sets and another polls.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
