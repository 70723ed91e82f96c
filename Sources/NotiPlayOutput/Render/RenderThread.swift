#if canImport(Glibc)
import Glibc
#endif

/// The real-time loop: mix a period, wake the decoder, hand the period to the device, repeat.
///
/// It touches only the preallocated context and the device's handle and function pointers: no
/// Swift objects, no allocation, no locks, no logging. The device's write (ALSA: snd_pcm_writei;
/// a server's: its queue) blocks until the device has room, which is what paces the loop.
enum RenderThread {
    static func run(
        _ context: UnsafeMutablePointer<RenderContext>, device: PCMRenderDevice, wake: UnsafeMutablePointer<sem_t>,
        voiceStarted: UnsafeMutablePointer<sem_t>
    ) {
        context.pointee.realtime.store(requestRealtimeScheduling(), ordering: .relaxed)
        // A device writing into a pipe whose reader left must fail with EPIPE, not end the process.
        BrokenPipeSignal.blockInThisThread()
        let bytesPerFrame = context.pointee.deviceChannels * context.pointee.sampleFormat.bytesPerSample
        let buffer = UnsafeRawPointer(context.pointee.deviceBuffer)

        var tailHeard = false  // drained while idle, and woken only to end
        // The device faded out what it held: the voices' own fades, which would be heard after
        // it, are not written.
        var tookBack = false
        let fadeFrames = Int((1 / context.pointee.rampStep).rounded(.up))
        while !context.pointee.shutdown.load(ordering: .acquiring) {
            // Mix only once the device has room: a period mixed ahead would wait, already
            // rendered, inside the blocking write, and a stop (its fade) would be heard one
            // period later. (The wait is bounded so that a device without a clock, or one that
            // stalls, leaves the loop where it was: blocked in the write.)
            device.waitForRoom(milliseconds: 1000)
            let summary = Mixer.renderPeriod(context)
            if summary.decoderHasWork { RawSemaphore.post(wake) }
            let frames = summary.framesWithSound
            if summary.activeVoices > 0 && summary.stoppingVoices == summary.activeVoices {
                // Every voice is ending: where the device can replace what it queued with a
                // fade of it (a sound server's deep queue), the stop is heard within that fade.
                if !tookBack, device.takeBack(fadeFrames: fadeFrames) >= 0 {
                    tookBack = true
                    context.pointee.lastWriteNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
                }
                if tookBack { continue }
            } else {
                tookBack = false  // a sound playing on: written after the fade
            }
            if summary.activeVoices == 0 {
                if context.pointee.drainWhenIdle.load(ordering: .acquiring) { break }
                // Idle: let the tail play, then sleep until a sound starts. The PCM stays open
                // and is prepared again on wake-up, so the next sound starts within a period
                // (writing silence instead would spin on devices without a clock).
                device.drain()
                if let failure = RawSemaphore.wait(voiceStarted) {
                    // Never woken again: end, reported as the engine's failure, rather than
                    // spin through drain and wait at full speed.
                    context.pointee.fatalError.store(-failure, ordering: .releasing)
                    device.drop()
                    return
                }
                // Several sounds may have started; EAGAIN (none left) ends the loop, as would an
                // interruption, which only costs one more pass through here.
                while sem_trywait(voiceStarted) == 0 {}
                // Woken to end (`finish()` with nothing left to play, or `close()`): the tail has
                // been heard; preparing and draining again costs the pulse plugin a round trip
                // on every stop.
                if context.pointee.shutdown.load(ordering: .acquiring)
                    || (context.pointee.drainWhenIdle.load(ordering: .acquiring) && !Mixer.hasPlayingVoice(context)) {
                    tailHeard = true
                    break
                }
                device.prepare()
                continue
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
                let result = device.write(buffer + written * bytesPerFrame, count: frames - written)
                if result >= 0 {
                    written += result
                    // Only this thread writes the counter, so a load and a store is an increment.
                    context.pointee.framesWritten.store(
                        context.pointee.framesWritten.load(ordering: .relaxed) + result, ordering: .relaxed)
                    continue
                }
                if result == PCMStreamCalls.interrupted {
                    // Interrupted while waiting for room: by a stop (write on), or by `close`.
                    if context.pointee.shutdown.load(ordering: .acquiring) { break }
                    continue
                }
                if result == PCMStreamCalls.underrun {
                    context.pointee.underruns.store(context.pointee.underruns.load(ordering: .relaxed) + 1, ordering: .relaxed)
                    continue
                }
                // Lost: the backend could not recover it (a vanished device or server, a closed
                // pipe). A write that raised SIGPIPE (blocked here, so left pending) went into a
                // pipe whose reader left, whatever code the plugin made of it.
                let cause = BrokenPipeSignal.isPending() ? -EPIPE : Int32(truncatingIfNeeded: result)
                context.pointee.fatalError.store(cause, ordering: .releasing)
                device.drop()
                // The worker reports the voices failed now, not at its next 50 ms look.
                RawSemaphore.post(wake)
                return
            }
            // The latest write, not the loop's end: an engine kept open drains and sleeps
            // before `finish()` ends the loop, and a stop's fade was written long before.
            let now = monotonicNanoseconds()
            context.pointee.lastWriteNanoseconds.store(now, ordering: .relaxed)
            if context.pointee.firstWriteNanoseconds.load(ordering: .relaxed) == 0 {
                context.pointee.firstWriteNanoseconds.store(now, ordering: .relaxed)
            }
        }
        if context.pointee.shutdown.load(ordering: .acquiring) {
            device.drop()
        } else if !tailHeard {
            device.drain()  // let the tail be heard
        }
    }

    /// Asks for SCHED_FIFO; refused without CAP_SYS_NICE or an rtprio limit, which is fine.
    static func requestRealtimeScheduling() -> Bool {
        var parameters = sched_param()
        parameters.sched_priority = min(20, sched_get_priority_max(SCHED_FIFO))
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0
    }
}
