import NotiPlayOutput
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How many lines of one kind listen logs: a burst, then one per interval; what is held back
/// is counted, and said with the next line of its kind ("(and N more since the last such
/// line)") or, once the flood stops, by a line of its own. A flood of failing notifications
/// or malformed calls (anyone on the session bus may send them) is a few lines a second, not
/// one per call. Pure (time is given), so the rule is tested without a bus.
struct LogRateLimit {
    /// Lines of one kind logged at once before the limit holds them back.
    static let burst = 5.0
    /// Seconds: then one line of a kind per interval.
    static let interval = 1.0

    private var tokens = Self.burst
    private var refilledAt: Double?
    /// Lines held back since the last one logged, and the last of them (what a summary shows).
    private(set) var heldBack = 0
    private var lastHeldBack: String?

    /// The line to log for `line` at `now`, or nil when it is held back.
    mutating func admit(_ line: String, at now: Double) -> String? {
        refill(at: now)
        guard tokens >= 1 else {
            heldBack += 1
            lastHeldBack = line
            return nil
        }
        tokens -= 1
        defer { (heldBack, lastHeldBack) = (0, nil) }
        return heldBack > 0 ? line + Self.more(heldBack) : line
    }

    /// The summary of the lines held back, once a line may be logged again (or at once with
    /// `force`): the last of them, with the count of the others.
    mutating func summary(at now: Double, force: Bool = false) -> String? {
        guard let last = lastHeldBack else { return nil }
        refill(at: now)
        guard tokens >= 1 || force else { return nil }
        tokens = max(0, tokens - 1)
        defer { (heldBack, lastHeldBack) = (0, nil) }
        return heldBack > 1 ? last + Self.more(heldBack - 1) : last
    }

    /// When `summary(at:)` will give a line, while lines are held back.
    var summaryDue: Double? {
        guard lastHeldBack != nil, let refilledAt else { return nil }
        return refilledAt + max(0, 1 - tokens) * Self.interval
    }

    private mutating func refill(at now: Double) {
        if let refilledAt, now > refilledAt {
            tokens = min(Self.burst, tokens + (now - refilledAt) / Self.interval)
        }
        refilledAt = max(now, refilledAt ?? now)
    }

    private static func more(_ count: Int) -> String { " (and \(count) more since the last such line)" }
}

/// listen's log: every line it hands to its host goes through here, rate-limited per kind
/// (``LogRateLimit``); --verbose's lines, which the user asked for one by one, are not.
///
/// Lines come from the listener's thread and the player's callback thread. A summary of held-back
/// lines is due a moment after the flood stops, when nothing else may happen for hours: the
/// listener's loop polls ``wakeDescriptor`` (readable once lines are held back, from whichever
/// thread) and waits no longer than ``summaryDue``, then calls ``logDueSummaries()``.
final class ListenLog: Sendable {
    enum Kind: Int, CaseIterable {
        /// Calls on the notification interface whose arguments are not the specification's.
        case malformedCall
        /// A notification whose sound failed, and the warnings that come with a sound.
        case sound
        /// The notification server: its arrival, departure and sound capability (a client may
        /// take and drop its name in a loop).
        case server
        /// The session bus lost and found, the settings reloaded and their warnings.
        case session
    }

    private let write: @Sendable (String) -> Void
    private let limits = Mutex([LogRateLimit](repeating: LogRateLimit(), count: Kind.allCases.count))
    /// A pipe: the write end is written when a kind starts holding lines back.
    private let wake: (read: Int32, write: Int32)

    /// - Parameter write: the host's log; called on the listener's and the player's callback
    ///   threads, it must not block (the command's queues the line for a thread of its own).
    init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        }
        wake = (ends[0], ends[1])
    }

    deinit {
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    /// A line of `kind`, now or (held back) in a summary later.
    func callAsFunction(_ kind: Kind, _ line: String) {
        var startedHolding = false
        let admitted = limits.withLock { limits -> String? in
            let admitted = limits[kind.rawValue].admit(line, at: Self.now())
            startedHolding = admitted == nil && limits[kind.rawValue].heldBack == 1
            return admitted
        }
        if let admitted { write(admitted) }
        // Full (the loop has not read it yet) is fine: one byte wakes it.
        if startedHolding, wake.write >= 0 { _ = Glibc.write(wake.write, "!", 1) }
    }

    /// A --verbose line: never held back.
    func verbose(_ line: String) { write(line) }

    /// The descriptor the loop polls for POLLIN.
    var wakeDescriptor: Int32 { wake.read }

    /// When the next summary is due (seconds on the monotonic clock), if lines are held back.
    var summaryDue: Double? { limits.withLock { $0.compactMap(\.summaryDue).min() } }

    /// Logs the summaries that are due (all of them with `force`, when listen ends), and empties
    /// the wake pipe.
    func logDueSummaries(force: Bool = false) {
        var byte: UInt8 = 0
        while wake.read >= 0 && read(wake.read, &byte, 1) > 0 {}
        let now = Self.now()
        let due = limits.withLock { limits in limits.indices.compactMap { limits[$0].summary(at: now, force: force) } }
        due.forEach(write)
    }

    private static func now() -> Double { Double(monotonicNanoseconds()) / 1e9 }
}
