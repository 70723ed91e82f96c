import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// A short sound followed by zeros (`truncate -s 100M x.wav`): the zeros are not chunks, and
/// reading the header costs the same as without them, in every container.
@Suite("Zero-padded files")
struct ZeroPaddingTests {
    let folder = TemporaryDirectory("zero-padded")

    /// 0.1 s of a 440 Hz tone at 8 kHz, written by sox or ffmpeg in each container and form.
    static let makers: [(name: String, tool: String, arguments: [String])] = [
        ("riff.wav", "sox", ["-b", "16"]),
        ("rifx.wav", "sox", ["-B", "-b", "16"]),
        ("rf64.wav", "ffmpeg", ["-c:a", "pcm_s16le", "-rf64", "always"]),
        ("ima.wav", "sox", ["-e", "ima-adpcm"]),
        ("tone.aiff", "sox", ["-b", "16"]),
        ("ulaw.aifc", "ffmpeg", ["-c:a", "pcm_mulaw"]),
        ("tone.caf", "ffmpeg", ["-c:a", "pcm_s16be"]),
        ("ima4.caf", "ffmpeg", ["-c:a", "adpcm_ima_qt"]),
    ]

    func make(_ name: String, _ tool: String, _ arguments: [String]) throws -> String {
        let path = folder.file(name)
        if tool == "sox" {
            try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1"] + arguments + [path, "synth", "0.1", "sine", "440"])
        } else {
            try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=8000:d=0.1"] + arguments + ["-y", path])
        }
        return path
    }

    /// `noti-play info --json` on the file as written and on a copy grown to `size` bytes of
    /// zeros (sparse: no disk space): the same description, in far less than the 10 s that
    /// walking 100 MB as 12.5 million empty chunks took.
    @Test(arguments: makers)
    func paddingDoesNotChangeTheSoundNorCostTime(maker: (name: String, tool: String, arguments: [String])) throws {
        let path = try make(maker.name, maker.tool, maker.arguments)
        let padded = folder.file("grown-" + maker.name)
        try FileManager.default.copyItem(atPath: path, toPath: padded)
        try TestTools.runChecked("truncate", ["-s", "100M", padded])

        let plain = try TestTools.run(TestTools.notiPlay, ["info", "--json", path])
        #expect(plain.status == 0, "\(plain.stderr)")
        let start = Date()
        let grown = try TestTools.run(TestTools.notiPlay, ["info", "--json", padded])
        let seconds = Date().timeIntervalSince(start)
        #expect(grown.status == 0, "\(grown.stderr)")
        #expect(seconds < 3, "noti-play info took \(seconds) s on 100 MB of zeros")
        // Everything but the name: the zeros after the sound change nothing of it.
        func fields(_ output: String) -> String { output.replacingOccurrences(of: "grown-", with: "") }
        #expect(fields(grown.stdoutText) == plain.stdoutText)
    }

    /// The largest file noti-play opens (1 GiB), as a user would make it with `truncate -s 1G`.
    @Test func aGigabyteOfZerosAfterAWAVTakesNoTime() throws {
        let path = try make("gig.wav", "sox", ["-b", "16"])
        try TestTools.runChecked("truncate", ["-s", "1G", path])
        let start = Date()
        let result = try TestTools.run(TestTools.notiPlay, ["info", path])
        let seconds = Date().timeIntervalSince(start)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("Frames:          800\n"))
        #expect(seconds < 3, "noti-play info took \(seconds) s on 1 GiB of zeros")
    }

    /// Printable IDs can be repeated too: the walk stops at a fixed number of chunks, and a
    /// file whose sound lies beyond them is refused in one line rather than walked for minutes.
    @Test func theWalkStopsAtItsChunkLimit() {
        var builder = WAVBuilder().fmt()
        for _ in 0..<2000 { builder = builder.chunk("JUNK", []) }
        let file = builder.data(int16Samples([1, 2, 3], .little)).bytes
        expectFailure(.malformed, saying: "WAV file has no 'data' chunk among its first 1024 chunks", file)
    }
}
