import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// The real-time loop: mix a period, wake the decoder, hand the period to ALSA, repeat.
///
/// It touches only the preallocated context and the raw PCM handle: no Swift objects, no
/// allocation, no locks, no logging. `snd_pcm_writei` blocks until the device has room,
/// which is what paces the loop.
enum RenderThread {
    static func run(_ context: UnsafeMutablePointer<RenderContext>, pcm: OpaquePointer, wake: UnsafeMutablePointer<sem_t>) {
        context.pointee.realtime.store(requestRealtimeScheduling(), ordering: .relaxed)
        let period = context.pointee.periodFrames
        let bytesPerFrame = context.pointee.deviceChannels * context.pointee.sampleFormat.bytesPerSample
        let buffer = UnsafeRawPointer(context.pointee.deviceBuffer)

        while !context.pointee.shutdown.load(ordering: .acquiring) {
            let summary = Mixer.renderPeriod(context)
            if summary.decoderHasWork { sem_post(wake) }
            var frames = summary.framesWithSound
            if summary.activeVoices == 0 {
                if context.pointee.drainWhenIdle.load(ordering: .acquiring) { break }
                frames = period  // idle: silence keeps the device running and ready
            } else if frames == 0 {
                // Every voice is waiting for its decoder. The device still holds up to a buffer
                // of sound, so give the decoder a moment rather than spin or write silence.
                context.pointee.starvedWaits.store(context.pointee.starvedWaits.load(ordering: .relaxed) + 1, ordering: .relaxed)
                var pause = timespec(tv_sec: 0, tv_nsec: 500_000)
                nanosleep(&pause, nil)
                continue
            }
            var written = 0
            while written < frames {
                let result = snd_pcm_writei(pcm, buffer + written * bytesPerFrame, snd_pcm_uframes_t(frames - written))
                if result >= 0 {
                    written += result
                    continue
                }
                let code = Int32(result)
                if code == -EAGAIN { continue }
                if code == -EPIPE {
                    context.pointee.underruns.store(context.pointee.underruns.load(ordering: .relaxed) + 1, ordering: .relaxed)
                }
                // Underruns (-EPIPE) and suspends (-ESTRPIPE) recover; a vanished device does not.
                if snd_pcm_recover(pcm, code, 1) < 0 {
                    context.pointee.fatalError.store(code, ordering: .releasing)
                    snd_pcm_drop(pcm)
                    return
                }
            }
            if frames > 0 && context.pointee.firstWriteNanoseconds.load(ordering: .relaxed) == 0 {
                context.pointee.firstWriteNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
            }
        }
        context.pointee.lastWriteNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
        if context.pointee.shutdown.load(ordering: .acquiring) {
            snd_pcm_drop(pcm)
        } else {
            snd_pcm_drain(pcm)  // let the tail be heard
        }
    }

    /// Asks for SCHED_FIFO; refused without CAP_SYS_NICE or an rtprio limit, which is fine.
    static func requestRealtimeScheduling() -> Bool {
        var parameters = sched_param()
        parameters.sched_priority = min(20, sched_get_priority_max(SCHED_FIFO))
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// A POSIX thread running a closure; joined explicitly.
final class JoinableThread {
    private var thread = pthread_t()

    init(_ body: @escaping @Sendable () -> Void) {
        final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let result = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
    }

    private var joined = false
    private let joinLock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()

    deinit {
        pthread_mutex_destroy(joinLock)
        joinLock.deallocate()
    }

    /// Waits for the thread to end. Safe to call again, and from two threads at once: `finish()`
    /// joins the render thread and then `close()` did too, and joining a joined thread is
    /// undefined (AddressSanitizer aborts on it).
    func join() {
        pthread_mutex_lock(joinLock)
        defer { pthread_mutex_unlock(joinLock) }
        if !joined { pthread_join(thread, nil) }
        joined = true
    }
}
