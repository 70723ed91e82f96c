import NotiPlayOutput

/// listen's lines for stderr, written by a thread of their own: a stderr that nobody reads (a
/// full pipe) blocks only that thread, never the one that serves the bus and the signals, nor
/// the player's callbacks. The queue holds `capacity` lines; beyond that a line is dropped and
/// counted, and once stderr takes lines again "(N lines dropped …)" says how many went.
final class StandardErrorQueue: @unchecked Sendable {  // its state is only touched under `condition`
    /// Far more than a burst of listen's rate-limited lines; a --verbose flood beyond it is dropped.
    static let capacity = 128

    private let condition = Condition()
    private var lines: [String] = []
    private var dropped = 0
    /// A line is being written (the queue may be empty and still not written out).
    private var writing = false
    private let write: @Sendable (String) -> Void

    /// Starts the writer thread; nil when the system has no thread to give.
    /// - Parameter write: writes one line, blocking as long as stderr does.
    init?(write: @escaping @Sendable (String) -> Void) {
        self.write = write
        guard JoinableThread.detached({ [self] in writeLines() }) else { return nil }
    }

    /// Queues `line`, or drops it when the queue is full. Never waits for stderr.
    func append(_ line: String) {
        condition.withLock {
            guard lines.count < Self.capacity else {
                dropped += 1
                return
            }
            if dropped > 0 { lines.append(Self.droppedNote(dropped)) }
            dropped = 0
            lines.append(line)
            condition.broadcast()
        }
    }

    /// Waits until every queued line is written, or `seconds` pass (stderr is blocked): listen
    /// ends then all the same.
    func finish(within seconds: Double) {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        condition.withLock {
            while (writing || !lines.isEmpty || dropped > 0) && condition.wait(until: deadline) {}
        }
    }

    private func writeLines() {
        while true {
            let line = condition.withLock { () -> String in
                while lines.isEmpty && dropped == 0 { condition.wait() }
                writing = true
                if lines.isEmpty {
                    defer { dropped = 0 }
                    return Self.droppedNote(dropped)
                }
                return lines.removeFirst()
            }
            write(line)
            condition.withLock {
                writing = false
                condition.broadcast()
            }
        }
    }

    private static func droppedNote(_ count: Int) -> String {
        "(\(count) line\(count == 1 ? "" : "s") dropped: standard error was full)"
    }
}
