import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// The command as a new user meets it: --version, --help, and what a mistyped or out-of-range
/// option says (one error line naming the problem, status 64).
@Suite struct UsageTests {
    let repository = Repository.path
    let folder = TemporaryDirectory("usage")

    func notiPlay(_ arguments: [String]) throws -> ProcessResult {
        try TestTools.run(TestTools.notiPlay, arguments)
    }

    /// The first line of stderr: ArgumentParser follows it with the usage.
    func firstLine(_ result: ProcessResult) -> String {
        String(result.stderr.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }

    // MARK: --version

    /// `noti-play --version` prints the Swift constant the C library's noti_play_version() also
    /// returns (CLibraryTests); it must be the header's.
    @Test func versionIsTheHeaders() throws {
        let version = try Repository.headerVersion()
        #expect(version.split(separator: ".").count == 3)
        let result = try notiPlay(["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == "noti-play \(version)\n")
        #expect(result.stderr.isEmpty)
    }

    // MARK: --help

    /// The options `--help` lists, in order: `--named`, `-d, --data`…
    func options(inHelp help: String) -> [String] {
        help.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  -") else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map { String($0.hasSuffix(",") ? $0.dropLast() : $0) }
        }
    }

    /// `play` is what `noti-play FILE` does, so the top-level help shows how to play a sound with
    /// every option, and the subcommands after them.
    @Test func topLevelHelpShowsEveryPlayOption() throws {
        let top = try notiPlay(["--help"])
        #expect(top.status == 0, "\(top.stderr)")
        let play = try notiPlay(["play", "--help"])
        #expect(play.status == 0, "\(play.stderr)")
        let playOptions = options(inHelp: play.stdoutText)
        #expect(playOptions.count >= 16, "\(play.stdoutText)")
        for option in ["--named", "--sounds-dir", "--app-id", "--sound-name", "--default", "--default-critical", "--ringtone",
                       "--for", "--volume", "--critical", "--device", "--list-devices", "--verbose", "--sample-format"] {
            #expect(playOptions.contains(option), "\(option) is not in noti-play play --help")
        }
        let topOptions = options(inHelp: top.stdoutText)
        for option in playOptions {
            #expect(topOptions.contains(option), "\(option) is not in noti-play --help:\n\(top.stdoutText)")
        }
        #expect(top.stdoutText.contains("<file>"))
        for subcommand in ["info", "convert", "check", "listen"] {
            #expect(top.stdoutText.contains("\n  \(subcommand) "), "\(subcommand) is not in noti-play --help")
        }
    }

    // MARK: Forms that must keep working

    /// `noti-play FILE` and `noti-play play FILE` play the same bytes; options after a
    /// subcommand's name are the subcommand's (listen's --interval, not the root's).
    @Test func everyFormStillWorks() throws {
        let sound = repository + "/Sounds/default.caf"
        var captured: [[UInt8]] = []
        for (name, arguments) in [("root", [sound, "--volume", "0.5"]), ("play", ["play", sound, "--volume", "0.5"]),
                                  ("after", ["--volume", "0.5", sound])] {
            let tap = try ALSATap(in: folder, name: name)
            let result = try TestTools.run(TestTools.notiPlay, arguments, environment: tap.environment)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            captured.append(try tap.captured())
        }
        #expect(captured[0].count > 100_000)
        #expect(captured[1] == captured[0] && captured[2] == captured[0])

        let info = try notiPlay(["info", sound])
        #expect(info.status == 0 && info.stdoutText.hasPrefix("File:            \(sound)\n"), "\(info.stderr)")
        let check = try notiPlay(["check", sound])
        #expect(check.status == 0, "\(check.stderr)")
        let listen = try notiPlay(["listen", "--interval", "4000", "--device", "nosuch", "--verbose"])
        #expect(listen.status == 64)
        #expect(firstLine(listen) == "Error: --interval must be from 0 to 3600 seconds")
        let help = try notiPlay(["help", "listen"])
        #expect(help.status == 0 && help.stdoutText.contains("USAGE: noti-play listen"), "\(help.stderr)")
        let topHelp = try notiPlay(["help"])
        #expect(topHelp.status == 0 && topHelp.stdoutText.contains("--sound-name <name>"), "\(topHelp.stderr)")
    }

    // MARK: Negative numbers

    /// A negative number is the option's value (not a missing one): the option's own range message.
    @Test(arguments: [
        (["x.caf", "--volume", "-0.1"], "--volume must be a number from 0.0 to 1.0 (got -0.1)"),
        (["--ringtone", "--for", "-1"], "--for must be a number of seconds above 0 and at most 86400"),
        (["x.caf", "--period-ms", "-5"], "--period-ms must be from 1 to 1000"),
        (["x.caf", "--periods", "-3"], "--periods must be from 2 to 64"),
        (["play", "x.caf", "--volume", "-2"], "--volume must be a number from 0.0 to 1.0 (got -2.0)"),
        (["listen", "--interval", "-1"], "--interval must be from 0 to 3600 seconds"),
        (["listen", "--burst-limit", "-2"], "--burst-limit must be from 1 to 100"),
    ])
    func aNegativeNumberGetsTheRangeMessage(arguments: [String], message: String) throws {
        let result = try notiPlay(arguments)
        #expect(result.status == 64)
        #expect(firstLine(result) == "Error: " + message, "\(result.stderr)")
    }

    // MARK: --backend

    /// A bad --backend value is named escaped: an ESC in it never reaches the terminal (as
    /// ArgumentParser's own message would echo it), and the line says which values there are.
    @Test func aBadBackendIsNamedEscaped() throws {
        let result = try notiPlay(["x.caf", "--backend", "\u{1B}[31mred"])
        #expect(result.status == 64)
        #expect(firstLine(result) == "Error: --backend must be pipewire, pulse, alsa or auto (got '\\x1B[31mred')", "\(result.stderr)")
        #expect(!result.stderr.utf8.contains(0x1B), "a raw ESC reached the terminal")
    }

    /// Whatever ArgumentParser echoes of what was typed (a value it refuses, an unknown option,
    /// in the root or a subcommand) is escaped: no raw ESC reaches the terminal, status 64.
    @Test(arguments: [
        ["x.caf", "--sample-format", "\u{1B}[31mX"], ["x.caf", "--volume", "\u{1B}[31m"], ["--\u{1B}[31mx"],
        ["info", "--\u{1B}[31mx", "a.caf"], ["listen", "--interval", "\u{1B}[31m"],
    ])
    func argumentParsersMessagesAreEscaped(arguments: [String]) throws {
        let result = try notiPlay(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(firstLine(result).hasPrefix("Error: ") && firstLine(result).contains("\\x1B[31m"), "\(result.stderr)")
        #expect(!result.stderr.utf8.contains(0x1B), "a raw ESC reached the terminal: \(result.stderr)")
    }

    /// --backend's help says that pulse is PulseAudio itself only, and what to use on
    /// PipeWire's PulseAudio service.
    @Test func backendHelpSaysPulseIsNotForPipeWire() throws {
        let result = try notiPlay(["--help"])
        #expect(result.status == 0)
        let help = result.stdoutText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("pulse is PulseAudio itself only: on PipeWire's PulseAudio service (pipewire-pulse)"), "\(help)")
        #expect(help.contains("use pipewire or auto there"), "\(help)")
    }

    // MARK: Mistyped options

    /// A mistyped option, with or without a file: "Unknown option" and its suggestion, never
    /// "Name a sound to play" (which a missing sound would say).
    @Test(arguments: [
        (["--volme", "0.5"], "'--volme'. Did you mean '--volume'?"),
        (["--critcal"], "'--critcal'. Did you mean '--critical'?"),
        (["--sound-nme", "x"], "'--sound-nme'. Did you mean '--sound-name'?"),
        (["--ringtone", "--fr", "3"], "'--fr'. Did you mean '--for'?"),
        (["--defualt"], "'--defualt'. Did you mean '--default'?"),
        (["--list-device"], "'--list-device'. Did you mean '--list-devices'?"),
        (["x.caf", "--critcal"], "'--critcal'. Did you mean '--critical'?"),
        (["play", "--critcal"], "'--critcal'. Did you mean '--critical'?"),
        (["info", "--jsn", "x.caf"], "'--jsn'. Did you mean '--json'?"),
    ])
    func aMistypedOptionIsUnknown(arguments: [String], message: String) throws {
        let result = try notiPlay(arguments)
        #expect(result.status == 64)
        #expect(firstLine(result) == "Error: Unknown option " + message, "\(result.stderr)")
        #expect(!result.stderr.contains("Name a sound"))
    }

    /// No sound and no mistake: the one line that says what to name.
    @Test(arguments: [[], ["play"], ["--volume", "0.5"]])
    func noSoundAtAllSaysWhatToName(arguments: [String]) throws {
        let result = try notiPlay(arguments)
        #expect(result.status == 64)
        #expect(firstLine(result) == "Error: Name a sound to play (a FILE, --named, --sound-name, --default or --ringtone), or use --list-devices.")
    }

    // MARK: Usage errors of every subcommand: 64; file failures: 1

    @Test(arguments: [
        ["info"], ["check"], ["check", "a.caf", "b.caf"], ["convert", "a.caf"], ["convert", "a.caf", "b.caf", "-d"],
        ["convert", "a.caf", "b.caf", "-d", "LEI12"], ["convert", "a.caf", "b.caf", "-f", "mp3"], ["convert", "a.caf", "b.ogg"],
        ["listen", "--always", "yes"], ["listen", "--interval", "soon"], ["x.caf", "--sample-format", "S8"],
        ["x.caf", "--app-id", "../x"], ["x.caf", "--for", "3"], ["x.caf", "--default"], ["nosuch"] + ["--volume", "x"],
        ["--list-devices", "x.caf"], ["--list-devices", "--ringtone"],
        ["convert", "a.caf", "b.wav", "-d", "LEI16@1e19"], ["convert", "a.caf", "b.wav", "-d", "LEF32@2822400"],
        ["convert", "a.caf", "b.wav", "-d", "LEI16@48000", "-r", "200"], ["convert", "a.caf", "b.wav", "-d", "LEI16@48000", "-r", "-1"], ["x.caf", "listen"],
    ])
    func aUsageErrorIs64(arguments: [String]) throws {
        let result = try notiPlay(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    /// A subcommand's name after the root's options or a file is not a file to play (unless a
    /// file has that name), and `help` takes one subcommand.
    @Test(arguments: [
        (["--device", "x", "listen"], "Error: 'listen' is a subcommand: name it first (noti-play listen ...); a file of that name is ./listen"),
        (["--verbose", "info", "x"], "Error: 'info' is a subcommand: name it first (noti-play info ...); a file of that name is ./info"),
        (["x.caf", "listen"], "Error: 'listen' is a subcommand: name it first (noti-play listen ...); a file of that name is ./listen"),
        (["x.caf", "info"], "Error: 'info' is a subcommand: name it first (noti-play info ...); a file of that name is ./info"),
        (["help", "nosuch"], "Error: 'help' takes one subcommand: info, convert, check, listen"),
        (["help", "info", "convert"], "Error: 'help' takes one subcommand: info, convert, check, listen"),
    ])
    func aSubcommandInTheWrongPlaceSaysSo(arguments: [String], message: String) throws {
        let result = try TestTools.run("/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", folder.path, TestTools.notiPlay] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(firstLine(result) == message)
    }

    /// Started with stderr closed (`2>&-`), it still plays, exactly: nothing of ours takes the
    /// place of fd 2.
    @Test func withStderrClosedItStillPlays() throws {
        let tap = try ALSATap(in: folder)
        let result = try TestTools.run("/bin/sh", ["-c", "exec \"$0\" \"$1\" 2>&-", TestTools.notiPlay, repository + "/Sounds/default.caf"],
                                       environment: tap.environment)
        #expect(result.status == 0)
        let played = try tap.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let sound = try SoundDecoder(path: repository + "/Sounds/default.caf").readAll()
        #expect(!sound.isEmpty && Array(played.prefix(sound.count)) == sound)
    }

    @Test(arguments: [["nosuch.caf"], ["play", "nosuch.caf"], ["info", "nosuch.caf"], ["check", "nosuch.caf"],
                      ["convert", "nosuch.caf", "out.caf", "-d", "LEI16"]])
    func aMissingFileIs1(arguments: [String]) throws {
        let result = try TestTools.run("/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", folder.path, TestTools.notiPlay] + arguments)
        #expect(result.status == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("noti-play: nosuch.caf: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }
}
