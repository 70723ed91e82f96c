import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// A chunk of odd size with no pad byte after it, as careless writers leave it: ffmpeg's WAV and
/// sox's AIFF with such a chunk put in front by Python. The next chunk starts where the pad
/// belongs; it is read from there (ffmpeg and libsndfile both lose it: "no 'fmt ' tag found").
@Suite("Odd-sized chunks without their pad byte")
struct MissingPadByteTests {
    let folder = TemporaryDirectory("missing-pad")

    /// Copies `source` to `out` with a chunk `id` of body `body` after the 12-byte RIFF or FORM
    /// header, with no pad byte, and the container's size made right.
    static let inserter = """
        import struct, sys
        source, out, cid, body = sys.argv[1:5]
        b = open(source, 'rb').read()
        e = '<' if b[:4] == b'RIFF' else '>'
        chunk = cid.encode() + struct.pack(e + 'I', len(body)) + body.encode()
        rest = b[12:] + (b'\\x00' if len(b) % 2 else b'')
        open(out, 'wb').write(b[:4] + struct.pack(e + 'I', 4 + len(chunk) + len(rest)) + b[8:12] + chunk + rest)
        """

    func insert(_ source: String, _ name: String, id: String, body: String) throws -> String {
        let out = folder.file(name)
        try TestTools.runChecked("python3", ["-c", Self.inserter, source, out, id, body])
        return out
    }

    @Test(arguments: [("ffmpeg", "wav", "LIST"), ("sox", "aiff", "ANNO")])
    func theChunkAfterIsReadWhereThePadBelongs(tool: String, ext: String, id: String) throws {
        let original = folder.file("tone.\(ext)")
        if tool == "ffmpeg" {
            try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=0.05",
                                                "-c:a", "pcm_s16le", original])
        } else {
            try TestTools.runChecked("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", original, "synth", "0.05", "sine", "440"])
        }
        let path = try insert(original, "unpadded.\(ext)", id: id, body: "odd")
        let expected = try #require(LibSndFile.decode(original)).samples
        #expect(expected.count == 400)

        let decoder = try SoundDecoder(path: path)
        #expect(try decoder.readAll() == expected)
        let note = "the '\(id)' chunk has an odd size and no pad byte after it: the next chunk was read where the pad belongs"
        #expect(decoder.description.notes == [note])
        let info = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(info.status == 0)
        #expect(info.stdoutText.contains("Note:            \(note)"), "\(info.stdoutText)")
    }

    /// Bytes that are no chunk after an odd-sized one, where neither place holds a chunk: the
    /// message says where the chunks end, not only that one is missing.
    @Test func garbageAfterAnOddChunkIsNamedInTheMessage() throws {
        let original = folder.file("tone.wav")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=sample_rate=8000:duration=0.01", "-c:a", "pcm_s16le", original])
        // "odd", then two bytes that are neither a pad nor a chunk, then the fmt chunk: an ID
        // starts neither where the pad belongs (byte 23) nor after it (byte 24).
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try insert(original, "odd.wav", id: "LIST", body: "odd"))))
        bytes.insert(contentsOf: [1, 1], at: 12 + 8 + 3)
        let path = folder.file("garbage.wav")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let info = try TestTools.run(TestTools.notiPlay, ["info", path])
        #expect(info.status == 1)
        #expect(info.stderr == "noti-play: \(path): WAV file has no 'fmt ' chunk: its chunks end at byte 24, where what follows is not a chunk\n")
    }
}
