import Foundation

public enum SoX {
    /// Decodes `path` with the `sox` command to interleaved 32-bit float, or nil where sox cannot
    /// read the file (it refuses AIFC ulaw, alaw and ima4, for example).
    ///
    /// SoX converts every sample to a 32-bit integer first, so floats of more than 24 bits of
    /// precision below full scale lose their lowest bits; integer and G.711 sources come out exact.
    /// Dither is off (`-D`): it would add noise when it thinks precision drops.
    public static func decode(_ path: String) throws -> ReferenceAudio? {
        try read(path).audio
    }

    /// SoX's verdict on `path`: its samples, or its message when it turns the file down.
    /// Throws `ToolMissing` when sox is not installed.
    public static func read(_ path: String) throws -> ReferenceOutcome {
        let info = try TestTools.run("sox", ["--i", path])
        if let refusal = try info.refusal("sox --i", path) { return .refused(refusal) }
        // Lines such as "Channels       : 2" and "Sample Rate    : 44100".
        func field(_ name: String) -> Int? {
            info.stdoutText.split(separator: "\n").first { $0.hasPrefix(name) }
                .flatMap { $0.split(separator: ":").last }
                .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        guard let channels = field("Channels"), let rate = field("Sample Rate") else {
            throw ToolFailure(command: "sox --i \(path)", stderr: "no channel count or rate in: \(info.stdoutText)")
        }
        let result = try TestTools.run("sox", ["-D", "-V1", path, "-t", "f32", "-"])
        if let refusal = try result.refusal("sox", path) { return .refused(refusal) }
        let samples = result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return .decoded(ReferenceAudio(sampleRate: rate, channelCount: channels, samples: samples))
    }
}
