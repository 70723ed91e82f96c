#if canImport(Glibc)
import Glibc
#endif

/// SIGPIPE, kept away from the process without touching its disposition (a host daemon owns that).
///
/// A device can write into a pipe whose reader went away: ALSA's file plugin on `"|command"` or
/// on a FIFO. The write raises SIGPIPE in the writing thread, and its default action ends the
/// process without a word. Blocked in that thread, the signal stays pending there instead, the
/// write fails with EPIPE, and ALSA returns that error, which noti-play reports.
enum BrokenPipeSignal {
    /// Blocks SIGPIPE in the calling thread for the rest of its life: for the render thread, which
    /// only writes to the device (a pending SIGPIPE goes away with the thread). Returns false if
    /// the mask could not be changed, and the thread then runs unprotected.
    @discardableResult
    static func blockInThisThread() -> Bool {
        var pipe = pipeSet()
        return pthread_sigmask(SIG_BLOCK, &pipe, nil) == 0
    }

    /// Runs `body` (a device call on a thread that is not ours: drain, drop, close) with SIGPIPE
    /// blocked, then takes away a SIGPIPE that became pending during it, and restores the thread's
    /// mask. A SIGPIPE that was already pending before is the host's and is left alone.
    static func suppressed<Result>(_ body: () -> Result) -> Result {
        var pipe = pipeSet()
        var previousMask = sigset_t()
        guard pthread_sigmask(SIG_BLOCK, &pipe, &previousMask) == 0 else { return body() }
        let pendingBefore = isPending()
        let result = body()
        if !pendingBefore && isPending() {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            while sigtimedwait(&pipe, nil, &now) < 0 && errno == EINTR {}
        }
        // Cannot fail with a valid `how`; had it failed, SIGPIPE would merely stay blocked here.
        _ = pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        return result
    }

    private static func pipeSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        return set
    }

    /// Whether SIGPIPE is pending for this thread or the process. If that cannot be read, "yes":
    /// then nothing is taken away that might be the host's. On the render thread (SIGPIPE
    /// blocked), "yes" after a failed write means the device's output pipe was closed.
    static func isPending() -> Bool {
        var pending = sigset_t()
        guard sigpending(&pending) == 0 else { return true }
        return sigismember(&pending, SIGPIPE) == 1
    }
}
