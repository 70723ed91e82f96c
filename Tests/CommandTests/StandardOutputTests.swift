import Foundation
import NotiPlayTestSupport
import Testing

/// What the command prints on stdout: names from outside escaped as on stderr, and output that
/// could not be written (a full disk, stdout closed, a reader gone) one line and status 1,
/// never status 0 with the output lost.
@Suite struct StandardOutputTests {
    let folder = TemporaryDirectory("stdout")

    /// A valid sound under a name that would paint the terminal red and print a verdict of its
    /// own ("bell.wav: a valid notification sound") on a line of its own.
    static let hostileName = "a\u{1B}[31mred\nbell.wav: a valid notification sound\n.wav"
    static let hostileShown = #"a\x1B[31mred\nbell.wav: a valid notification sound\n.wav"#

    func hostileFile() throws -> String {
        let path = folder.file(Self.hostileName)
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", path, "synth", "0.1", "sine", "440"])
        return path
    }

    @Test func infoEscapesAFileNameOnStdout() throws {
        let path = try hostileFile()
        let result = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "File:            \(folder.path)/\(Self.hostileShown)"[...])
        #expect(lines.dropFirst().first == "Container:       WAVE")
        #expect(!result.stdout.contains(0x1B), "ESC reached the terminal")
    }

    @Test func checkEscapesAFileNameOnStdout() throws {
        let path = try hostileFile()
        let result = try TestTools.run(TestTools.notiPlay, ["check", path])
        #expect(result.status == 0, "\(result.stderr)")
        let shown = "\(folder.path)/\(Self.hostileShown)"
        let bytes = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(result.stdoutText == """
            \(shown): WAVE, Linear PCM, 16-bit signed integer, little-endian, 8000 Hz, 1 channel(s), 0.100 s, \(bytes) bytes
            \(shown): a valid notification sound

            """)
    }

    /// --json keeps the name whole (JSON has its own escapes): a program reads it back as it is.
    @Test func infoJSONKeepsTheRawName() throws {
        let path = try hostileFile()
        let result = try TestTools.run(TestTools.notiPlay, ["info", "--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]])
        #expect(array.first?["file"] as? String == path)
        // "[", the one object on one line, "]": the name's newlines are JSON's \n.
        #expect(result.stdoutText.split(separator: "\n").count == 3)
        #expect(!result.stdout.contains(0x1B))
    }

    /// `noti-play ARGUMENTS` with its stdout redirected as `redirection` says (`>/dev/full`,
    /// `>&-`), through the shell.
    func run(_ arguments: [String], stdout redirection: String) throws -> ProcessResult {
        try TestTools.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" \(redirection)", TestTools.notiPlay] + arguments)
    }

    func sound() throws -> String {
        let path = folder.file("tone.wav")
        try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", path, "synth", "0.1", "sine", "440"])
        return path
    }

    @Test(arguments: [
        (">/dev/full", "No space left on device"),
        (">&-", "Bad file descriptor"),
    ])
    func outputThatCannotBeWrittenIsOneLineAndStatus1(redirection: String, reason: String) throws {
        let path = try sound()
        for arguments in [["info", path], ["info", "--json", path], ["check", path], ["--help"], ["--version"], ["info", "--help"]] {
            let result = try run(arguments, stdout: redirection)
            #expect(result.status == 1, "\(arguments) \(redirection): \(result.stderr)")
            #expect(result.stderr == "noti-play: cannot write the output: \(reason)\n", "\(arguments) \(redirection)")
        }
    }

    /// A reader that has gone (EPIPE, with SIGPIPE ignored as a service manager may leave it):
    /// one line and status 1. (With SIGPIPE at its default, the signal ends it, as it ends cat.)
    @Test func aReaderThatHasGoneIsOneLineAndStatus1() throws {
        let path = try sound()
        let script = """
            import os, signal, subprocess, sys
            reader, writer = os.pipe()
            os.close(reader)
            signal.signal(signal.SIGPIPE, signal.SIG_IGN)
            run = subprocess.run(sys.argv[1:], stdout=writer, stderr=subprocess.PIPE, restore_signals=False)
            sys.stderr.buffer.write(run.stderr)
            sys.exit(run.returncode)
            """
        let result = try TestTools.run("python3", ["-c", script, TestTools.notiPlay, "info", path])
        #expect(result.status == 1)
        #expect(result.stderr == "noti-play: cannot write the output: Broken pipe\n")
    }
}
