/// How long a device may take, the one place for the command and the player.
public enum DeviceDeadlines {
    /// Seconds a device may take to open (a FIFO nobody reads, a hung sound server block it).
    public static let open = 5
    /// Seconds a device may take no sound while a sound plays.
    public static let stall = 5

    /// The deadlines one player goes by: the defaults above, which only tests shorten (a
    /// scripted device's lifecycle in a second instead of five).
    package struct Seconds: Sendable, Equatable {
        package var open: Int
        package var stall: Int

        package init(open: Int = DeviceDeadlines.open, stall: Int = DeviceDeadlines.stall) {
            self.open = open
            self.stall = stall
        }
    }
}

/// Tells a device that stopped taking sound from a slow one, by the frames it took
/// (`PlaybackEngine.framesWritten`), looked at now and then: stalled once that count has not
/// moved over looks spanning `stallSeconds`. Looks, not the clock alone: a process that
/// was stopped (SIGSTOP) and continued, or a loaded machine that looked late, counts one look
/// for the gap, not a stall.
package struct StallWatch: Sendable {
    private let lookInterval: UInt64
    private let looksNeeded: Int
    private var frames: Int?
    private var lastLook: UInt64 = 0
    private var looksWithoutProgress = 0

    /// - Parameters:
    ///   - lookEvery: seconds between the looks that count.
    ///   - stallSeconds: how long without progress is a stall.
    package init(lookEvery: Double, stallSeconds: Int) {
        lookInterval = UInt64(lookEvery * 1e9)
        looksNeeded = max(1, Int((Double(stallSeconds) / lookEvery).rounded(.up)))
    }

    /// Takes a look at `framesWritten` at `now` (CLOCK_MONOTONIC nanoseconds); true once stalled.
    /// Looks closer together than `lookEvery` do not count.
    package mutating func isStalled(framesWritten: Int, now: UInt64) -> Bool {
        if framesWritten != frames {
            frames = framesWritten
            lastLook = now
            looksWithoutProgress = 0
            return false
        }
        if now &- lastLook >= lookInterval {
            lastLook = now
            looksWithoutProgress += 1
        }
        return looksWithoutProgress >= looksNeeded
    }
}
