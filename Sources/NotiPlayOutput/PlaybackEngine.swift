import CALSA
import CSystemSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How a sound ended.
public enum VoiceOutcome: Sendable, Equatable {
    /// Every frame was mixed (and, once the engine drains, heard).
    case finished
    /// Faded out before its end, for the reason given.
    case stopped(StopReason)
    /// Decoding or the device failed (`.source` or `.device`).
    case failed(PlaybackError)
}

/// Why a voice was faded out before its end.
public enum StopReason: Sendable, Equatable {
    /// `stop(_:)` or `stopAll()`: the caller asked.
    case cancelled
    /// A critical sound started (`play(critical: true)`).
    case preempted
    /// Every voice was taken and this one, the oldest, made room (see the voice policy).
    case replaced
    /// `close()` ended it, or rendering ended.
    case interrupted
}

public struct VoiceID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public var description: String { "voice \(rawValue)" }
}

public enum PlaybackError: Error, Sendable, Equatable, CustomStringConvertible {
    case device(DeviceError)
    /// The sound's frames could not be read (a decoding error, in one line).
    case source(String)
    /// The engine's stream runs at one rate; the player converts sounds to it before they play.
    case rateMismatch(sound: Double, device: Int)
    case volumeOutOfRange(Float)
    /// Every voice is taken by a sound that outranks this one (see `PlaybackEngine`'s voice policy).
    case tooManyVoices(Int)
    /// Every spare slot still holds a fade (a burst): a voice frees within a fade's length.
    case everySlotFading
    /// `close()` or `finish()` ran: the engine plays nothing more.
    case closed
    /// The system would give no thread to render or decode (its thread limit, or no memory).
    case cannotStartThread

    public var description: String {
        switch self {
        case .device(let error): error.description
        case .source(let message): message
        case .rateMismatch(let sound, let device):
            "the sound's rate \(sound) Hz differs from the stream's \(device) Hz (the engine plays sounds at its stream's rate: convert them first)"
        case .volumeOutOfRange(let volume): "volume \(volume) is outside 0.0 to 1.0"
        case .tooManyVoices(let count): "all \(count) voices are playing sounds that outrank this one"
        case .everySlotFading: "every voice is fading out to make room; try again in a moment"
        case .closed: "the playback engine is closed"
        case .cannotStartThread: "no thread could be started to play the sound (the system's limit on threads was reached)"
        }
    }
}

/// Plays decoded sounds on one device stream (a backend's: PipeWire, PulseAudio, ALSA): voices
/// are mixed on a real-time thread.
///
/// The thread that calls `play` decodes the sound's first period into the voice's ring, then the
/// render thread starts (if it is not running) and a decode worker keeps the ring filled while
/// the sound plays. All methods may be called from any thread.
///
/// **Voice policy.** At most `voiceCapacity` sounds play at once. When a sound arrives and all
/// are playing, it takes the place of the oldest non-critical sound, which fades out (10 ms) and
/// ends `.stopped`. A critical sound, when every voice plays a critical sound, takes the place of
/// the oldest of them. A non-critical sound when every voice plays a critical one is refused with
/// `.tooManyVoices`. So critical sounds come first, then the newest: a notification is about
/// now, and a stale sound is the one to lose. A voice fading out (stolen, stopped or preempted)
/// no longer counts; it keeps one of `voiceCapacity` extra slots until its fade ends, and if a
/// burst of arrivals has every extra slot fading too, the newcomer is refused with
/// `.tooManyVoices` rather than cut a sound without its fade.
///
/// Every `play` that returns an ID is answered by exactly one call of its `onFinish`; a `play`
/// that throws never calls it.
// Unchecked: its mutable state is `state` (behind its lock), atomics, and the slots and render
// context, which the threads share by the protocol of `VoicePhase` (see VoiceSlot.swift).
public final class PlaybackEngine: @unchecked Sendable {
    /// What the device agreed to.
    public let format: NegotiatedFormat

    /// What the backend opened: the render thread's, then `close`'s.
    private let deviceHandle: UnsafeMutableRawPointer
    private let deviceCalls: PCMStreamCalls
    private let context: UnsafeMutablePointer<RenderContext>
    private let slots: UnsafeMutablePointer<VoiceSlot>
    /// Slots allocated: twice the voices, so that a stolen voice can fade while its successor plays.
    private let slotCount: Int
    /// Sounds that may play at once.
    private let voiceCapacity: Int
    /// The least a voice's ring holds, in frames.
    private let ringFrames: Int
    /// Posted by the render thread when a ring is half empty or a voice ended, and by `play`.
    private let wake: UnsafeMutablePointer<sem_t>
    /// Posted by `play` and `close`: wakes an idle render thread.
    private let voiceStarted: UnsafeMutablePointer<sem_t>
    // A pthread mutex rather than Synchronization's Mutex: ThreadSanitizer (run on the load
    // tests in CI) sees the pthread lock's ordering, and not the futex inside Mutex, so every
    // access it guards was reported as a race. It is never taken on the render thread.
    private let state = StateLock(EngineState())
    /// Held for the whole of `close()`: a second caller waits until the first has closed the
    /// device, and never closes the PCM under a render thread still running.
    private let closing = StateLock(false)
    private let workerShutdown = Atomic<Bool>(false)
    private let nextID = Atomic<Int>(0)

    /// Control and worker bookkeeping, never touched by the render thread.
    private struct EngineState: ~Copyable {
        var voices: [Int: VoiceRecord] = [:]  // by slot index
        var renderThread: JoinableThread?
        var workerThread: JoinableThread?
        var closed = false
    }

    /// A voice's non-real-time half: its source of frames and who to tell when it ends.
    /// Unchecked: once handed to the engine, it is only touched under `state`'s lock.
    private final class VoiceRecord: @unchecked Sendable {
        let id: VoiceID
        let critical: Bool
        var decoder: (any FrameSource)?
        var failure: String?
        /// `play` is still decoding the first buffer: not reported, not reaped, not decoded by the worker.
        var preparing = true
        /// Why it was asked to fade out (stolen, stopped, preempted): it no longer counts against the capacity.
        var stopReason: StopReason?
        var stopping: Bool { stopReason != nil }
        let onFinish: @Sendable (VoiceOutcome) -> Void
        init(id: VoiceID, critical: Bool, onFinish: @escaping @Sendable (VoiceOutcome) -> Void) {
            self.id = id
            self.critical = critical
            self.onFinish = onFinish
        }
    }

    /// Opens the ALSA device `name` and negotiates `request`. Nothing plays until the first `play`.
    /// - Parameters:
    ///   - drainWhenIdle: stop and drain the device once no voice plays (a command playing one
    ///     sound); otherwise the device is drained and kept open, and the next sound starts within a period.
    ///   - rampMilliseconds: length of a full-scale gain ramp (fades, volume changes).
    public convenience init(
        device name: String = "default", request: PCMRequest, voiceCapacity: Int = 16,
        drainWhenIdle: Bool = false, rampMilliseconds: Double = 10
    ) throws(DeviceError) {
        try self.init(backend: .alsa, device: name, request: request, voiceCapacity: voiceCapacity,
                      drainWhenIdle: drainWhenIdle, rampMilliseconds: rampMilliseconds)
    }

    /// The same on `backend`'s device `name` (the tests' scripted devices).
    package init(
        backend: PCMBackend, device name: String, request: PCMRequest, voiceCapacity: Int = 16,
        drainWhenIdle: Bool = false, rampMilliseconds: Double = 10
    ) throws(DeviceError) {
        let stream = try backend.open(name, request)
        (deviceHandle, format, deviceCalls) = (stream.handle, stream.format, stream.calls)
        self.voiceCapacity = max(1, voiceCapacity)
        slotCount = 2 * self.voiceCapacity
        slots = .allocate(capacity: slotCount)
        for index in 0..<slotCount { (slots + index).initialize(to: VoiceSlot()) }
        // Rings are sized in time, whatever the channel count: at least 150 ms (the decode worker
        // refills at half empty and wakes every 50 ms at the latest) and twice the device buffer
        // that `play` fills before the device starts.
        ringFrames = max(format.sampleRate * 3 / 20, 2 * format.bufferFrames)
        let samplesPerPeriod = format.periodFrames * format.channelCount
        context = .allocate(capacity: 1)
        context.initialize(to: RenderContext(
            slots: slots, slotCount: slotCount, deviceChannels: format.channelCount,
            periodFrames: format.periodFrames, sampleFormat: format.sampleFormat,
            rampStep: Float(1 / max(1, rampMilliseconds / 1000 * Double(format.sampleRate))),
            mix: .allocate(capacity: samplesPerPeriod),
            deviceBuffer: .allocate(byteCount: samplesPerPeriod * 4, alignment: 16),
            limiter: Limiter(sampleRate: format.sampleRate, periodFrames: format.periodFrames)))
        context.pointee.drainWhenIdle.store(drainWhenIdle, ordering: .relaxed)
        wake = .allocate(capacity: 1)
        voiceStarted = .allocate(capacity: 1)
        // Fails only for a value above SEM_VALUE_MAX or without semaphores at all: not a state to go on from.
        precondition(sem_init(wake, 0, 0) == 0 && sem_init(voiceStarted, 0, 0) == 0, "sem_init failed: \(errno)")
    }

    deinit {
        close()
        sem_destroy(wake)
        wake.deallocate()
        sem_destroy(voiceStarted)
        voiceStarted.deallocate()
        context.pointee.mix.deallocate()
        context.pointee.deviceBuffer.deallocate()
        context.pointee.limiter.deallocate()
        context.deinitialize(count: 1)
        context.deallocate()
        slots.deinitialize(count: slotCount)
        slots.deallocate()
    }

    // MARK: Playing

    /// Starts a sound. `volume` is linear amplitude (0…1), applied exactly while constant.
    /// A critical sound fades out every non-critical voice playing. When every voice is taken,
    /// the voice policy (above) decides which sound gives way, or refuses this one.
    /// `onFinish` is called exactly once, on the engine's worker thread (or in `close`), when the
    /// voice ends; never when `play` throws. `paused`: the voice starts paused (a pause that came
    /// before it had a voice), so not one frame plays before `setPaused(_:false)`.
    @discardableResult
    public func play(
        _ decoder: any FrameSource, volume: Float = 1, critical: Bool = false, paused: Bool = false,
        onFinish: @escaping @Sendable (VoiceOutcome) -> Void = { _ in }
    ) throws(PlaybackError) -> VoiceID {
        guard volume >= 0 && volume <= 1 else { throw .volumeOutOfRange(volume) }
        guard abs(decoder.sampleRate - Double(format.sampleRate)) < 0.5 else {
            throw .rateMismatch(sound: decoder.sampleRate, device: format.sampleRate)
        }
        let record = VoiceRecord(
            id: VoiceID(rawValue: nextID.add(1, ordering: .relaxed).newValue), critical: critical, onFinish: onFinish)
        // Choosing the slot, and the voice that gives way, is one decision under the lock.
        let index = try state.withLock { (state) throws(PlaybackError) -> Int in
            guard !state.closed else { throw .closed }
            let index = try claimSlot(for: record, &state)
            let slot = slots + index
            slot.pointee.ring.reset(channelCount: decoder.channelCount, minimumFrames: ringFrames)
            slot.pointee.stopRequested.store(false, ordering: .relaxed)
            slot.pointee.paused.store(paused, ordering: .relaxed)
            slot.pointee.endOfStream.store(false, ordering: .relaxed)
            slot.pointee.stoppedEarly.store(false, ordering: .relaxed)
            slot.pointee.framesPlayed.store(0, ordering: .relaxed)
            slot.pointee.targetGain.store(volume.bitPattern, ordering: .relaxed)
            // No ramp in: the sound's own start is its onset. Started paused, it is silent and
            // fades in when resumed.
            slot.pointee.currentGain = paused ? 0 : volume
            slot.pointee.isCritical = critical
            state.voices[index] = record  // from here stop(id) reaches it
            return index
        }
        let slot = slots + index

        // Decode a device buffer's worth now (microseconds of work): the device starts full, and
        // the decode worker has a whole buffer of time to take over. With only one period ready
        // the device ran dry right after starting, and PulseAudio dropped the sound's first 4 ms.
        var failure: String?
        do {
            _ = try fill(slot, from: decoder, atLeast: format.bufferFrames)
        } catch {
            failure = String(describing: error)
        }
        let ended = slot.pointee.endOfStream.load(ordering: .relaxed)
        try state.withLock { (state) throws(PlaybackError) in
            // Closed while decoding, or the first buffer failed: this voice never existed.
            if state.closed || failure != nil {
                state.voices[index] = nil
                slot.pointee.phase.store(VoicePhase.free, ordering: .releasing)
                if let failure { throw .source(failure) }
                throw .closed
            }
            record.decoder = ended ? nil : decoder
            record.preparing = false
            // The worker before the voice is published (it decodes only published voices), the
            // render thread after: one that started first would find no voice and, draining
            // when idle (a command's single sound), end at once.
            // Without a thread this voice never existed (and with no render thread, nothing read it).
            func withdraw(_ error: PlaybackError) -> PlaybackError {
                state.voices[index] = nil
                slot.pointee.phase.store(VoicePhase.free, ordering: .releasing)
                return error
            }
            do throws(PlaybackError) { try startWorkerThread(&state) } catch { throw withdraw(error) }
            slot.pointee.phase.store(VoicePhase.playing, ordering: .releasing)
            do throws(PlaybackError) { try startRenderThread(&state) } catch { throw withdraw(error) }
            if critical {
                for (other, voice) in state.voices where other != index && !voice.critical {
                    stopVoice(voice, at: other, .preempted)
                }
            }
        }
        RawSemaphore.post(wake)
        RawSemaphore.post(voiceStarted)
        return record.id
    }

    /// Fades a voice out and ends it (its outcome is `.stopped(.cancelled)`).
    public func stop(_ id: VoiceID) {
        state.withLock { state in
            if let (index, voice) = state.voices.first(where: { $0.value.id == id }) { stopVoice(voice, at: index, .cancelled) }
        }
    }

    /// Fades every voice out (`.stopped(.cancelled)`).
    public func stopAll() {
        state.withLock { state in
            for (index, voice) in state.voices { stopVoice(voice, at: index, .cancelled) }
        }
    }

    /// Pauses (with a short fade) or resumes a voice; it keeps its place.
    public func setPaused(_ id: VoiceID, _ paused: Bool) {
        withSlot(of: id) { $0.pointee.paused.store(paused, ordering: .relaxed) }
    }

    /// Changes a voice's volume with a short ramp.
    public func setVolume(_ id: VoiceID, _ volume: Float) throws(PlaybackError) {
        guard volume >= 0 && volume <= 1 else { throw .volumeOutOfRange(volume) }
        withSlot(of: id) { $0.pointee.targetGain.store(volume.bitPattern, ordering: .relaxed) }
    }

    /// Waits until every voice has ended and the device has played the last frame, then
    /// closes the device. The engine plays nothing after this.
    public func finish() {
        context.pointee.drainWhenIdle.store(true, ordering: .releasing)
        RawSemaphore.post(voiceStarted)  // an idle render thread re-checks and ends
        let render = state.withLock { $0.renderThread }
        render?.join()
        close()
    }

    /// Stops at once, dropping what the device holds, and closes it. Safe to call from several
    /// threads: each returns once the device is closed.
    public func close() {
        closing.withLock { closed in
            guard !closed else { return }
            closeOnce()
            closed = true
        }
    }

    private func closeOnce() {
        let (render, worker) = state.withLock { state -> (JoinableThread?, JoinableThread?) in
            if state.closed { return (nil, nil) }
            state.closed = true
            defer { state.renderThread = nil; state.workerThread = nil }
            return (state.renderThread, state.workerThread)
        }
        context.pointee.shutdown.store(true, ordering: .releasing)
        RawSemaphore.post(voiceStarted)  // an idle render thread is waiting for a sound
        deviceCalls.interrupt(deviceHandle, true)  // or for room, or for a drain
        render?.join()
        workerShutdown.store(true, ordering: .releasing)
        RawSemaphore.post(wake)
        worker?.join()
        reap(force: true)
        deviceCalls.close(deviceHandle)
    }

    // MARK: Figures for --verbose and the tests

    public var underruns: Int { context.pointee.underruns.load(ordering: .relaxed) }
    /// Frames handed to the device so far, over the engine's life (all voices mixed, so one
    /// frame per frame of the stream). It grows while the device takes sound and stands still
    /// while it takes none: a watchdog that sees no growth for a while knows the device stalled,
    /// however long the sound or however slow (but working) the device. Read with relaxed
    /// ordering: a recent value, not synchronised with anything else.
    public var framesWritten: Int { context.pointee.framesWritten.load(ordering: .relaxed) }
    public var isRealtime: Bool { context.pointee.realtime.load(ordering: .relaxed) }
    /// CLOCK_MONOTONIC nanoseconds at which the first period was handed to ALSA, if it was.
    public var firstWriteNanoseconds: UInt64? {
        let value = context.pointee.firstWriteNanoseconds.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }
    /// Times every playing voice was waiting for its decoder (0 unless the machine is overloaded,
    /// or the device has no clock, as ALSA's null device).
    public var starvedWaits: Int { context.pointee.starvedWaits.load(ordering: .relaxed) }
    /// CLOCK_MONOTONIC nanoseconds at which the latest period was handed to ALSA.
    public var lastWriteNanoseconds: UInt64? {
        let value = context.pointee.lastWriteNanoseconds.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }
    /// The error that stopped the device, if one did.
    public var deviceFailure: DeviceError? {
        var code = context.pointee.fatalError.load(ordering: .acquiring)
        if code == 0 {
            // Lost while idle (the server went away between sounds). Under the lock: `close`
            // marks the engine closed there before it frees the stream.
            code = state.withLock { state in state.closed ? 0 : deviceCalls.lost(deviceHandle) }
        }
        if code == 0 { return nil }
        // -EPIPE is fatal only when no underrun: the device wrote into a pipe whose reader left.
        if code == -ENOTRECOVERABLE {
            return DeviceError(device: format.device, backend: format.backend, "stopped playing", code: code,
                               reason: "it failed again after every recovery (its sound server or device went away)")
        }
        return DeviceError(device: format.device, backend: format.backend, code == -EPIPE ? "its output was closed" : "stopped playing",
                           errno: code)
    }

    // MARK: Internals

    /// A free slot for `record`, after asking the voice that gives way (by `VoicePolicy`, when all
    /// `voiceCapacity` are taken) to fade out. Called under the lock.
    private func claimSlot(for record: VoiceRecord, _ state: inout EngineState) throws(PlaybackError) -> Int {
        let sounding = state.voices.compactMap { index, voice -> VoicePolicy.Voice? in
            guard !voice.stopping, (slots + index).pointee.phase.load(ordering: .acquiring) != VoicePhase.finished else { return nil }
            return VoicePolicy.Voice(slot: index, id: voice.id.rawValue, isCritical: voice.critical)
        }
        var victim: (index: Int, voice: VoiceRecord)?
        switch VoicePolicy(capacity: voiceCapacity).decide(sounding: sounding, newcomerIsCritical: record.critical) {
        case .admit: break
        case .replace(let slot): victim = state.voices[slot].map { (slot, $0) }
        case .refuse: throw .tooManyVoices(voiceCapacity)
        }
        for index in 0..<slotCount where state.voices[index] == nil {
            if (slots + index).pointee.phase.compareExchange(
                expected: VoicePhase.free, desired: VoicePhase.preparing, ordering: .acquiringAndReleasing
            ).exchanged {
                if let victim { stopVoice(victim.voice, at: victim.index, .replaced) }
                return index
            }
        }
        // Every spare slot holds a fade still under way: refuse rather than cut one short.
        throw .everySlotFading
    }

    /// Asks a voice to fade out and end `.stopped(reason)`; the first reason given is the one
    /// reported. Called under the lock.
    private func stopVoice(_ voice: VoiceRecord, at index: Int, _ reason: StopReason) {
        if voice.stopReason == nil { voice.stopReason = reason }
        (slots + index).pointee.stopRequested.store(true, ordering: .relaxed)
        // A device that queues much (a sound server reached directly) would keep the render
        // thread waiting for room for a long period: it is to see the stop now. Under the lock,
        // so before `close` frees the device.
        deviceCalls.interrupt(deviceHandle, false)
    }

    private func withSlot(of id: VoiceID, _ body: (UnsafeMutablePointer<VoiceSlot>) -> Void) {
        state.withLock { state in
            if let index = state.voices.first(where: { $0.value.id == id })?.key { body(slots + index) }
        }
    }

    /// Decodes into the voice's ring until it is full, the sound ends, or `atLeast` frames
    /// were added. Returns the frames added.
    private func fill(_ slot: UnsafeMutablePointer<VoiceSlot>, from decoder: any FrameSource, atLeast: Int = .max) throws -> Int {
        var added = 0
        while added < atLeast {
            let region = slot.pointee.ring.writableRegion()
            if region.isEmpty { break }
            let frames = try decoder.read(into: region)
            if frames == 0 {
                slot.pointee.endOfStream.store(true, ordering: .releasing)
                break
            }
            slot.pointee.ring.commitWrite(frames: frames)
            added += frames
        }
        return added
    }

    private func startRenderThread(_ state: inout EngineState) throws(PlaybackError) {
        guard !state.closed else { return }
        if state.renderThread == nil {
            let context = self.context
            let wake = self.wake
            let device = PCMRenderDevice(handle: deviceHandle, calls: deviceCalls)
            // Raw pointers are not Sendable; the render thread is their one user while it runs,
            // and `close` joins it before freeing them.
            nonisolated(unsafe) let unsafeContext = context
            nonisolated(unsafe) let unsafeWake = wake
            nonisolated(unsafe) let unsafeStarted = voiceStarted
            nonisolated(unsafe) let unsafeDevice = device
            guard let thread = JoinableThread({
                // Named, so that `top -H` tells a busy render thread from its starter's.
                noti_name_this_thread("noti-play-mix")
                RenderThread.run(unsafeContext, device: unsafeDevice, wake: unsafeWake, voiceStarted: unsafeStarted)
            }) else { throw .cannotStartThread }
            state.renderThread = thread
        }
    }

    private func startWorkerThread(_ state: inout EngineState) throws(PlaybackError) {
        guard !state.closed else { return }
        if state.workerThread == nil {
            guard let thread = JoinableThread({ [unowned self] in
                noti_name_this_thread("noti-play-dec")
                self.decodeLoop()
            }) else { throw .cannotStartThread }
            state.workerThread = thread
        }
    }

    /// The decode worker: keeps rings filled, reports voices that ended, frees their slots.
    /// It decodes outside the lock, so `play`, `stop` and the rest never wait for a decode pass:
    /// once a voice is published, its `decoder` and `failure` are this thread's alone (`play`
    /// set them before publishing, under the lock; only this thread reaps, or `close` after
    /// joining it), and its slot is not reused before this thread frees it.
    private func decodeLoop() {
        var playing: [(index: Int, record: VoiceRecord)] = []  // reused: a pass allocates nothing
        while !workerShutdown.load(ordering: .acquiring) {
            // Ended voices first: their slots are free for new sounds before the decode pass.
            reap(force: false)
            playing.removeAll(keepingCapacity: true)
            let idle = state.withLock { state in
                for (index, record) in state.voices
                where record.decoder != nil && (slots + index).pointee.phase.load(ordering: .acquiring) == VoicePhase.playing {
                    playing.append((index, record))
                }
                return state.voices.isEmpty
            }
            for (index, record) in playing {
                guard let decoder = record.decoder else { continue }
                let slot = slots + index
                do {
                    _ = try fill(slot, from: decoder)
                    if slot.pointee.endOfStream.load(ordering: .relaxed) { record.decoder = nil }
                } catch {
                    // End the voice where decoding failed; what was decoded still plays.
                    record.failure = String(describing: error)
                    record.decoder = nil
                    slot.pointee.endOfStream.store(true, ordering: .releasing)
                }
            }
            reap(force: false)
            if context.pointee.fatalError.load(ordering: .acquiring) != 0 { reap(force: true) }
            // With no voice, nothing is due until `play` or `close` posts: sleep (an idle stream
            // kept open for the next sound costs no wake-ups). Only this thread removes voices,
            // and `play` posts after adding one, so the look before the pass still holds.
            if idle {
                if RawSemaphore.wait(wake) != nil { RawSemaphore.waitFailedPause() }
                continue
            }
            // The render thread posts when a ring is half empty or a voice ended; the timeout is
            // only a safety net (rings hold at least 150 ms, a third of which is this wait's margin).
            if !RawSemaphore.wait(wake, nanoseconds: 50_000_000) {
                RawSemaphore.waitFailedPause()
            }
        }
    }

    /// Reports and frees voices the render thread finished (or, when forced because rendering
    /// ended, every voice).
    private func reap(force: Bool) {
        let deviceError = deviceFailure
        let ended = state.withLock { state -> [(VoiceRecord, VoiceOutcome)] in
            var ended: [(VoiceRecord, VoiceOutcome)] = []
            for (index, record) in state.voices where !record.preparing {
                let slot = slots + index
                let finished = slot.pointee.phase.load(ordering: .acquiring) == VoicePhase.finished
                guard finished || force else { continue }
                let outcome: VoiceOutcome
                if let failure = record.failure { outcome = .failed(.source(failure)) }
                else if finished && slot.pointee.stoppedEarly.load(ordering: .relaxed) { outcome = .stopped(record.stopReason ?? .interrupted) }
                else if finished { outcome = .finished }
                else if let deviceError { outcome = .failed(.device(deviceError)) }
                else { outcome = .stopped(.interrupted) }
                ended.append((record, outcome))
                state.voices[index] = nil
                slot.pointee.phase.store(VoicePhase.free, ordering: .releasing)
            }
            return ended
        }
        for (record, outcome) in ended { record.onFinish(outcome) }
    }
}

/// `EngineState` behind a pthread mutex (see `PlaybackEngine.state`), through `Condition`, which
/// checks every pthread result. Unchecked: `value` is only reached inside `withLock`.
private final class StateLock<State: ~Copyable>: @unchecked Sendable {
    private let lock = Condition()
    private var value: State

    init(_ value: consuming State) {
        self.value = value
    }

    func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        try lock.withLock { () throws(E) -> R in try body(&value) }
    }
}
