import Foundation

public enum SoX {
    /// Decodes `path` with the `sox` command to interleaved 32-bit float, or nil where sox cannot
    /// read the file (it refuses AIFC ulaw, alaw and ima4, for example).
    ///
    /// SoX converts every sample to a 32-bit integer first, so floats of more than 24 bits of
    /// precision below full scale lose their lowest bits; integer and G.711 sources come out exact.
    /// Dither is off (`-D`): it would add noise when it thinks precision drops.
    public static func decode(_ path: String) throws -> ReferenceAudio? {
        // `sox --i` prints one field per call.
        let numbers = try ["-c", "-r"].map { try TestTools.run("sox", ["--i", $0, path]) }
            .compactMap { $0.status == 0 ? Int($0.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) : nil }
        guard numbers.count == 2 else { return nil }
        let result = try TestTools.run("sox", ["-D", "-V1", path, "-t", "f32", "-"])
        guard result.status == 0 else { return nil }
        let samples = result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return ReferenceAudio(sampleRate: numbers[1], channelCount: numbers[0], samples: samples)
    }
}
