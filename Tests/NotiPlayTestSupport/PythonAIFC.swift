import Foundation

/// Python's `aifc` module as one more reference for AIFF-C µ-law and A-law: it expands them with
/// `audioop.ulaw2lin`/`alaw2lin` to native 16-bit samples.
public enum PythonAIFC {
    static let script = """
        import sys, warnings
        warnings.simplefilter("ignore", DeprecationWarning)
        import aifc
        with aifc.open(sys.argv[1]) as f:
            assert f.getcomptype() in (b"ulaw", b"ULAW", b"alaw", b"ALAW"), f.getcomptype()
            print(f.getnchannels(), f.getframerate())
            sys.stdout.flush()
            sys.stdout.buffer.write(f.readframes(f.getnframes()))
        """

    /// Decodes an AIFF-C `ulaw`/`alaw` file, full scale ±1.0 (16-bit values / 32768).
    public static func decodeG711(_ path: String) throws -> ReferenceAudio {
        let out = try TestTools.runChecked("python3", ["-c", script, path]).stdout
        let newline = try out.firstIndex(of: 10).unwrapOrThrow("no header line from Python")
        let header = String(decoding: out[..<newline], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        let samples = Array(out[(newline + 1)...]).withUnsafeBytes { raw in
            raw.bindMemory(to: Int16.self).map { Float($0) / 32768 }
        }
        return ReferenceAudio(sampleRate: header[1], channelCount: header[0], samples: samples)
    }
}

extension Optional {
    func unwrapOrThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw ToolFailure(command: "python3", stderr: message) }
        return self
    }
}
