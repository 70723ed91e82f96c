import NotiPlayOutput
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into a call on an ordinary thread, where it is safe to talk to the
/// engine (a signal handler may do almost nothing).
final class SignalWatcher: @unchecked Sendable {
    private var thread = pthread_t()
    private let running = Atomic<Bool>(true)
    private let received = Atomic<Int32>(0)
    /// CLOCK_MONOTONIC nanoseconds when the first signal arrived, or 0.
    let receivedAt = Atomic<UInt64>(0)
    private let onSignal: @Sendable () -> Void
    private var signals: sigset_t

    /// Blocks SIGINT and SIGTERM in the calling thread and in every thread it creates later.
    static func blockTerminationSignals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        return set
    }

    init(_ signals: sigset_t, onSignal: @escaping @Sendable () -> Void) {
        self.signals = signals
        self.onSignal = onSignal
        let unmanaged = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { argument in
            let watcher = Unmanaged<SignalWatcher>.fromOpaque(argument!).takeRetainedValue()
            watcher.watch()
            return nil
        }, unmanaged)
    }

    private func watch() {
        // A signal ends the wait at once; the timeout only lets the loop see stop() now and then.
        var timeout = timespec(tv_sec: 0, tv_nsec: 250_000_000)
        while running.load(ordering: .acquiring) {
            let signal = sigtimedwait(&signals, nil, &timeout)
            if signal > 0 {
                if received.load(ordering: .relaxed) == 0 {
                    receivedAt.store(monotonicNanoseconds(), ordering: .relaxed)
                    received.store(signal, ordering: .relaxed)
                }
                onSignal()
            }
        }
    }

    /// Ends the watch; returns the first signal received, if any. The thread is not joined:
    /// waiting out its poll would delay the exit, and it ends with the process.
    func stop() -> Int32? {
        running.store(false, ordering: .releasing)
        pthread_detach(thread)
        let signal = received.load(ordering: .relaxed)
        return signal == 0 ? nil : signal
    }

    /// Calls `body` after `seconds` on a detached thread (a ringtone's --for).
    static func after(seconds: Double, _ body: @escaping @Sendable () -> Void) {
        JoinableThread.detached {
            var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
            var left = timespec()
            while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
            body()
        }
    }

    /// A POSIX semaphore, for waiting on a callback from another thread.
    final class Semaphore: @unchecked Sendable {
        private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        init() { sem_init(semaphore, 0, 0) }
        deinit { sem_destroy(semaphore); semaphore.deallocate() }
        func post() { sem_post(semaphore) }
        func wait() { while sem_wait(semaphore) != 0 && errno == EINTR {} }
        /// Waits until posted (true) or until `deadline` passes (false).
        func wait(until deadline: Deadline) -> Bool {
            var time = deadline.time
            while sem_timedwait(semaphore, &time) != 0 {
                if errno != EINTR { return false }
            }
            return true
        }
    }
}
