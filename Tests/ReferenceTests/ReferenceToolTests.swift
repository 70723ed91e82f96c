import Foundation
import NotiPlayTestSupport
import Testing

/// The reference comparisons tell apart a tool that is not installed (the test fails, naming
/// it), a tool that ran and turned the file down (its own message, accepted only where the
/// catalogue expects a refusal), and a comparison left out on purpose (cancelled, with why).
@Suite("Reference tools: missing, refusing, skipped")
struct ReferenceToolTests {
    /// A folder holding only `tools` (links to the installed ones), to look tools up in.
    static func searchPath(with tools: [String], in folder: TemporaryDirectory) throws -> String {
        for tool in tools {
            try FileManager.default.createSymbolicLink(atPath: folder.file(tool), withDestinationPath: try TestTools.locate(tool))
        }
        return folder.path
    }

    /// A fixture ffmpeg is documented to refuse: a missing ffmpeg used to pass as that refusal.
    static var refusedByFFmpeg: Fixture {
        Fixture.all.first { $0.expectation(.ffmpeg).outcome == .refuses }!
    }

    @Test func aMissingFFmpegFailsAsMissingNotAsARefusal() throws {
        let fixture = Self.refusedByFFmpeg
        let path = try FixtureFactory.shared.path(of: fixture)
        let folder = TemporaryDirectory("no-ffmpeg")
        let narrowed = try Self.searchPath(with: ["ffprobe"], in: folder)  // ffprobe runs first and passes
        let error = TestTools.$searchPath.withValue(narrowed) {
            #expect(throws: ToolMissing.self) { try FFmpeg.read(path) }
        }
        #expect(error?.name == "ffmpeg")
        #expect(error?.description.hasPrefix("ffmpeg is not installed") == true, "\(String(describing: error))")
        // The comparison itself, on the fixture whose refusal is expected: it throws, so it fails.
        TestTools.$searchPath.withValue(narrowed) {
            #expect(throws: ToolMissing(name: "ffmpeg", searchPath: narrowed)) {
                try ReferenceComparisonTests().compare(fixture, with: .ffmpeg)
            }
        }
    }

    @Test func aMissingSoXFailsAsMissing() throws {
        let fixture = try #require(Fixture.all.first { $0.expectation(.sox).outcome == .refuses })
        let path = try FixtureFactory.shared.path(of: fixture)
        let error = TestTools.$searchPath.withValue("/nonexistent") {
            #expect(throws: ToolMissing.self) { try SoX.read(path) }
        }
        #expect(error?.description.hasPrefix("sox is not installed") == true, "\(String(describing: error))")
    }

    /// Installed and run, ffmpeg turns the documented fixture down in its own words.
    @Test func anInstalledFFmpegRefusesInItsOwnWords() throws {
        let path = try FixtureFactory.shared.path(of: Self.refusedByFFmpeg)
        guard case .refused(let message) = try FFmpeg.read(path) else {
            Issue.record("ffmpeg decodes \(path): the catalogue's refusal is out of date")
            return
        }
        #expect(message.hasPrefix("ffprobe (status 1): ") || message.hasPrefix("ffmpeg (status 1): "), "\(message)")
    }

    /// A file that is no audio at all: every tool refuses it, none is "missing".
    @Test func everyToolRefusesAFileThatIsNoAudio() throws {
        let folder = TemporaryDirectory("not-audio")
        let path = folder.file("noise.wav")
        try Data("RIFF this is not a sound at all, only text".utf8).write(to: URL(fileURLWithPath: path))
        for reference in Reference.allCases {
            let outcome = try reference.read(path)
            guard case .refused(let message) = outcome else {
                Issue.record("\(reference) decoded text as audio")
                continue
            }
            let speakers = reference == .ffmpeg ? ["ffprobe (status ", "ffmpeg (status "] : ["\(reference.rawValue)"]
            #expect(speakers.contains { message.hasPrefix($0) }, "\(message)")
        }
    }

    /// Every comparison left out on purpose says why (the test case is cancelled with it).
    @Test func everySkippedComparisonIsNamedWithItsReason() {
        let skipped = Fixture.all.flatMap { fixture in
            Reference.allCases.map { fixture.expectation($0) }.filter { $0.outcome == .skipped }
        }
        #expect(!skipped.isEmpty)
        #expect(skipped.allSatisfy { !$0.note.isEmpty })
    }
}
