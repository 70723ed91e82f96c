@testable import NotiPlayListen
import Testing

/// The rate limit of listen's log lines, with time given: a burst, then one line a second, and
/// every line held back is counted in the next line or in a summary once the flood stops.
@Suite struct LogRateLimitTests {
    var limit = LogRateLimit()

    @Test mutating func aBurstThenOneLineASecondWithTheCountOfTheOthers() {
        let burst = Int(LogRateLimit.burst)
        for n in 0..<burst { #expect(limit.admit("line \(n)", at: 10) == "line \(n)") }
        #expect(limit.admit("held 1", at: 10.1) == nil)
        #expect(limit.admit("held 2", at: 10.2) == nil)
        #expect(abs((limit.summaryDue ?? 0) - (10 + LogRateLimit.interval)) < 1e-9)
        // A line of the kind, once one is allowed again, carries the count.
        #expect(limit.admit("next", at: 11.05) == "next (and 2 more since the last such line)")
        #expect(limit.summaryDue == nil)
    }

    @Test mutating func aFloodThatStopsIsSummedUpByItsLastLine() throws {
        for n in 0..<100 { _ = limit.admit("call \(n)", at: 20 + Double(n) * 0.001) }
        #expect(limit.heldBack == 100 - Int(LogRateLimit.burst))
        let due = try #require(limit.summaryDue)
        #expect(limit.summary(at: due - 0.01) == nil, "not before a line is allowed")
        #expect(limit.summary(at: due + 0.001) == "call 99 (and \(100 - Int(LogRateLimit.burst) - 1) more since the last such line)")
        #expect(limit.summary(at: due + 5) == nil, "said once")
    }

    @Test mutating func atTheEndWhatIsHeldBackIsSaidAtOnce() {
        for n in 0..<7 { _ = limit.admit("call \(n)", at: 0) }
        #expect(limit.summary(at: 0) == nil)
        #expect(limit.summary(at: 0, force: true) == "call 6 (and 1 more since the last such line)")
    }
}
