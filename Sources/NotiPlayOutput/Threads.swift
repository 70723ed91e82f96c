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

/// A POSIX semaphore's waits and posts, results checked, on a raw pointer (which the render
/// thread may use: no reference counting, no allocation).
enum RawSemaphore {
    /// Waits until `semaphore` is posted, through interruptions by signal handlers. Returns the
    /// errno if the wait failed otherwise (EINVAL: not a valid semaphore), which is never a post.
    @inline(__always)
    static func wait(_ semaphore: UnsafeMutablePointer<sem_t>) -> Int32? {
        while sem_wait(semaphore) != 0 {
            if errno != EINTR { return errno }
        }
        return nil
    }

    /// Waits until `semaphore` is posted or `nanoseconds` have passed (an interruption by a
    /// signal handler ends it early too). Returns false only if the wait itself failed.
    static func wait(_ semaphore: UnsafeMutablePointer<sem_t>, nanoseconds: Int) -> Bool {
        // sem_timedwait takes a CLOCK_REALTIME deadline.
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec += nanoseconds % 1_000_000_000
        if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
        if sem_timedwait(semaphore, &deadline) == 0 { return true }
        return errno == ETIMEDOUT || errno == EINTR
    }

    /// Posts `semaphore`. Its failures need nothing done: EOVERFLOW means it already holds more
    /// posts than will ever be waited for, EINVAL that there is no semaphore for anyone to wait on.
    @inline(__always)
    static func post(_ semaphore: UnsafeMutablePointer<sem_t>) {
        _ = sem_post(semaphore)
    }
}
