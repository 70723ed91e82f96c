#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import NotiPlayDecoder
import Synchronization

/// Writing to the terminal without Foundation: the command starts in a few milliseconds.
enum Output {
    /// One line at a time: several threads write (listen's loop and the player's callbacks).
    private static let standardErrorLock = Mutex(())

    /// Writes one line, whole, even when other threads write too: control characters in it (from
    /// a path, a device name) are escaped, so it stays one line and cannot steer the terminal.
    static func standardError(_ line: String) {
        var text = PrintableText.escaped(line) + "\n"
        standardErrorLock.withLock { _ in text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { break }
                offset += n
            }
        } }
    }

    /// Writes `text` to standard output, all of it, or prints the one line that says why it
    /// could not (a full disk, an I/O error) and fails: output that was lost must not exit 0.
    /// (`print` would buffer it, and its errors go unseen.)
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
            standardError("noti-play: cannot write the output: \(String(cString: strerror(failure)))")
            throw ExitCode.failure
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
        self == rounded() ? String(Int(self)) : fixed(3)
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
