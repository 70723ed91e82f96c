#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: for timings and idle deadlines, unaffected by clock changes.
package func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// A POSIX thread running a closure: joined explicitly, or detached to end on its own.
/// (POSIX threads rather than Dispatch or Foundation: the command stays free of both, and the
/// render thread's scheduling policy is set on a thread it owns.)
package final class JoinableThread {
    private var thread = pthread_t()
    private var joined = false
    private let joinLock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()

    package init(_ body: @escaping @Sendable () -> Void) {
        thread = Self.start(body)
    }

    deinit {
        pthread_mutex_destroy(joinLock)
        joinLock.deallocate()
    }

    /// Waits for the thread to end. Safe to call again, and from two threads at once: `finish()`
    /// joins the render thread and then `close()` does too, and joining a joined thread is
    /// undefined (AddressSanitizer aborts on it).
    package func join() {
        pthread_mutex_lock(joinLock)
        defer { pthread_mutex_unlock(joinLock) }
        if !joined { pthread_join(thread, nil) }
        joined = true
    }

    /// Runs `body` on a new thread that nobody joins.
    package static func detached(_ body: @escaping @Sendable () -> Void) {
        pthread_detach(start(body))
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let result = pthread_create(&thread, nil, { argument in
            Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
        return thread
    }
}
