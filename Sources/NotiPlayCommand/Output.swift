#if canImport(Glibc)
@preconcurrency import Glibc  // stdout, read once at exit (checkPrintedOutputAtExit)
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import NotiPlayDecoder
import Synchronization

/// Writing to the terminal without Foundation: the command starts in a few milliseconds.
enum Output {
    /// One line at a time: several threads write (listen's loop and the player's callbacks).
    /// It holds where our lines go: fd 2, or while `quietingLibraries` runs, a copy of it.
    private static let standardErrorLock = Mutex<Int32>(STDERR_FILENO)

    /// Writes one line, whole, even when other threads write too: control characters in it (from
    /// a path, a device name) are escaped, so it stays one line and cannot steer the terminal.
    static func standardError(_ line: String) {
        var text = PrintableText.escaped(line) + "\n"
        standardErrorLock.withLock { descriptor in text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { break }
                offset += n
            }
        } }
    }

    /// Runs `body` (opening an audio device) with fd 2 on /dev/null, so that what a library
    /// writes straight to it is not shown: libjack prints five lines ("Cannot connect to server
    /// socket…") when ALSA's jack plugin finds no server, before our own one line says so.
    /// ALSA's own messages are captured already (CALSASupport); libjack's are not ALSA's.
    ///
    /// Only the command does this, never the libraries, which must not touch a host's
    /// descriptors. It is safe here because everything of ours that writes to stderr goes
    /// through `standardError`, which meanwhile writes to a copy of the real fd 2 (under the
    /// same lock, so no line is cut by the switch): a line from the main thread while the open
    /// blocks (its deadline) is still seen. What it costs: a crash report of the Swift runtime
    /// during the open, and the stderr of a program a device starts (`file:"|cmd"`, jackd),
    /// go to /dev/null; --verbose leaves fd 2 alone for that reason.
    static func quietingLibraries<T>(_ body: () -> T) -> T {
        let copy = standardErrorLock.withLock { descriptor -> Int32 in
            let copy = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
            let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
            defer { if null >= 0 { close(null) } }
            guard copy >= 0, null >= 0, dup2(null, STDERR_FILENO) >= 0 else {
                if copy >= 0 { close(copy) }
                return -1
            }
            descriptor = copy
            return copy
        }
        defer {
            if copy >= 0 {
                standardErrorLock.withLock { descriptor in
                    _ = dup2(copy, STDERR_FILENO)
                    close(copy)
                    descriptor = STDERR_FILENO
                }
            }
        }
        return body()
    }

    /// Writes `lines` to standard output, each escaped as `standardError` escapes its line: a
    /// file name with a newline or ESC in it stays inside its line and cannot steer the terminal
    /// (nor print a line of its own, such as "bell.wav: a valid notification sound").
    static func standardOutput(lines: [String]) throws {
        try standardOutput(lines.map { PrintableText.escaped($0) + "\n" }.joined())
    }

    /// Writes `text` to standard output, all of it, or prints the one line that says why it
    /// could not (a full disk, an I/O error, stdout closed) and fails: output that was lost must
    /// not exit 0. (`print` would buffer it, and its errors go unseen.) The text is written as
    /// it is: what comes from outside is escaped first (`standardOutput(lines:)`, JSON's quoting).
    static func standardOutput(_ text: String) throws {
        var text = text
        let failure: Int32? = text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return n < 0 ? errno : EIO }
                offset += n
            }
            return nil
        }
        if let failure {
            standardError(cannotWriteOutput(failure))
            throw ExitCode.failure
        }
    }

    private static func cannotWriteOutput(_ code: Int32) -> String {
        "noti-play: cannot write the output: \(String(cString: strerror(code)))"
    }

    /// Makes what ArgumentParser prints (help, --version, completion scripts: through `print`,
    /// which buffers and never reports) fail as `standardOutput` does: at exit, a stdout that
    /// could not take it gives the one line and status 1 instead of 0.
    static func checkPrintedOutputAtExit() {
        atexit {
            // A write that failed before (a line-buffered terminal) left only the error flag.
            let flushFailure = fflush(stdout) == 0 ? nil : errno
            guard flushFailure != nil || ferror(stdout) != 0 else { return }
            Output.standardError(Output.cannotWriteOutput(flushFailure ?? EIO))
            _exit(ExitCode.failure.rawValue)
        }
    }

    /// The one line a failure prints: `noti-play: PATH: what is wrong`.
    static func failure(_ path: String, _ message: String) {
        standardError("noti-play: \(path): \(message)")
    }
}

extension Double {
    /// `self` with exactly `digits` decimals ("1.250"), without Foundation's String(format:).
    func fixed(_ digits: Int) -> String {
        guard isFinite else { return description }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(self) * scale).rounded()
        guard scaled < 9e15 else { return description }
        let whole = Int(scaled)
        var text = String(whole / Int(scale))
        if digits > 0 {
            text += "." + String(whole % Int(scale)).leftPadded(to: digits)
        }
        return (self < 0 && whole != 0 ? "-" : "") + text
    }

    /// A rate as people write it: "44100", "22254.545".
    var rateText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : fixed(3)
    }
}

extension String {
    /// The text as a JSON string literal.
    var jsonQuoted: String {
        var out = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
