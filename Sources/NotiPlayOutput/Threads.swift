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
    private let thread: pthread_t
    private var joined = false
    private let joinLock = Condition()

    /// Starts `body` on a new thread; nil when the system has no thread to give (EAGAIN under
    /// RLIMIT_NPROC, or out of memory), which a library must report, not crash its host on.
    package init?(_ body: @escaping @Sendable () -> Void) {
        guard let thread = Self.start(body) else { return nil }
        self.thread = thread
    }

    /// Waits for the thread to end. Safe to call again, and from two threads at once: `finish()`
    /// joins the render thread and then `close()` does too, and joining a joined thread is
    /// undefined (AddressSanitizer aborts on it).
    package func join() {
        joinLock.withLock {
            // Fails only for a thread that is not joinable or joins itself: never here.
            if !joined { precondition(pthread_join(thread, nil) == 0, "pthread_join failed") }
            joined = true
        }
    }

    /// Runs `body` on a new thread that nobody joins. False when no thread could be started.
    @discardableResult
    package static func detached(_ body: @escaping @Sendable () -> Void) -> Bool {
        guard let thread = start(body) else { return false }
        pthread_detach(thread)  // fails only for a thread that is not joinable: this new one is
        return true
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body))
        let result = pthread_create(&thread, nil, { argument in
            Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            return nil
        }
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

    /// After a wait that failed at once (never expected): 50 ms, so that a loop around the wait
    /// keeps a pace instead of spinning.
    static func waitFailedPause() {
        var pause = timespec(tv_sec: 0, tv_nsec: 50_000_000)
        nanosleep(&pause, nil)
    }

    /// Posts `semaphore`. Its failures need nothing done: EOVERFLOW means it already holds more
    /// posts than will ever be waited for, EINVAL that there is no semaphore for anyone to wait on.
    @inline(__always)
    static func post(_ semaphore: UnsafeMutablePointer<sem_t>) {
        _ = sem_post(semaphore)
    }
}

/// A pthread mutex with one condition variable on CLOCK_MONOTONIC, every result checked: the
/// non-real-time threads' way to wait for work (the player's control and callback threads).
/// Unchecked Sendable: it is the lock.
package final class Condition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private let condition: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)

    package init() {
        Self.check(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
        var attributes = pthread_condattr_t()
        Self.check(pthread_condattr_init(&attributes), "pthread_condattr_init")
        // Deadlines on the monotonic clock: a change of the wall clock moves no timeout.
        Self.check(pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC), "pthread_condattr_setclock")
        Self.check(pthread_cond_init(condition, &attributes), "pthread_cond_init")
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { Self.check(pthread_mutex_lock(mutex), "pthread_mutex_lock") }
    package func unlock() { Self.check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }

    package func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits (the lock held) until broadcast; callers re-check their predicate.
    package func wait() { Self.check(pthread_cond_wait(condition, mutex), "pthread_cond_wait") }

    /// Waits (the lock held) until broadcast or `deadline` (CLOCK_MONOTONIC nanoseconds).
    /// Returns false when the deadline passed.
    package func wait(until deadline: UInt64) -> Bool {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        let result = pthread_cond_timedwait(condition, mutex, &time)
        if result == ETIMEDOUT { return false }
        Self.check(result, "pthread_cond_timedwait")
        return true
    }

    package func broadcast() { Self.check(pthread_cond_broadcast(condition), "pthread_cond_broadcast") }

    /// These calls fail only on a corrupt or uninitialised object (EINVAL) or a lock used
    /// against its kind (EDEADLK, EPERM): a bug in noti-play, never a condition to go on from.
    private static func check(_ result: Int32, _ call: StaticString) {
        precondition(result == 0, "\(call) failed: \(result)")
    }
}

/// Whether the calling thread is `thread`.
package func isCurrentThread(_ thread: pthread_t) -> Bool { pthread_equal(thread, pthread_self()) != 0 }
