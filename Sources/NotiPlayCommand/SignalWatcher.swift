import NotiPlayOutput
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT, SIGTERM and SIGHUP into a call on an ordinary thread, where it is safe to talk to the
/// engine (a signal handler may do almost nothing).
// Unchecked: `thread` is written once, in init, before any other thread sees the watcher; the
// rest are atomics.
final class SignalWatcher: @unchecked Sendable {
    private var thread = pthread_t()
    private let running = Atomic<Bool>(true)
    private let received = Atomic<Int32>(0)
    /// CLOCK_MONOTONIC nanoseconds when the first signal arrived, or 0.
    let receivedAt = Atomic<UInt64>(0)
    private let onSignal: @Sendable (Int32) -> Void
    private var signals: sigset_t

    /// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and in every thread it creates later.
    /// The interruptions are convert's (SIGINT, SIGTERM, SIGHUP); one inherited as ignored
    /// (`nohup`, a background job) stays ignored.
    static func blockTerminationSignals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for (signal, _) in HeldSignals.interruptions where !HeldSignals.isIgnored(signal) {
            sigaddset(&set, signal)
        }
        // Fails only for an invalid `how`, which SIG_BLOCK is not.
        precondition(pthread_sigmask(SIG_BLOCK, &set, nil) == 0, "pthread_sigmask failed")
        return set
    }

    init(_ signals: sigset_t, onSignal: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        self.onSignal = onSignal
        let unmanaged = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            let watcher = Unmanaged<SignalWatcher>.fromOpaque(argument!).takeRetainedValue()
            watcher.watch()
            return nil
        }, unmanaged)
        // Without the watcher the blocked signals would never end the command: stop here instead.
        precondition(created == 0, "pthread_create failed: \(created)")
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
                onSignal(signal)
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

    /// Something to wait for from another thread, with timeouts on CLOCK_MONOTONIC: a clock
    /// step (NTP, the user setting the date) must not end or stretch a wait.
    final class Event: @unchecked Sendable {  // `posted` is only touched under `condition`
        private let condition = Condition()
        private var posted = 0

        func post() {
            condition.withLock {
                posted += 1
                condition.broadcast()
            }
        }

        /// Waits until posted (true, consuming the post) or `seconds` pass (false).
        func wait(seconds: Double) -> Bool {
            let deadline = monotonicNanoseconds() + UInt64(max(0, min(seconds, 1e6)) * 1e9)
            return condition.withLock {
                while posted == 0 && condition.wait(until: deadline) {}
                guard posted > 0 else { return false }
                posted -= 1
                return true
            }
        }
    }
}
