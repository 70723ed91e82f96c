import Foundation
import NotiPlayTestSupport
import Testing

/// The man page and the shell completions scripts/install.sh installs, generated from the
/// command itself (scripts/docs/generate-docs.sh): they work in the real shells and man, and name
/// every option the command has.
@Suite struct DocsTests {
    /// One installation for the suite, into a fresh prefix, from what `swift build` made.
    final class Installation: Sendable {
        static let shared = Result { try Installation() }
        let folder = TemporaryDirectory("docs")
        var prefix: String { folder.file("prefix") }

        init() throws {
            let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().path
            let built = URL(fileURLWithPath: TestTools.notiPlay).deletingLastPathComponent().path
            try TestTools.runChecked(repository + "/scripts/install.sh", ["--prefix", prefix, "--from", built])
        }
    }

    func installed(_ path: String) throws -> String {
        let file = try Installation.shared.get().prefix + "/" + path
        try #require(FileManager.default.fileExists(atPath: file), "install.sh did not install \(path)")
        return file
    }

    // MARK: bash

    /// What bash offers for the last of `words`, from the installed completion file.
    func bashCompletions(_ words: [String], files: [String] = []) throws -> [String] {
        let script = """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            _noti-play noti-play "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let empty = TemporaryDirectory("completion")  // no file names to offer but `files`
        for file in files { try #require(FileManager.default.createFile(atPath: empty.file(file), contents: Data())) }
        let result = try TestTools.run("bash", ["-c", "cd \"$0\" && " + script, empty.path,
                                                try installed("share/bash-completion/completions/noti-play")] + words)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(words): \(result.stderr)")
        return result.stdoutText.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    @Test func bashCompletesOptionsAndSubcommands() throws {
        // Sourced, never run: no #! line (Debian's lintian warns about one).
        let file = try String(contentsOfFile: try installed("share/bash-completion/completions/noti-play"), encoding: .utf8)
        #expect(!file.hasPrefix("#!"))
        #expect(try bashCompletions(["noti-play", "--vol"]) == ["--volume"])
        #expect(try bashCompletions(["noti-play", "con"]) == ["convert"])
        #expect(try bashCompletions(["noti-play", "--sound-n"]) == ["--sound-name"])
        #expect(try bashCompletions(["noti-play", "--sample-format", ""]) == ["FLOAT", "S32", "S16"])
        #expect(try bashCompletions(["noti-play", "info", "--j"]) == ["--json"])
        #expect(try bashCompletions(["noti-play", "listen", "--dev"]) == ["--device"])
        #expect(try bashCompletions(["noti-play", "convert", "-"]).contains("--data"))
        #expect(try bashCompletions(["noti-play", "convert", "in.caf", "out.wav", "-d", "LEF"]) == ["LEF32", "LEF64"])
        #expect(try bashCompletions(["noti-play", "convert", "in.caf", "out.wav", "-f", ""]) == ["caff", "WAVE", "AIFF", "AIFC"])
        #expect(try bashCompletions(["noti-play", "info", "ch"], files: ["chime.caf", "other.wav"]) == ["chime.caf"])
        // The root's FILE: the function offers nothing, so bash falls back to file names.
        #expect(try bashCompletions(["noti-play", "chi"], files: ["chime.caf"]) == [])
        let spec = try TestTools.run("bash", ["-c", "source \"$0\" && complete -p noti-play", try installed("share/bash-completion/completions/noti-play")])
        #expect(spec.stdoutText == "complete -o default -o filenames -F _noti-play noti-play\n", "\(spec.stdoutText) \(spec.stderr)")
    }

    // MARK: zsh, fish

    @Test func zshAndFishScriptsParseAndFishCompletes() throws {
        let zsh = try TestTools.run("zsh", ["-n", try installed("share/zsh/vendor-completions/_noti-play")])
        #expect(zsh.status == 0 && zsh.stderr.isEmpty, "\(zsh.stderr)")
        let fish = try TestTools.run("fish", ["-n", try installed("share/fish/vendor_completions.d/noti-play.fish")])
        #expect(fish.status == 0 && fish.stderr.isEmpty, "\(fish.stderr)")
        // fish completes from the file as it would on the command line.
        let empty = TemporaryDirectory("completion")
        let offered = try TestTools.run("fish", ["-c", "cd $argv[1]; and source $argv[2]; and complete -C'noti-play --vol'; and complete -C'noti-play con'",
                                                 empty.path, try installed("share/fish/vendor_completions.d/noti-play.fish")])
        #expect(offered.status == 0 && offered.stderr.isEmpty, "\(offered.stderr)")
        #expect(offered.stdoutText.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" } == ["--volume", "convert"],
                "\(offered.stdoutText)")
        #expect(try String(contentsOfFile: try installed("share/zsh/vendor-completions/_noti-play"), encoding: .utf8)
            .contains("--volume"))
        // The root's FILE, and a subcommand's files.
        try #require(FileManager.default.createFile(atPath: empty.file("chime.caf"), contents: Data()))
        let files = try TestTools.run("fish", ["-c", "cd $argv[1]; and source $argv[2]; and complete -C'noti-play chi'; and complete -C'noti-play info chi'",
                                               empty.path, try installed("share/fish/vendor_completions.d/noti-play.fish")])
        #expect(files.stdoutText.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" } == ["chime.caf", "chime.caf"],
                "\(files.stdoutText) \(files.stderr)")
    }

    // MARK: The man page

    /// The options `--help` lists (`--named`, `--data`…), long names only.
    func longOptions(inHelp help: String) -> [String] {
        help.split(separator: "\n").flatMap { line -> [String] in
            guard line.hasPrefix("  -") else { return [] }
            return line.split(separator: " ").map { String($0.hasSuffix(",") ? $0.dropLast() : $0) }.filter { $0.hasPrefix("--") }
        }
    }

    @Test func theManPageRendersWithoutWarningsAndListsEveryOption() throws {
        let page = try installed("share/man/man1/noti-play.1")
        let groff = try TestTools.run("groff", ["-mandoc", "-Tutf8", "-ww", "-z", page])
        #expect(groff.status == 0 && groff.stderr.isEmpty, "\(groff.stderr)")
        let man = try TestTools.run("man", ["-l", page], environment: ["MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"])
        #expect(man.status == 0 && man.stderr.isEmpty, "\(man.stderr)")
        // Without bold and underlining, so that the text can be searched.
        let text = try TestTools.run("groff", ["-mandoc", "-Tascii", "-P-cbou", page]).stdoutText

        for command in [["play"], ["info"], ["convert"], ["check"], ["listen"]] {
            let help = try TestTools.run(TestTools.notiPlay, command + ["--help"])
            #expect(help.status == 0)
            let options = longOptions(inHelp: help.stdoutText)
            #expect(options.count >= 3, "\(command): \(help.stdoutText)")
            for option in options {
                #expect(text.contains(option), "\(option) of noti-play \(command[0]) is not in the man page")
            }
        }
        #expect(text.contains("noti-play [file] [--named name]") && text.contains("noti-play subcommand [arguments]"), "\(text.prefix(800))")
        // A man page's sections, in man-pages(7)'s order, with what the hand-written page said.
        let sections = text.split(separator: "\n").filter { $0.first?.isUppercase == true && $0 == $0.uppercased() }.map(String.init)
        #expect(sections == ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS AND SUBCOMMANDS", "ENVIRONMENT", "FILES", "EXIT STATUS",
                             "EXAMPLES", "SEE ALSO"], "\(sections)")
        for words in ["EXIT STATUS\n     0 when the whole sound was played", "64 for a usage error", "FILES\n", "noti-play.conf",
                      "ENVIRONMENT\n", "ALSA_CONFIG_PATH", "EXAMPLES\n", "noti-play convert in.aiff out.caf -d ima4 -f caff",
                      "SEE ALSO\n     aplay(1), afconvert(1)", "Play the sound of every desktop notification"] {
            #expect(text.contains(words), "'\(words)' is not in the man page")
        }
        #expect(!text.contains("exits 0 on success"), "generate-manual's generic exit status is still there")
    }
}
