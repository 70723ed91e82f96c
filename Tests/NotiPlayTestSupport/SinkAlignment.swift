/// Lines up what a sink recorded with what was played, sample for sample.
///
/// When a sound server's sink runs dry (the player's stream was late, an underrun), it plays
/// silence and then goes on with the stream where it stopped: the recording holds every sample,
/// exactly and in order, with runs of silent frames inserted between two of the player's writes.
/// This finds those runs, and stops at the first frame that is neither the next expected frame
/// nor inserted silence: a sample lost, changed or out of order.
public struct SinkAlignment: Sendable {
    /// Silence the sink inserted: before expected frame `frame`, `frames` silent frames. When the
    /// expected frames just before it are silent too, the run may have begun up to `slack` frames
    /// earlier.
    public struct Gap: Sendable, CustomStringConvertible {
        public var frame: Int
        public var frames: Int
        public var slack: Int
        public var description: String { "\(frames) silent frames before frame \(frame)" }
        /// Whether the run began where a write of `period` frames began.
        public func isAtPeriodBoundary(_ period: Int) -> Bool {
            (frame - slack...frame).contains { $0 % period == 0 }
        }
    }

    public var gaps: [Gap] = []
    /// Expected frames found, in order, from the first.
    public var matchedFrames = 0
    /// The first expected frame that the recording does not hold in its place, if any.
    public var mismatch: (expectedFrame: Int, recordedFrame: Int)?
    /// Whether the recording ended before every expected frame was found.
    public var endsEarly = false

    public var silentFrames: Int { gaps.reduce(0) { $0 + $1.frames } }

    /// `expected` and `recorded` are interleaved with `channels` channels; the walk starts at
    /// expected frame `expectedStart` and recorded frame `recordedStart`, which must correspond.
    public init(expected: [Int], recorded: [Int16], channels: Int, expectedStart: Int, recordedStart: Int) {
        let expectedFrames = expected.count / channels
        let recordedFrames = recorded.count / channels
        func same(_ e: Int, _ r: Int) -> Bool {
            (0..<channels).allSatisfy { expected[e * channels + $0] == Int(recorded[r * channels + $0]) }
        }
        func silentRecorded(_ r: Int) -> Bool { (0..<channels).allSatisfy { recorded[r * channels + $0] == 0 } }
        func silentExpected(_ e: Int) -> Bool { (0..<channels).allSatisfy { expected[e * channels + $0] == 0 } }
        var e = expectedStart, r = recordedStart
        var silentRun = 0  // expected silent frames just matched (a gap may have begun among them)
        while e < expectedFrames {
            guard r < recordedFrames else { endsEarly = true; break }
            if same(e, r) {
                silentRun = silentExpected(e) ? silentRun + 1 : 0
                e += 1; r += 1; matchedFrames += 1
                continue
            }
            var end = r
            while end < recordedFrames && silentRecorded(end) { end += 1 }
            if end > r && end < recordedFrames && same(e, end) {
                gaps.append(Gap(frame: e, frames: end - r, slack: silentRun))
                r = end
                continue
            }
            if end == recordedFrames { endsEarly = true } else { mismatch = (e, r) }
            break
        }
    }
}
