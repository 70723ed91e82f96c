import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// Each fixture decoded by noti-play and by each reference decoder: same channels, same frames,
/// same samples (bit for bit unless the fixture's expectation says why not).
///
/// Set NOTIPLAY_REFERENCE_REPORT=1 to print one line per comparison (the coverage matrix).
@Suite("Reference decoders agree")
struct ReferenceComparisonTests {
    @Test("Stream description", arguments: Fixture.all)
    func streamDescription(_ fixture: Fixture) throws {
        let path = try FixtureFactory.shared.path(of: fixture)
        let description = try SoundDecoder(path: path).description
        #expect(description.container == fixture.container)
        #expect(description.encoding.afconvertName == fixture.encoding)
        #expect(description.channelCount == fixture.signal.channelCount)
        #expect(description.sampleRate == Double(Signal.sampleRate))
        #expect(description.frameCount == fixture.expectedFrameCount(framesPerPacket: description.framesPerPacket))
    }

    @Test("libsndfile", arguments: Fixture.all)
    func libsndfile(_ fixture: Fixture) throws { try compare(fixture, with: .libsndfile) }

    @Test("ffmpeg", arguments: Fixture.all)
    func ffmpeg(_ fixture: Fixture) throws { try compare(fixture, with: .ffmpeg) }

    @Test("sox", arguments: Fixture.all)
    func sox(_ fixture: Fixture) throws { try compare(fixture, with: .sox) }

    func compare(_ fixture: Fixture, with reference: Reference) throws {
        let path = try FixtureFactory.shared.path(of: fixture)
        let expectation = fixture.expectation(reference)
        if expectation.outcome == .skipped {
            // Named in the run's output, and the test case ends as cancelled (not passed).
            print("not compared on purpose | \(fixture.testDescription) | \(reference.rawValue) | \(expectation.note)")
            try Test.cancel("\(reference) not compared on purpose: \(expectation.note)")
        }
        // A tool that is not installed throws here (ToolMissing): the test fails naming it.
        let outcome = try reference.read(path)
        let decoded: ReferenceAudio
        switch (expectation.outcome, outcome) {
        case (.refuses, .refused(let message)):
            Report.line(fixture, reference, "refuses (\(expectation.note)): \(message)")
            return
        case (.refuses, .decoded):
            Issue.record("\(reference) now decodes this file: compare with it (\(expectation.note))")
            return
        case (_, .refused(let message)):
            Issue.record("\(reference) refused \(path), which it is expected to decode: \(message)")
            return
        case (_, .decoded(let audio)):
            decoded = audio
        }

        let decoder = try SoundDecoder(path: path)
        let ours = try decoder.readAll()
        let channels = decoder.description.channelCount
        let frames = ours.count / channels
        #expect(frames == decoder.description.frameCount, "readAll() delivered a different count than the description")
        #expect(decoded.channelCount == channels)
        #expect(decoded.sampleRate == Signal.sampleRate)

        var reference = decoded.samples
        if expectation.decodesPadding {
            // It ignores `fact`: it must decode more, but less than one more block.
            #expect(decoded.frameCount > frames && decoded.frameCount < frames + decoder.description.framesPerPacket,
                    "\(reference.count / channels) frames from \(expectation.reference) vs \(frames) ours")
            reference = Array(reference.prefix(ours.count))
        } else {
            #expect(decoded.frameCount == frames, "\(decoded.frameCount) frames from \(expectation.reference), \(frames) ours")
        }
        let worst = SampleComparison.maximumDifference(ours, reference) ?? .infinity
        let agreement = worst == 0 ? "exact" : "max difference \(worst)"
        #expect(worst <= expectation.tolerance,
                "\(agreement) (allowed \(expectation.tolerance)); \(Mismatch.describe(ours, reference, channels: channels, tolerance: expectation.tolerance))")
        Report.line(fixture, expectation.reference, "\(frames) frames, \(agreement)" + (expectation.decodesPadding ? " (prefix)" : ""))
    }
}

extension Reference {
    /// This reference's verdict on the file; throws `ToolMissing` when its tool is not installed.
    func read(_ path: String) throws -> ReferenceOutcome {
        switch self {
        case .libsndfile: LibSndFile.read(path)
        case .ffmpeg: try FFmpeg.read(path)
        case .sox: try SoX.read(path)
        }
    }
}

extension Fixture {
    func expectedFrameCount(framesPerPacket: Int) -> Int {
        switch frames {
        case .signal: Signal.frameCount
        case .wholePackets: (Signal.frameCount + framesPerPacket - 1) / framesPerPacket * framesPerPacket
        case .exactly(let count): count
        }
    }
}

enum Mismatch {
    /// Where two decodes first disagree and how many samples do, for a failure message.
    static func describe(_ ours: [Float], _ theirs: [Float], channels: Int, tolerance: Float) -> String {
        guard let first = SampleComparison.firstMismatch(ours, theirs, tolerance: tolerance) else { return "no mismatch" }
        guard first < min(ours.count, theirs.count) else { return "lengths \(ours.count) vs \(theirs.count) samples" }
        let differing = zip(ours, theirs).count { abs($0 - $1) > tolerance }
        let negated = zip(ours, theirs).count { $0 != 0 && $0 == -$1 }
        return "first at frame \(first / channels) channel \(first % channels): ours \(ours[first]), theirs \(theirs[first]); "
            + "\(differing) of \(ours.count) samples differ, \(negated) are negated"
    }
}

enum Report {
    static let enabled = ProcessInfo.processInfo.environment["NOTIPLAY_REFERENCE_REPORT"] != nil

    static func line(_ fixture: Fixture, _ reference: Reference, _ text: String) {
        guard enabled else { return }
        print("REPORT | \(fixture.testDescription) | \(reference.rawValue) | \(text)")
    }
}
