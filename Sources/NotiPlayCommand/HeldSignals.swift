#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// SIGINT, SIGTERM and SIGHUP held back (blocked) while `convert` writes, and looked at between
/// chunks: an interruption then ends the conversion through its ordinary failure path, which
/// removes the temporary file. A handler could not do that safely at any instant (it might run
/// between the file's creation and the moment its name is known), and convert has no thread to
/// spare for a watcher: it never blocks for long, so a check per chunk answers within milliseconds.
///
/// (PlayOptions.play's SignalWatcher serves playback, which waits on a device; nothing is shared.)
struct HeldSignals {
    private var held = sigset_t()

    /// The signals that end a conversion, and their names for the message.
    static let interruptions: [(number: Int32, name: String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")]

    /// Blocks the interruptions in the calling thread, before any file is created. A signal the
    /// process inherited as ignored stays ignored (`nohup`, a shell's background job ignoring
    /// SIGINT): a blocked signal is queued even when ignored, so those are not blocked.
    init() {
        sigemptyset(&held)
        for (signal, _) in Self.interruptions where !Self.isIgnored(signal) {
            sigaddset(&held, signal)
        }
        // Fails only for an invalid `how`; the set is built above.
        pthread_sigmask(SIG_BLOCK, &held, nil)
    }

    /// The first interruption that arrived since `init`, if any (taken off the queue).
    func pending() -> Int32? {
        var set = held
        var none = timespec(tv_sec: 0, tv_nsec: 0)
        while true {
            let signal = sigtimedwait(&set, nil, &none)
            if signal > 0 { return signal }
            // EAGAIN: none pending. EINTR: another signal's handler ran; look again.
            if errno != EINTR { return nil }
        }
    }

    static func name(_ signal: Int32) -> String {
        interruptions.first { $0.number == signal }?.name ?? "signal \(signal)"
    }

    static func isIgnored(_ signal: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signal, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
