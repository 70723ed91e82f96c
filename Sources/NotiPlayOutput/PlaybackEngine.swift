import CALSA
import NotiPlayDecoder
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How a sound ended.
public enum VoiceOutcome: Sendable, Equatable {
    /// Every frame was mixed (and, once the engine drains, heard).
    case finished
    /// Stopped early: cancelled, preempted by a critical sound, or the engine was interrupted.
    case stopped
    /// Decoding or the device failed; the message is one line.
    case failed(String)
}

public struct VoiceID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public var description: String { "voice \(rawValue)" }
}

public enum PlaybackError: Error, Sendable, CustomStringConvertible {
    case device(ALSAError)
    /// The sound's frames could not be read (a decoding error, in one line).
    case source(String)
    /// The engine's stream runs at one rate; noti-play does not resample yet.
    case rateMismatch(sound: Double, device: Int)
    case volumeOutOfRange(Float)
    case tooManyVoices(Int)

    public var description: String {
        switch self {
        case .device(let error): error.description
        case .source(let message): message
        case .rateMismatch(let sound, let device):
            "the sound's rate \(sound) Hz differs from the stream's \(device) Hz, and noti-play does not resample yet"
        case .volumeOutOfRange(let volume): "volume \(volume) is outside 0.0 to 1.0"
        case .tooManyVoices(let count): "all \(count) voices are playing"
        }
    }
}

/// Plays decoded sounds on one ALSA PCM: voices are mixed on a real-time thread.
///
/// The thread that calls `play` decodes the sound's first period into the voice's ring, then the
/// render thread starts (if it is not running) and a decode worker keeps the ring filled while
/// the sound plays. All methods may be called from any thread.
public final class PlaybackEngine: @unchecked Sendable {
    /// What the device agreed to.
    public let format: NegotiatedFormat

    private let device: PCMDevice
    private let context: UnsafeMutablePointer<RenderContext>
    private let slots: UnsafeMutablePointer<VoiceSlot>
    private let slotCount: Int
    /// Posted by the render thread when a ring is half empty or a voice ended, and by `play`.
    private let wake: UnsafeMutablePointer<sem_t>
    /// Posted by `play` and `close`: wakes an idle render thread.
    private let voiceStarted: UnsafeMutablePointer<sem_t>
    private let state = Mutex(EngineState())
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
        var decoder: (any FrameSource)?
        var failure: String?
        let onFinish: @Sendable (VoiceOutcome) -> Void
        init(id: VoiceID, decoder: (any FrameSource)?, onFinish: @escaping @Sendable (VoiceOutcome) -> Void) {
            self.id = id
            self.decoder = decoder
            self.onFinish = onFinish
        }
    }

    /// Opens `device` and negotiates `request`. Nothing plays until the first `play`.
    /// - Parameters:
    ///   - drainWhenIdle: stop and drain the device once no voice plays (a command playing one
    ///     sound); otherwise the device is drained and kept open, and the next sound starts within a period.
    ///   - rampMilliseconds: length of a full-scale gain ramp (fades, volume changes).
    public init(
        device name: String = "default", request: PCMRequest, voiceCapacity: Int = 16,
        drainWhenIdle: Bool = false, rampMilliseconds: Double = 10
    ) throws(ALSAError) {
        device = try PCMDevice(name: name)
        format = try device.configure(request)
        slotCount = voiceCapacity
        slots = .allocate(capacity: voiceCapacity)
        for index in 0..<voiceCapacity {
            // About 190 ms of stereo 44.1 kHz per voice: the decoder stays far ahead.
            (slots + index).initialize(to: VoiceSlot(ringSamples: 16384))
        }
        let samplesPerPeriod = format.periodFrames * format.channelCount
        context = .allocate(capacity: 1)
        context.initialize(to: RenderContext(
            slots: slots, slotCount: voiceCapacity, deviceChannels: format.channelCount,
            periodFrames: format.periodFrames, sampleFormat: format.sampleFormat,
            rampStep: Float(1 / max(1, rampMilliseconds / 1000 * Double(format.sampleRate))),
            mix: .allocate(capacity: samplesPerPeriod),
            deviceBuffer: .allocate(byteCount: samplesPerPeriod * 4, alignment: 16)))
        context.pointee.drainWhenIdle.store(drainWhenIdle, ordering: .relaxed)
        wake = .allocate(capacity: 1)
        sem_init(wake, 0, 0)
        voiceStarted = .allocate(capacity: 1)
        sem_init(voiceStarted, 0, 0)
    }

    deinit {
        close()
        sem_destroy(wake)
        wake.deallocate()
        sem_destroy(voiceStarted)
        voiceStarted.deallocate()
        context.pointee.mix.deallocate()
        context.pointee.deviceBuffer.deallocate()
        context.deinitialize(count: 1)
        context.deallocate()
        slots.deinitialize(count: slotCount)
        slots.deallocate()
    }

    // MARK: Playing

    /// Starts a sound. `volume` is linear amplitude (0…1), applied exactly while constant.
    /// A critical sound fades out every non-critical voice playing.
    /// `onFinish` is called once, on the engine's worker thread, when the voice ends.
    @discardableResult
    public func play(
        _ decoder: any FrameSource, volume: Float = 1, critical: Bool = false,
        onFinish: @escaping @Sendable (VoiceOutcome) -> Void = { _ in }
    ) throws(PlaybackError) -> VoiceID {
        guard volume >= 0 && volume <= 1 else { throw .volumeOutOfRange(volume) }
        guard abs(decoder.sampleRate - Double(format.sampleRate)) < 0.5 else {
            throw .rateMismatch(sound: decoder.sampleRate, device: format.sampleRate)
        }
        guard let index = claimSlot() else { throw .tooManyVoices(slotCount) }
        let slot = slots + index
        slot.pointee.ring.reset(channelCount: decoder.channelCount)
        slot.pointee.stopRequested.store(false, ordering: .relaxed)
        slot.pointee.paused.store(false, ordering: .relaxed)
        slot.pointee.endOfStream.store(false, ordering: .relaxed)
        slot.pointee.stoppedEarly.store(false, ordering: .relaxed)
        slot.pointee.framesPlayed.store(0, ordering: .relaxed)
        slot.pointee.targetGain.store(volume.bitPattern, ordering: .relaxed)
        slot.pointee.currentGain = volume  // no ramp in: the sound's own start is its onset
        slot.pointee.isCritical = critical

        // Decode a device buffer's worth now (microseconds of work): the device starts full, and
        // the decode worker has a whole buffer of time to take over. With only one period ready
        // the device ran dry right after starting, and PulseAudio dropped the sound's first 4 ms.
        do {
            _ = try fill(slot, from: decoder, atLeast: format.bufferFrames)
        } catch {
            slot.pointee.phase.store(VoicePhase.free, ordering: .releasing)
            throw .source(error.message)
        }

        let ended = slot.pointee.endOfStream.load(ordering: .relaxed)
        let record = VoiceRecord(
            id: VoiceID(rawValue: nextID.add(1, ordering: .relaxed).newValue), decoder: ended ? nil : decoder,
            onFinish: onFinish)
        state.withLock { state in
            state.voices[index] = record
            if critical {
                for (other, _) in state.voices where other != index && !(slots + other).pointee.isCritical {
                    (slots + other).pointee.stopRequested.store(true, ordering: .relaxed)
                }
            }
            slot.pointee.phase.store(VoicePhase.playing, ordering: .releasing)
            startThreads(&state)
        }
        sem_post(wake)
        sem_post(voiceStarted)
        return record.id
    }

    /// Fades a voice out and ends it (its outcome is `.stopped`).
    public func stop(_ id: VoiceID) {
        withSlot(of: id) { $0.pointee.stopRequested.store(true, ordering: .relaxed) }
    }

    /// Fades every voice out.
    public func stopAll() {
        state.withLock { state in
            for index in state.voices.keys { (slots + index).pointee.stopRequested.store(true, ordering: .relaxed) }
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
        sem_post(voiceStarted)  // an idle render thread re-checks and ends
        let render = state.withLock { $0.renderThread }
        render?.join()
        close()
    }

    /// Stops at once, dropping what the device holds, and closes it.
    public func close() {
        let (render, worker) = state.withLock { state -> (JoinableThread?, JoinableThread?) in
            if state.closed { return (nil, nil) }
            state.closed = true
            defer { state.renderThread = nil; state.workerThread = nil }
            return (state.renderThread, state.workerThread)
        }
        context.pointee.shutdown.store(true, ordering: .releasing)
        sem_post(voiceStarted)  // an idle render thread is waiting for a sound
        render?.join()
        workerShutdown.store(true, ordering: .releasing)
        sem_post(wake)
        worker?.join()
        reap(force: true)
        device.close()
    }

    // MARK: Figures for --verbose and the tests

    public var underruns: Int { context.pointee.underruns.load(ordering: .relaxed) }
    public var isRealtime: Bool { context.pointee.realtime.load(ordering: .relaxed) }
    /// CLOCK_MONOTONIC nanoseconds at which the first period was handed to ALSA, if it was.
    public var firstWriteNanoseconds: UInt64? {
        let value = context.pointee.firstWriteNanoseconds.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }
    /// Times every playing voice was waiting for its decoder (0 unless the machine is overloaded,
    /// or the device has no clock, as ALSA's null device).
    public var starvedWaits: Int { context.pointee.starvedWaits.load(ordering: .relaxed) }
    /// CLOCK_MONOTONIC nanoseconds at which the last period was handed to ALSA, once rendering ended.
    public var lastWriteNanoseconds: UInt64? {
        let value = context.pointee.lastWriteNanoseconds.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }
    /// The ALSA error that stopped the device, if one did.
    public var deviceFailure: ALSAError? {
        let code = context.pointee.fatalError.load(ordering: .acquiring)
        return code == 0 ? nil : ALSAError(device: format.device, "stopped playing", code: code)
    }

    // MARK: Internals

    private func claimSlot() -> Int? {
        for index in 0..<slotCount {
            if (slots + index).pointee.phase.compareExchange(
                expected: VoicePhase.free, desired: VoicePhase.preparing, ordering: .acquiringAndReleasing
            ).exchanged { return index }
        }
        return nil
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

    private func startThreads(_ state: inout EngineState) {
        guard !state.closed else { return }
        if state.renderThread == nil {
            let context = self.context
            let wake = self.wake
            let pcm = device.rawHandle
            nonisolated(unsafe) let unsafeContext = context
            nonisolated(unsafe) let unsafeWake = wake
            nonisolated(unsafe) let unsafeStarted = voiceStarted
            nonisolated(unsafe) let unsafePCM = pcm
            state.renderThread = JoinableThread {
                RenderThread.run(unsafeContext, pcm: unsafePCM, wake: unsafeWake, voiceStarted: unsafeStarted)
            }
        }
        if state.workerThread == nil {
            state.workerThread = JoinableThread { [unowned self] in self.decodeLoop() }
        }
    }

    /// The decode worker: keeps rings filled, reports voices that ended, frees their slots.
    private func decodeLoop() {
        while !workerShutdown.load(ordering: .acquiring) {
            state.withLock { state in
                for (index, record) in state.voices {
                    let slot = slots + index
                    guard let decoder = record.decoder,
                          slot.pointee.phase.load(ordering: .acquiring) == VoicePhase.playing else { continue }
                    do {
                        _ = try fill(slot, from: decoder)
                        if slot.pointee.endOfStream.load(ordering: .relaxed) { record.decoder = nil }
                    } catch {
                        // End the voice where decoding failed; what was decoded still plays.
                        record.failure = error.message
                        record.decoder = nil
                        slot.pointee.endOfStream.store(true, ordering: .releasing)
                    }
                }
            }
            reap(force: false)
            if context.pointee.fatalError.load(ordering: .acquiring) != 0 { reap(force: true) }
            // The render thread posts when a ring is half empty or a voice ended; the timeout is
            // only a safety net (rings hold about 190 ms, half of which is this wait's margin).
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_nsec += 50_000_000
            if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
            sem_timedwait(wake, &deadline)
        }
    }

    /// Reports and frees voices the render thread finished (or, when forced because rendering
    /// ended, every voice).
    private func reap(force: Bool) {
        let deviceError = deviceFailure
        let ended = state.withLock { state -> [(VoiceRecord, VoiceOutcome)] in
            var ended: [(VoiceRecord, VoiceOutcome)] = []
            for (index, record) in state.voices {
                let slot = slots + index
                let finished = slot.pointee.phase.load(ordering: .acquiring) == VoicePhase.finished
                guard finished || force else { continue }
                let outcome: VoiceOutcome
                if let failure = record.failure { outcome = .failed(failure) }
                else if finished && slot.pointee.stoppedEarly.load(ordering: .relaxed) { outcome = .stopped }
                else if finished { outcome = .finished }
                else if let deviceError { outcome = .failed(deviceError.description) }
                else { outcome = .stopped }
                ended.append((record, outcome))
                state.voices[index] = nil
                slot.pointee.phase.store(VoicePhase.free, ordering: .releasing)
            }
            return ended
        }
        for (record, outcome) in ended { record.onFinish(outcome) }
    }
}

extension Error {
    var message: String { (self as? DecodingError)?.message ?? String(describing: self) }
}
