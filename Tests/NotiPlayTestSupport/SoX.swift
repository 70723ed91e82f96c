import Foundation

public enum SoX {
    /// Decodes `path` with the `sox` command to interleaved 32-bit float, or nil where sox cannot
    /// read the file (it refuses AIFC ulaw, alaw and ima4, for example).
    ///
    /// SoX converts every sample to a 32-bit integer first, so floats of more than 24 bits of
    /// precision below full scale lose their lowest bits; integer and G.711 sources come out exact.
    /// Dither is off (`-D`): it would add noise when it thinks precision drops.
    public static func decode(_ path: String) throws -> ReferenceAudio? {
        let info = try TestTools.run("sox", ["--i", path])
        guard info.status == 0 else { return nil }
        // Lines such as "Channels       : 2" and "Sample Rate    : 44100".
        func field(_ name: String) -> Int? {
            info.stdoutText.split(separator: "\n").first { $0.hasPrefix(name) }
                .flatMap { $0.split(separator: ":").last }
                .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        guard let channels = field("Channels"), let rate = field("Sample Rate") else { return nil }
        let result = try TestTools.run("sox", ["-D", "-V1", path, "-t", "f32", "-"])
        guard result.status == 0 else { return nil }
        let samples = result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return ReferenceAudio(sampleRate: rate, channelCount: channels, samples: samples)
    }
}
