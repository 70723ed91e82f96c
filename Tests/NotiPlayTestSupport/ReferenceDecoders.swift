import CSndFile
import Foundation

/// Decoded audio from a decoder that is not ours.
public struct ReferenceAudio: Sendable {
    public var sampleRate: Int
    public var channelCount: Int
    /// Interleaved, full scale ±1.0.
    public var samples: [Float]
    public var frameCount: Int { channelCount == 0 ? 0 : samples.count / channelCount }
}

/// What a reference decoder made of a file. A tool that is not installed is neither: it throws
/// `ToolMissing`. A tool that crashed, or whose output cannot be read, throws `ToolFailure`.
public enum ReferenceOutcome: Sendable {
    case decoded(ReferenceAudio)
    /// It ran and turned the file down, in its own words (a nonzero exit and its message).
    case refused(String)

    public var audio: ReferenceAudio? {
        if case .decoded(let audio) = self { audio } else { nil }
    }
}

extension ProcessResult {
    /// A tool's verdict on a file: nil when it succeeded, its message when it exited nonzero
    /// with one. A crash (a signal) or a silent nonzero exit is no verdict: it throws.
    func refusal(_ tool: String, _ path: String) throws -> String? {
        if let signal { throw ToolFailure(command: "\(tool) \(path)", stderr: "killed by signal \(signal): \(stderr)") }
        guard status != 0 else { return nil }
        let message = stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !message.isEmpty else { throw ToolFailure(command: "\(tool) \(path)", stderr: "exit status \(status) without a message") }
        return "\(tool) (status \(status)): \(message)"
    }
}

public enum LibSndFile {
    /// libsndfile's verdict on `path` (it is linked in, so it cannot be missing).
    public static func read(_ path: String) -> ReferenceOutcome {
        if let audio = decode(path) { return .decoded(audio) }
        return .refused("libsndfile: " + (openError(path) ?? "opens the file but decodes nothing"))
    }

    /// Decodes `path` with libsndfile's `sf_readf_float` (normalized), or nil where libsndfile
    /// cannot open the file (it reads no IMA4 in CAF, for example).
    public static func decode(_ path: String) -> ReferenceAudio? {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else { return nil }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        var samples = [Float](repeating: 0, count: Int(info.frames) * channels)
        let read = samples.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, info.frames) }
        samples.removeLast(samples.count - Int(read) * channels)
        return ReferenceAudio(sampleRate: Int(info.samplerate), channelCount: channels, samples: samples)
    }

    /// libsndfile's one-line reason for refusing `path`, or nil when it opens.
    public static func openError(_ path: String) -> String? {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            return String(cString: sf_strerror(nil))
        }
        sf_close(file)
        return nil
    }
}

public enum FFmpeg {
    /// Decodes `path` with the `ffmpeg` command to interleaved 32-bit float; a refusal throws.
    public static func decode(_ path: String) throws -> ReferenceAudio {
        switch try read(path) {
        case .decoded(let audio): return audio
        case .refused(let message): throw ToolFailure(command: "ffmpeg \(path)", stderr: message)
        }
    }

    /// ffprobe's and ffmpeg's verdict on `path`: its samples as interleaved 32-bit float, or
    /// their message when they turn it down. Throws `ToolMissing` when either is not installed.
    public static func read(_ path: String) throws -> ReferenceOutcome {
        // Both must be there before either runs: ffprobe's refusal must not hide a missing ffmpeg.
        _ = try TestTools.locate("ffmpeg")
        _ = try TestTools.locate("ffprobe")
        let probe = try TestTools.run("ffprobe", [
            "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels",
            "-of", "default=noprint_wrappers=1:nokey=1", path,
        ])
        if let refusal = try probe.refusal("ffprobe", path) { return .refused(refusal) }
        let shape = probe.stdoutText.split(separator: "\n").compactMap { Int($0) }
        guard shape.count == 2 else { return .refused("ffprobe: no audio stream in \(path)") }
        let result = try TestTools.run("ffmpeg", [
            "-v", "error", "-i", path, "-map", "0:a:0", "-f", "f32le", "-c:a", "pcm_f32le", "-",
        ])
        if let refusal = try result.refusal("ffmpeg", path) { return .refused(refusal) }
        let samples = result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return .decoded(ReferenceAudio(sampleRate: shape[0], channelCount: shape[1], samples: samples))
    }
}

/// Compares two decodes sample for sample.
public enum SampleComparison {
    /// The largest absolute difference, or nil when the lengths differ.
    public static func maximumDifference(_ a: [Float], _ b: [Float]) -> Float? {
        guard a.count == b.count else { return nil }
        var worst: Float = 0
        for i in a.indices { worst = max(worst, abs(a[i] - b[i])) }
        return worst
    }

    /// Index of the first differing sample beyond `tolerance`, or nil when all agree.
    public static func firstMismatch(_ a: [Float], _ b: [Float], tolerance: Float = 0) -> Int? {
        for i in 0..<min(a.count, b.count) where abs(a[i] - b[i]) > tolerance { return i }
        return a.count == b.count ? nil : min(a.count, b.count)
    }
}
