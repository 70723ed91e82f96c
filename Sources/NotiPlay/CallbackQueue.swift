import CSystemSupport
import NotiPlayOutput
#if canImport(Glibc)
import Glibc
#endif

/// Runs the caller's callbacks one at a time, in order, on one thread that does nothing else:
/// a slow callback delays the callbacks after it, never a sound, a lookup or a device.
///
/// It holds what it is given: ``PlayerCore`` bounds that, by refusing requests while too many
/// ids are unanswered.
///
/// `close()` is the gate the C library's `noti_play_free` needs: what is still queued is
/// dropped, and once it returns no callback runs. It waits only for a callback running at that
/// moment, and not even for that one when it is called from inside it.
final class CallbackQueue: @unchecked Sendable {  // Every field is guarded by `condition`.
    private let condition = Condition()
    /// A FIFO: a queue that is never empty (a callback thread that keeps up only just) still
    /// lets go of what has run.
    private var pending = FIFO<@Sendable () -> Void>()
    private var running = false
    private var closed = false
    private var thread: pthread_t?

    /// Starts the callback thread; nil when no thread could be started.
    init?() {
        // The thread holds the queue until `close()`; it ends on its own, nobody joins it.
        guard JoinableThread.detached({ [self] in run() }) else { return nil }
    }

    /// Queues `callback`; dropped when the queue is closed.
    func enqueue(_ callback: @escaping @Sendable () -> Void) {
        condition.withLock {
            guard !closed else { return }
            pending.append(callback)
            condition.broadcast()
        }
    }

    /// Drops what is queued and returns once no callback runs.
    func close() {
        let dropped = condition.withLock { () -> FIFO<@Sendable () -> Void> in
            closed = true
            condition.broadcast()
            let insideCallback = thread.map(isCurrentThread) ?? false
            while running && !insideCallback { condition.wait() }
            defer { pending = FIFO() }
            return pending
        }
        _ = dropped  // released here, outside the lock: a closure's captures may run deinit code
    }

    private func run() {
        noti_name_this_thread("noti-play-cb")
        condition.lock()
        thread = pthread_self()
        while true {
            while pending.isEmpty && !closed { condition.wait() }
            if closed { break }
            guard let callback = pending.popFirst() else { continue }
            running = true
            condition.unlock()
            callback()
            condition.lock()
            running = false
            condition.broadcast()
        }
        condition.unlock()
    }
}
