import CSystemSupport
import NotiPlayDecoder
import NotiPlayOutput
import NotiPlayResampler

/// The player's control thread: the only owner of the open devices, the sounds playing and the
/// deadlines. Everything that can take time happens here or on threads it starts — the lookup,
/// the 30-second rule, opening the file and decoding its first buffer, opening a device (on a
/// thread of its own, with a deadline) — never on a caller's thread. Commands arrive in order
/// through ``PlayerCore`` (critical plays ahead of the rest), so a sound that ends before its
/// `play` was even handled is reported after it, never lost; and it sleeps until there is work
/// or a deadline.
final class PlayerControl {
    /// How often a device that plays is looked at for progress (only while it plays).
    static let progressLook = 1.0
    /// Sounds that may wait for a stream (its device opening or closing, or a burst), each
    /// holding its open file: as many as a daemon's stream has voice slots (16 voices, 32 slots).
    /// Past that the voice policy's rule applies before they play: critical sounds first, then
    /// the newest; the oldest gives way (`replaced`).
    static let waitingLimit = 32

    private let core: PlayerCore
    private var devices: [EngineKey: Device] = [:]
    private var sounds: [PlaybackID: Sound] = [:]
    private var attempts = 0

    private enum Device {
        /// Opening on a thread of its own; these sounds wait for it.
        case opening(attempt: Int, deadline: UInt64, waiting: [Prepared])
        /// Open, playing (watched for stalls) or idle (closed after the idle timeout).
        case open(PlaybackEngine, Activity)
        /// Drained: it plays its tail and closes on a thread of its own. Sounds asked for
        /// meanwhile wait for that, so a device that allows one open is never opened twice.
        case closing(waiting: [Prepared])
    }

    private enum Activity {
        /// Sounds play or wait on it: the watch counts the looks without progress.
        case playing(StallWatch)
        /// No sound since then.
        case idle(since: UInt64)

        /// A stream that starts playing: its watch starts afresh.
        static func started(_ deadlines: DeviceDeadlines.Seconds) -> Activity {
            .playing(StallWatch(lookEvery: PlayerControl.progressLook, stallSeconds: deadlines.stall))
        }
    }
    /// Sounds that met a burst (every spare voice still fading): they start, in order, as soon as
    /// a voice of their stream ends, which is within a fade's 10 ms.
    private var parked: [EngineKey: [Prepared]] = [:]
    /// Threads still stuck in the device (an open past its deadline, the close of a stalled
    /// stream). While one is, no new stream is tried: requests fail at once instead of leaving
    /// a thread behind each (a hung sound server and a notification every few seconds).
    private var stuckThreads = 0
    /// Who asked for a drain, waiting until nothing plays and then for `draining` devices to close.
    private var drainRequests: [@Sendable ([StreamFigures]) -> Void] = []
    private var draining = 0
    private var drainedFigures: [StreamFigures] = []

    /// A sound looked up and opened, ready for a device.
    private struct Prepared {
        let id: PlaybackID
        let sound: SoundCache.Opened
        let volume: Float
        let isCritical: Bool
    }

    /// A sound from the moment it has a device (or waits for one) until it ends.
    private struct Sound {
        let key: EngineKey
        var voice: VoiceID?
        let warnings: [PlaybackWarning]
        /// The file found, and its rate and channels, for the report.
        let file: String
        let shape: (sampleRate: Int, channelCount: Int)
        let isCritical: Bool
        /// Paused before it had a voice (waiting for its device, or parked): it starts paused.
        var paused = false
        /// Faded out because quiet was turned on while it played: reported silenced, for this reason.
        var silencedBecause: String?
        /// What was asked: played again, once, if the stream it started on was dead already.
        let request: PlayRequest
        let askedAt: UInt64
        /// A ringtone's end by the ring cap (monotonic nanoseconds), unless cancelled before.
        let ringEnds: UInt64?
        /// It rang its cap: its fade ends it `finished`, not `cancelled`.
        var rangItsCap = false
        /// Started on a stream resumed from idle, which may have died unseen meanwhile (its sound
        /// server restarted between sounds: ALSA, pipewire-alsa's plugin among its devices, says
        /// so only at the next write), and the frames the stream had taken then. Should the
        /// stream fail before it takes a frame more, the sound never started: it is asked for
        /// again, and so gets a new stream.
        var resumed: ResumedStream?
    }

    /// A stream resumed from idle, and the frames it had taken when a sound started on it.
    private struct ResumedStream {
        let engine: PlaybackEngine
        let framesWritten: Int

        /// Whether the stream has taken no frame since.
        var tookNothingSince: Bool { engine.framesWritten == framesWritten }
    }

    init(core: PlayerCore) { self.core = core }

    /// Starts the control thread; it ends when the player closes. False when no thread could be started.
    static func start(_ core: PlayerCore) -> Bool {
        JoinableThread.detached {
            noti_name_this_thread("noti-play-ctl")
            // The user's settings, read here rather than on a caller's thread (a `configure`
            // queued already makes the policy anew from them and its own).
            if core.configuration.policy == nil { core.policy = SoundPolicy.load().policy }
            let control = PlayerControl(core: core)
            taking: while true {
                switch core.nextCommand(deadline: control.nextDeadline) {
                case .closed:
                    break taking
                case .command(let command, let more):
                    control.handle(command)
                    control.handleDeadlines(now: monotonicNanoseconds())
                    if !more { control.drainIfIdle() }  // a play still queued plays before a drain closes its device
                case .deadlinePassed:
                    control.handleDeadlines(now: monotonicNanoseconds())
                    control.drainIfIdle()
                }
            }
            control.closeDevices()
            core.controlEnded()
        }
    }

    private func handle(_ command: PlayerCommand) {
        switch command {
        case .play(let id, let request, let askedAt): play(id, request, askedAt: askedAt)
        case .control(let id):
            guard let control = core.takeControl(id) else { return }
            if control.cancel {
                cancel(id)
            } else if let paused = control.paused {
                if let (engine, voice) = playing(id) { engine.setPaused(voice, paused) }
                else { sounds[id]?.paused = paused }
            }
        case .quietChanged:
            core.quietChangeTaken()
            silenceNonCritical()
        case .configure:
            guard let settings = core.takePendingSettings() else { return }
            let base = !settings.readsUserConfiguration ? SoundPolicy() : core.configuration.policy ?? SoundPolicy.load().policy
            core.policy = settings.applied(to: base)
            silenceNonCritical()
        case .voiceEnded(let id, let outcome):
            guard let sound = sounds[id] else { return }
            if case .failed(.device) = outcome, sound.resumed?.tookNothingSince == true {
                sounds[id] = nil  // not reported: it plays now, on the stream that replaces the dead one
                play(id, sound.request, askedAt: sound.askedAt)
                startParked(sound.key)
                return
            }
            // Faded out on purpose: for quiet turned on, or at the ring cap (a ringtone ends no other way).
            let result: PlaybackResult = if let reason = sound.silencedBecause { .silenced(reason) }
                else if sound.rangItsCap && outcome == .stopped(.cancelled) { .finished }
                else { PlaybackResult(outcome) }
            end(id, result)
            startParked(sound.key)
            markIdleIfUnused(sound.key)
        case .deviceOpened(let key, let attempt, let result):
            deviceOpened(key, attempt: attempt, result)
        case .deviceReleased:
            stuckThreads -= 1
        case .drain(let completion):
            drainRequests.append(completion)
        case .deviceDrained(let key, let figures):
            draining -= 1
            drainedFigures.append(figures)
            if case .closing(let waiting)? = devices[key] {
                devices[key] = nil
                let live = waiting.filter { sounds[$0.id] != nil }
                if let last = live.last {  // in arrival order: `open` takes the parked ones first
                    parked[key] = Array(live.dropLast())
                    open(key, for: last)
                }
            }
        }
    }

    // MARK: Playing

    private func play(_ id: PlaybackID, _ request: PlayRequest, askedAt: UInt64) {
        var warnings: [PlaybackWarning] = []
        let prepared: Prepared, path: String, isRingtone: Bool
        do throws(NotificationSoundError) {
            let resolved = try resolve(request, warnings: &warnings)
            guard case let .play(file, volume, loops, isCritical) = resolved else {
                if case .silent(let reason) = resolved { core.finish(id, .silenced(reason), warnings: warnings) }
                return
            }
            path = file.path
            isRingtone = loops
            if !isCritical && isPreemptedOnArrival(id) {
                core.finish(id, .preempted, warnings: warnings, file: path)
                return
            }
            core.configuration.afterLookup(path)
            prepared = Prepared(id: id, sound: try core.cache.open(file, loops: loops), volume: volume, isCritical: isCritical)
        } catch {
            core.finish(id, .failed(error), warnings: warnings, file: error.filePath)
            return
        }
        let key = EngineKey(device: core.configuration.device)
        let ringCap = isRingtone ? core.limits.ringCapNanoseconds : nil
        sounds[id] = Sound(key: key, warnings: warnings, file: path,
                           shape: (Int(prepared.sound.sampleRate.rounded()), prepared.sound.channelCount), isCritical: prepared.isCritical,
                           request: request, askedAt: askedAt, ringEnds: ringCap.map { askedAt + $0 })
        switch devices[key] {
        case .open(let engine, _)? where engine.deviceFailure == nil:
            if parked[key] != nil { parked[key] = capped(parked[key]! + [prepared]) }  // behind the burst, in order
            else { start(prepared, on: engine, key) }
        case .opening(let attempt, let deadline, let waiting)?:
            devices[key] = .opening(attempt: attempt, deadline: deadline, waiting: capped(waiting + [prepared]))
        case .closing(let waiting)?:
            devices[key] = .closing(waiting: capped(waiting + [prepared]))
        case .open(let failed, _)?:
            // The device stopped (a sound server restarted): a new stream, not the dead one.
            failed.close()
            open(key, for: prepared)
        case nil:
            open(key, for: prepared)
        }
    }

    /// Whether a sound asked for before a critical one that is playing or waiting now was
    /// looked up only after it (critical requests do not wait behind others: ``PlayerCore``).
    /// Had it started first, the critical sound would have faded it out: it is `preempted`.
    private func isPreemptedOnArrival(_ id: PlaybackID) -> Bool {
        sounds.contains { $0.key.rawValue > id.rawValue && $0.value.isCritical }
    }

    /// The file, the volume to play it at and its kind, or why nothing plays.
    private func resolve(_ request: PlayRequest, warnings: inout [PlaybackWarning]) throws(NotificationSoundError) -> ResolvedSound.Action {
        let configuration = core.configuration
        var appID = configuration.appID
        if case .notification(let notification) = request, let requested = notification.appID { appID = requested }
        var resolver = SoundResolver(locator: SoundLocator(appFolders: configuration.appFolders, appID: appID), policy: core.policy)
        resolver.quietOverride = core.quiet
        warnings += resolver.locator.warnings
        let resolved: ResolvedSound, gain: Float
        switch request {
        case let .sound(sound, suppressSound, requestedGain):
            (resolved, gain) = (try resolver.resolve(sound, suppressSound: suppressSound), requestedGain)
        case .notification(let notification):
            (resolved, gain) = (try resolver.resolve(notification), notification.volume)
        }
        warnings += resolved.warnings
        guard case let .play(file, volume, loops, isCritical) = resolved.action else { return resolved.action }
        return .play(file, volume: isCritical ? volume : volume * gain, loops: loops, isCritical: isCritical)
    }

    /// Plays `prepared` on an open device, converted to its stream's rate and channels (or from
    /// the cache's conversion). A critical sound fades out every other sound of the device: the
    /// engine does it, as they share its stream.
    private func start(_ prepared: Prepared, on engine: PlaybackEngine, _ key: EngineKey) {
        let core = self.core, id = prepared.id
        let source: any FrameSource
        do throws(Resampler.SetupError) {
            let shape = SoundCache.StreamShape(
                sampleRate: engine.format.sampleRate, channelCount: engine.format.channelCount, speakers: engine.format.speakers)
            source = try core.cache.frames(of: prepared.sound, on: shape)
        } catch {
            // Say where the other rate comes from: the stream's, which another sound may have set.
            end(id, .failed(.playback(.source("\(error.description) (\(engine.format.sampleRate) Hz is the rate the device's stream is open at)"))))
            markIdleIfUnused(key)
            return
        }
        do {
            let voice = try engine.play(source, volume: prepared.volume, critical: prepared.isCritical,
                                        paused: sounds[id]?.paused == true) { outcome in
                core.post(.voiceEnded(id, outcome))  // on the engine's worker: queued, nothing more
            }
            sounds[id]?.voice = voice
            // The first sound after idle, and those that follow it before the stream takes a frame.
            let resumed = ResumedStream(engine: engine, framesWritten: engine.framesWritten)
            if case .open(_, .idle)? = devices[key] {
                sounds[id]?.resumed = resumed
                devices[key] = .open(engine, .started(core.configuration.deviceDeadlines))
            } else if startedOnTheSameUntouchedStream(resumed) {
                sounds[id]?.resumed = resumed
            }
        } catch .everySlotFading {
            parked[key] = capped(parked[key, default: []] + [prepared])
        } catch {
            end(id, .failed(.playback(error)))
            markIdleIfUnused(key)
        }
    }

    /// Whether a sound already waits on `resumed`'s stream, which has taken nothing since it started.
    private func startedOnTheSameUntouchedStream(_ resumed: ResumedStream) -> Bool {
        for sound in sounds.values {
            guard let other = sound.resumed else { continue }
            if other.engine === resumed.engine && other.framesWritten == resumed.framesWritten { return true }
        }
        return false
    }

    /// Starts the sounds parked for `key` (those not cancelled meanwhile), oldest first, while
    /// the stream takes them.
    private func startParked(_ key: EngineKey) {
        guard let waiting = parked.removeValue(forKey: key) else { return }
        guard case .open(let engine, _)? = devices[key] else {
            // The stream is being opened again (its device failed): they wait for the new one.
            if case .opening(let attempt, let deadline, let others)? = devices[key] {
                devices[key] = .opening(attempt: attempt, deadline: deadline, waiting: capped(waiting + others))
            } else if case .closing(let others)? = devices[key] {
                devices[key] = .closing(waiting: capped(others + waiting))
            } else {
                fail(waiting, .playback(.closed))
            }
            return
        }
        for (index, prepared) in waiting.enumerated() where sounds[prepared.id] != nil {
            start(prepared, on: engine, key)
            if parked[key] != nil {  // parked again: the ones after it wait too, in order
                parked[key]! += waiting[(index + 1)...]
                return
            }
        }
    }

    /// The backend the device is opened with: the host's, or the table's for the backend chosen
    /// (the host's, else the user's policy, which a reload may change). Kept, so that an open's
    /// deadline asks the same backend which of the table's it is trying.
    private var deviceBackend: PCMBackend {
        if let own = core.configuration.pcmBackend { return own }
        let choice = core.configuration.backend ?? core.policy.backend
        if let table = tableBackend, table.choice == choice { return table.backend }
        let backend = PCMBackend.choosing(choice, from: PCMBackend.standardTable())
        tableBackend = (choice, backend)
        return backend
    }
    private var tableBackend: (choice: AudioBackend?, backend: PCMBackend)?

    /// Opens the device for `key` on a thread of its own: a device that blocks on open (a FIFO
    /// nobody reads, a hung sound server) holds that thread, not this one; `handleDeadlines`
    /// gives up on it after the open deadline, and the thread closes what it opened too late.
    /// The stream asks for the first sound's rate (within `Output.streamRates`), so that sound
    /// plays unconverted wherever the device can; a device that cannot (a `hw:` device's one
    /// rate) gives its nearest, and every sound is converted to that.
    private func open(_ key: EngineKey, for first: Prepared) {
        guard stuckThreads == 0 else {
            fail(capped((parked.removeValue(forKey: key) ?? []) + [first]), .deviceUnresponsive(device: core.configuration.device))
            return
        }
        attempts += 1
        let attempt = attempts
        let waiting = capped((parked.removeValue(forKey: key) ?? []) + [first])  // a burst's parked sounds first
        devices[key] = .opening(attempt: attempt, deadline: monotonicNanoseconds() + UInt64(core.configuration.deviceDeadlines.open) * 1_000_000_000, waiting: waiting)
        let core = self.core, device = core.configuration.device, output = core.configuration.output
        let backend = deviceBackend
        let firstRate = Int(first.sound.sampleRate.rounded())
        let rate = output.streamRates.map { min(max(firstRate, $0.lowerBound), $0.upperBound) } ?? firstRate
        let request = PCMRequest(
            sampleRate: rate, channelCount: output.streamChannels ?? first.sound.channelCount,
            formats: output.formats, periodMicroseconds: output.periodMicroseconds, periodsPerBuffer: output.periodsPerBuffer,
            acceptsNearestRate: true, properties: core.configuration.streamProperties,
            // A daemon's stream at the server's own rate: each sound is converted once, here.
            prefersServerRate: output.streamRates != nil)
        let aroundOpen = core.configuration.aroundDeviceOpen
        let started = JoinableThread.detached {
            func openEngine() -> Result<PlaybackEngine, DeviceError> {
                Result { () throws(DeviceError) in
                    try PlaybackEngine(
                        backend: backend, device: device, request: request,
                        voiceCapacity: output.voiceCapacity, rampMilliseconds: output.rampMilliseconds)
                }
            }
            var opened: Result<PlaybackEngine, DeviceError>?
            aroundOpen { opened = openEngine() }
            let result = opened ?? openEngine()
            if !core.post(.deviceOpened(key, attempt: attempt, result)), case .success(let engine) = result { engine.close() }
        }
        if !started {
            devices[key] = nil
            fail(waiting, .playback(.cannotStartThread))
        }
    }

    private func deviceOpened(_ key: EngineKey, attempt: Int, _ result: Result<PlaybackEngine, DeviceError>) {
        guard case .opening(attempt, _, let waiting)? = devices[key] else {
            // Given up on (past its deadline): nobody waits for it any more, and its thread is free.
            if case .success(let engine) = result { engine.close() }
            stuckThreads -= 1
            return
        }
        switch result {
        case .success(let engine):
            devices[key] = .open(engine, .started(core.configuration.deviceDeadlines))
            for prepared in waiting where sounds[prepared.id] != nil { start(prepared, on: engine, key) }
            markIdleIfUnused(key)
        case .failure(let error):
            devices[key] = nil
            fail(waiting, .device(error))
        }
    }

    /// `waiting` without the sounds cancelled meanwhile and, past `waitingLimit`, without those
    /// that give way by the voice policy's rule (reported `replaced`): the oldest non-critical,
    /// else the oldest.
    private func capped(_ waiting: [Prepared]) -> [Prepared] {
        var kept = waiting.filter { sounds[$0.id] != nil }
        while kept.count > Self.waitingLimit {
            let victim = kept.firstIndex { !$0.isCritical } ?? 0  // in arrival order: the first is the oldest
            let dropped = kept.remove(at: victim)
            end(dropped.id, .replaced)
        }
        return kept
    }

    private func fail(_ waiting: [Prepared], _ error: NotificationSoundError) {
        for prepared in waiting { end(prepared.id, .failed(error)) }  // unless cancelled meanwhile
    }

    private func cancel(_ id: PlaybackID) {
        guard let sound = sounds[id] else { return }  // ended, or never was
        if let (engine, voice) = playing(id) {
            engine.stop(voice)  // reported when the fade has ended
        } else if sound.voice == nil {
            end(id, .cancelled)  // still waiting for its device
        }
    }

    /// Quiet turned on: the non-critical sounds playing fade out, and those still waiting for a
    /// device end at once, each reported silenced with the reason.
    private func silenceNonCritical() {
        guard let reason = core.policy.quietReason(override: core.quiet) else { return }
        for (id, sound) in sounds where !sound.isCritical {
            if let (engine, voice) = playing(id) {
                sounds[id]?.silencedBecause = reason
                engine.stop(voice)  // reported when the fade has ended
            } else if sound.voice == nil {
                end(id, .silenced(reason))
            }
        }
    }

    private func playing(_ id: PlaybackID) -> (PlaybackEngine, VoiceID)? {
        guard let sound = sounds[id], let voice = sound.voice, case .open(let engine, _)? = devices[sound.key] else { return nil }
        return (engine, voice)
    }

    /// Reports how a sound ended, with what it gathered on the way, and forgets it.
    private func end(_ id: PlaybackID, _ result: PlaybackResult) {
        guard let sound = sounds.removeValue(forKey: id) else { return }
        var stream: StreamFigures?
        if sound.voice != nil, case .open(let engine, _)? = devices[sound.key] { stream = engine.figures }
        core.finish(id, result, warnings: sound.warnings, file: sound.file, stream: stream, sound: sound.shape)
    }

    private func markIdleIfUnused(_ key: EngineKey) {
        guard case .open(let engine, .playing)? = devices[key], !sounds.values.contains(where: { $0.key == key }) else { return }
        devices[key] = .open(engine, .idle(since: monotonicNanoseconds()))
    }

    // MARK: Deadlines

    /// The next moment something is due: a device that must have opened, or an idle one to
    /// close. nil: nothing is due, and the thread sleeps until a command comes.
    private var nextDeadline: UInt64? {
        let idleTimeout = UInt64(core.configuration.idleTimeout * 1e9)
        let ringEnd = sounds.values.lazy.filter { !$0.rangItsCap }.compactMap(\.ringEnds).min()
        return ([ringEnd] + devices.values.map { device -> UInt64? in
            switch device {
            case .opening(_, let deadline, _): deadline
            case .open(_, .idle(let since)): since + idleTimeout
            case .open(_, .playing): monotonicNanoseconds() + UInt64(Self.progressLook * 1e9)  // the stall watch
            case .closing: nil  // its thread posts when it has closed
            }
        }).compactMap { $0 }.min()
    }

    private func handleDeadlines(now: UInt64) {
        endRingtonesPastTheirCap(now: now)
        let idleTimeout = UInt64(core.configuration.idleTimeout * 1e9)
        for (key, device) in devices {
            switch device {
            case .opening(_, let deadline, let waiting) where now >= deadline:
                devices[key] = nil
                stuckThreads += 1  // its opener: until it returns (`deviceOpened`)
                fail(waiting, .deviceTimeout(device: core.configuration.device, backend: deviceBackend.trying(core.configuration.device),
                                             seconds: core.configuration.deviceDeadlines.open))
            case .open(let engine, .idle(let since)) where now >= since + idleTimeout:
                devices[key] = nil
                engine.close()
            case .open(let engine, .playing(let watch)):
                watchProgress(of: engine, key, watch, now: now)
            default:
                break
            }
        }
    }

    /// A ringtone nobody cancelled stops once it has rung `SoundLimits.ringCap` (a call that was
    /// never answered nor closed must not ring for ever): it fades out and reports `finished`.
    private func endRingtonesPastTheirCap(now: UInt64) {
        for (id, sound) in sounds where !sound.rangItsCap {
            guard let ends = sound.ringEnds, ends <= now else { continue }
            sounds[id]?.rangItsCap = true
            if let (engine, voice) = playing(id) {
                engine.stop(voice)  // reported when the fade has ended
            } else if sound.voice == nil {
                end(id, .finished)  // still waiting for its device
            }
        }
    }

    /// A device that takes no sound for `DeviceDeadlines.stall` while sounds play on it (a sound
    /// server that hangs, a device another program holds) fails those sounds and is let go
    /// (``StallWatch`` judges: a slow device is not a stall).
    private func watchProgress(of engine: PlaybackEngine, _ key: EngineKey, _ watch: StallWatch, now: UInt64) {
        var watch = watch
        guard watch.isStalled(framesWritten: engine.framesWritten, now: now) else {
            devices[key] = .open(engine, .playing(watch))
            return
        }
        devices[key] = nil
        parked[key] = nil
        for (id, sound) in sounds where sound.key == key {
            end(id, .failed(.deviceStalled(device: core.configuration.device, backend: engine.format.backend,
                                           seconds: core.configuration.deviceDeadlines.stall)))
        }
        // Its render thread may be stuck in a write that never returns: close it where that
        // cannot hold up this thread; until it has, the device is not tried again.
        stuckThreads += 1
        let core = self.core
        let closing = JoinableThread.detached {
            engine.close()
            core.post(.deviceReleased)
        }
        if !closing {  // no thread to spare: here, then
            engine.close()
            stuckThreads -= 1
        }
    }

    // MARK: Draining

    /// Once a drain is asked for and no sound plays or waits: every open device plays its last
    /// frame and closes, each on a thread of its own (a device that takes no sound holds that
    /// thread, not this one); the last to close answers the drain. A device still opening (for
    /// sounds cancelled meanwhile) has nothing to drain: it is left to open (a slow open is not a
    /// stuck one), and closes after the idle timeout like any other.
    func drainIfIdle() {
        guard !drainRequests.isEmpty, sounds.isEmpty else { return }
        for (key, device) in devices {
            switch device {
            case .open(let engine, _):
                devices[key] = .closing(waiting: [])
                draining += 1
                let core = self.core
                let started = JoinableThread.detached {
                    engine.finish()
                    core.post(.deviceDrained(key, engine.figures))
                }
                if !started {  // no thread to spare: here, then
                    engine.finish()
                    draining -= 1
                    drainedFigures.append(engine.figures)
                    devices[key] = nil
                }
            case .opening, .closing:
                break
            }
        }
        guard draining == 0 else { return }
        let requests = drainRequests, figures = drainedFigures
        drainRequests = []
        drainedFigures = []
        core.callbacks?.enqueue { for request in requests { request(figures) } }
    }

    /// The player closed: every device closes (their sounds' reports are no longer wanted).
    private func closeDevices() {
        for case .open(let engine, _) in devices.values { engine.close() }
        devices = [:]
        sounds = [:]
        parked = [:]
    }
}
