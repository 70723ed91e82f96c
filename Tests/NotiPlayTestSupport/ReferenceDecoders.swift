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

public enum LibSndFile {
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
    /// Decodes `path` with the `ffmpeg` command to interleaved 32-bit float.
    public static func decode(_ path: String) throws -> ReferenceAudio {
        let probe = try TestTools.runChecked("ffprobe", [
            "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels",
            "-of", "default=noprint_wrappers=1:nokey=1", path,
        ]).stdoutText.split(separator: "\n").compactMap { Int($0) }
        guard probe.count == 2 else { throw ToolFailure(command: "ffprobe \(path)", stderr: "no audio stream") }
        let raw = try TestTools.runChecked("ffmpeg", [
            "-v", "error", "-i", path, "-map", "0:a:0", "-f", "f32le", "-c:a", "pcm_f32le", "-",
        ]).stdout
        let samples = raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return ReferenceAudio(sampleRate: probe[0], channelCount: probe[1], samples: samples)
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
