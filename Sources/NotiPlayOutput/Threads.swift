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

    package init(_ body: @escaping @Sendable () -> Void) {
        thread = Self.start(body)
    }

    package func join() { pthread_join(thread, nil) }

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
