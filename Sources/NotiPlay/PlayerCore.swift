import NotiPlayDecoder
import NotiPlayOutput

/// What a `play` asks for, resolved later on the control thread.
enum PlayRequest: Sendable {
    case sound(NotificationSound, suppressSound: Bool, gain: Float)
    case notification(NotificationRequest)

    /// Whether it asks for a critical sound (taken before every other command).
    var isCritical: Bool {
        switch self {
        case .sound(let sound, _, _): sound.isCritical
        case .notification(let request): request.urgency == .critical
        }
    }
}

/// Who hears how a `play` ended.
enum Completion: Sendable {
    case callback(@Sendable (PlaybackReport) -> Void)
    /// An `async` play: resumed directly (no caller code runs), also by `close()`.
    case continuation(CheckedContinuation<PlaybackReport?, Never>)
}

/// Work for the control thread, in the order it arrived.
enum PlayerCommand: Sendable {
    /// `askedAt`: when `play` was called (monotonic nanoseconds): a ringtone's cap counts from it.
    case play(PlaybackID, PlayRequest, askedAt: UInt64)
    /// The host cancelled, paused or resumed the sound: what it asked waits in
    /// ``PlayerCore/takeControl(_:)``.
    case control(PlaybackID)
    /// The host's quiet switch changed: non-critical sounds playing or waiting now end if it is on.
    case quietChanged
    /// The host's latest settings (``PlayerCore/takePendingSettings()``): the policy is made
    /// anew from them (reading noti-play.conf here, on the control thread), and do-not-disturb
    /// turned on ends what plays.
    case configure
    case voiceEnded(PlaybackID, VoiceOutcome)
    case deviceOpened(EngineKey, attempt: Int, Result<PlaybackEngine, DeviceError>)
    /// A stalled stream's close returned: its threads are free.
    case deviceReleased
    /// Close the devices once nothing plays, each after its last frame has played.
    case drain(@Sendable ([StreamFigures]) -> Void)
    /// A drained device closed, with its final figures.
    case deviceDrained(EngineKey, StreamFigures)
}

/// One stream per device: every sound the player plays on it is converted to the stream's rate
/// and mixed there, so a critical sound fades all of them and the voice limit is the device's.
struct EngineKey: Hashable, Sendable {
    var device: String
}

/// The state the caller's threads and noti-play's threads share: the command queue, who is
/// waiting for which id, and the switches. A caller's thread only takes this lock for a moment
/// (queueing a command), and nobody holds it while doing work.
///
/// The queue is bounded, and a critical sound never waits behind others: critical `play`s have
/// a queue of their own, which the control thread empties before taking any other command, and
/// each kind holds at most `queueLimit` requests; one more is refused at once (`busy`) on the
/// caller's thread, with nothing queued. (Issue 23: 0.5 s of `noti_play_default` in a loop
/// queued 473k requests, 176 MB, and a critical sound asked next was answered 7.2 s later.)
/// So are the ids not yet answered: a request answered at once (silenced at the call) or soon
/// (a name not found) waits for nothing but the callback thread, and a host whose callback is
/// slow or blocked would otherwise queue answers without end.
final class PlayerCore: @unchecked Sendable {  // Every var is guarded by `condition`.
    let configuration: NotificationSoundPlayer.Configuration
    /// The user's settings with the host's over them (``PlayerSettings``): read by the control
    /// thread at each lookup, replaced by `configure`.
    var policy: SoundPolicy {
        get { condition.withLock { currentPolicy } }
        set { condition.withLock { currentPolicy = newValue } }
    }
    /// The request rules' limits now (the ring cap is the control thread's to apply).
    var limits: SoundLimits {
        get { condition.withLock { rules.limits } }
        set { condition.withLock { rules.limits = newValue } }
    }
    /// nil when its thread could not be started; the core is then closed from the start.
    let callbacks: CallbackQueue?
    let cache: SoundCache
    /// Requests of one kind (critical, or not) that may wait for the control thread: far more
    /// than a desktop's burst of notifications (a stream plays 16 and lets 32 wait; the rest
    /// give way), few enough that they cost little (under 1 kB each) and are looked up within
    /// milliseconds. Past it a host that floods the player learns so on its own thread, and
    /// nothing grows.
    static let queueLimit = 256
    /// Ids of one kind (critical, or not) accepted and not yet answered: waiting, playing, or
    /// their callback waiting for the callback thread. Waiting and playing sounds are far fewer
    /// (at most `queueLimit` waiting, and a stream's voices and slots), so past this the answers
    /// queued are the excess: a callback that is slow or blocked. At a few hundred bytes an
    /// answer, both kinds hold under 2 MB.
    static let unansweredLimit = 1024
    private let condition = Condition()
    /// Every command but the critical plays, in the order it came.
    private var commands = FIFO<PlayerCommand>()
    /// The non-critical plays among `commands`.
    private var queuedPlays = 0
    private var criticalPlays = FIFO<PlayerCommand>()
    private var completions: [PlaybackID: (completion: Completion, critical: Bool)] = [:]
    /// The ids in `completions`, plus those whose callback waits for the callback thread,
    /// [non-critical, critical].
    private var unanswered = [0, 0]
    private var closed = false
    /// Set by the control thread once it has closed every device, on its way out.
    private var devicesClosed = false
    private var quietOverride: Bool?
    /// A `.quietChanged` waits in `commands`: a host switching quiet in a loop queues one.
    private var quietChangeWaiting = false
    /// What the host asked of each sound since the control thread last looked, with one
    /// `.control` command waiting for each: repeating a cancel or a pause queues nothing more.
    private var controls: [PlaybackID: SoundControl] = [:]
    /// The ringtone each notification (``NotificationRequest/notificationID``) rings, from the
    /// call that asked for it until it is answered or cancelled (at most the ids unanswered).
    private var rings: [UInt32: PlaybackID] = [:]
    private var currentPolicy: SoundPolicy
    /// The latest settings a host gave, until the control thread makes its policy from them.
    private var pendingSettings: PlayerSettings?
    private var nextID = 0
    /// Decided under the lock at each call, so that the rate is judged in the order, and at the
    /// time, the notifications were asked for (a few comparisons: no call waits for them).
    private var rules: RequestRules

    init(configuration: NotificationSoundPlayer.Configuration, policy: SoundPolicy) {
        self.configuration = configuration
        currentPolicy = policy
        cache = SoundCache(limit: configuration.cacheLimit)
        rules = RequestRules(limits: configuration.limits)
        callbacks = CallbackQueue()
        closed = callbacks == nil
    }

    /// A new id, and the request queued for the control thread; `.closed` once closed, `.busy`
    /// when `queueLimit` requests of its kind are waiting already, `.unanswered` when
    /// `unansweredLimit` of its kind are not answered yet (then nothing is queued).
    /// A notification the request rules silence is not queued: it is answered `silenced` at
    /// once, and the reason returned.
    func submit(_ request: PlayRequest, _ completion: Completion) throws(NotificationSoundError) -> (id: PlaybackID, silenced: String?) {
        let submitted = try condition.withLock { () throws(NotificationSoundError) -> (id: PlaybackID, silenced: String?) in
            guard !closed else { throw .closed }
            let critical = request.isCritical
            let waiting = critical ? criticalPlays.count : queuedPlays
            guard waiting < Self.queueLimit else { throw .busy(waiting: waiting, critical: critical) }
            let kind = critical ? 1 : 0
            guard unanswered[kind] < Self.unansweredLimit else { throw .unanswered(waiting: unanswered[kind], critical: critical) }
            unanswered[kind] += 1
            nextID += 1
            let id = PlaybackID(rawValue: nextID)
            completions[id] = (completion, critical)
            let askedAt = monotonicNanoseconds()
            if case .notification(let notification) = request {
                if let reason = ringRule(notification, id) ?? rules.silenceReason(for: notification, at: Double(askedAt) / 1e9) {
                    return (id, reason)
                }
                if notification.asksForRingtone, let key = notification.notificationID { rings[key] = id }
            }
            if critical {
                criticalPlays.append(.play(id, request, askedAt: askedAt))
            } else {
                commands.append(.play(id, request, askedAt: askedAt))
                queuedPlays += 1
            }
            condition.broadcast()
            return (id, nil)
        }
        if let reason = submitted.silenced { finish(submitted.id, .silenced(reason)) }
        return submitted
    }

    /// The host's settings (``NotificationSoundPlayer/configure(_:)``): the limits at once, for
    /// the next request; the policy on the control thread, which reads noti-play.conf.
    /// Only the latest settings wait (a host calling it in a loop queues nothing more), and
    /// ahead of the critical plays asked after it, which are looked up before other commands.
    func apply(_ settings: PlayerSettings) {
        condition.withLock {
            guard !closed else { return }
            rules.limits = settings.applied(to: configuration.limits)
            let waiting = pendingSettings != nil
            pendingSettings = settings
            if !waiting {
                criticalPlays.append(.configure)
                condition.broadcast()
            }
        }
    }

    /// A notification rings once, until it asks for something else: a ringtone asked again (an
    /// update of a call still ringing) is silenced and the ring goes on unbroken; any other
    /// sound or none (the call answered, ended, or its ringer silenced with suppress-sound, a
    /// call category and all) ends the ring, which reports `cancelled`.
    /// Called under the lock; the reason when `notification` is silenced.
    private func ringRule(_ notification: NotificationRequest, _ id: PlaybackID) -> String? {
        guard let key = notification.notificationID, let ring = rings[key] else { return nil }
        if notification.asksForRingtone {
            return "its notification's ringtone rings on (sound \(ring.rawValue))"
        }
        rings[key] = nil
        queueControl(ring) { $0.cancel = true }
        return nil
    }

    /// The settings `apply` left for the control thread, taken once.
    func takePendingSettings() -> PlayerSettings? {
        condition.withLock {
            defer { pendingSettings = nil }
            return pendingSettings
        }
    }

    /// What a host asked of one sound: a cancel wins over a pause or resume, the latest of which wins.
    struct SoundControl {
        var cancel = false
        var paused: Bool?
    }

    /// Asks the control thread to cancel, pause or resume `id`. Nothing is queued for an id
    /// answered already (its sound has ended), and at most one command for each sound waits, so
    /// however often a host repeats these calls, what waits is bounded by the sounds not yet
    /// answered.
    func control(_ id: PlaybackID, _ change: (inout SoundControl) -> Void) {
        condition.withLock { queueControl(id, change) }
    }

    private func queueControl(_ id: PlaybackID, _ change: (inout SoundControl) -> Void) {
        guard !closed, completions[id] != nil else { return }
        let waiting = controls[id] != nil
        change(&controls[id, default: SoundControl()])
        if controls[id]?.cancel == true { forgetRing(id) }  // a call asked for again rings again
        if !waiting {
            commands.append(.control(id))
            condition.broadcast()
        }
    }

    /// `id` rings for no notification any more (cancelled, or ended).
    private func forgetRing(_ id: PlaybackID) {
        if !rings.isEmpty, let key = rings.first(where: { $0.value == id })?.key { rings[key] = nil }
    }

    /// What the host asked of `id` since the last look, taken once.
    func takeControl(_ id: PlaybackID) -> SoundControl? {
        condition.withLock { controls.removeValue(forKey: id) }
    }

    /// Sets the host's quiet switch; the control thread then ends what it silences. A
    /// `.quietChanged` already waiting reads the latest switch, so none more is queued.
    func setQuiet(_ quiet: Bool?) {
        condition.withLock {
            quietOverride = quiet
            guard !closed, !quietChangeWaiting else { return }
            quietChangeWaiting = true
            commands.append(.quietChanged)
            condition.broadcast()
        }
    }

    /// The control thread took the `.quietChanged`: a later switch queues another.
    func quietChangeTaken() {
        condition.withLock { quietChangeWaiting = false }
    }

    /// Queues a command; false once closed (then it is dropped).
    @discardableResult
    func post(_ command: PlayerCommand) -> Bool {
        condition.withLock {
            guard !closed else { return false }
            commands.append(command)
            condition.broadcast()
            return true
        }
    }

    var quiet: Bool? { condition.withLock { quietOverride } }

    var isClosed: Bool { condition.withLock { closed } }

    /// Reports how `id` ended, once: its callback is queued, or its awaiting Task resumed.
    func finish(_ id: PlaybackID, _ result: PlaybackResult, warnings: [PlaybackWarning] = [], file: String? = nil, stream: StreamFigures? = nil,
                sound: (sampleRate: Int, channelCount: Int)? = nil) {
        guard let (completion, critical) = condition.withLock({ () -> (Completion, Bool)? in
            guard let waiting = completions.removeValue(forKey: id) else { return nil }
            forgetRing(id)
            if case .continuation = waiting.completion { unanswered[waiting.critical ? 1 : 0] -= 1 }
            return waiting
        }) else { return }
        let report = PlaybackReport(id: id, result: result, warnings: warnings, file: file, stream: stream,
                                    soundSampleRate: sound?.sampleRate, soundChannelCount: sound?.channelCount)
        switch completion {
        case .callback(let callback):
            // Answered once the callback thread takes it: not under the queue's lock, which the
            // callback thread does not hold while it runs callbacks, so the locks never nest.
            callbacks?.enqueue { [self] in
                condition.withLock { unanswered[critical ? 1 : 0] -= 1 }
                callback(report)
            }
        case .continuation(let continuation): continuation.resume(returning: report)
        }
    }

    /// What the control thread's wait ends with.
    enum Next {
        /// The next command: a critical play before any other. `more`: others are waiting.
        case command(PlayerCommand, more: Bool)
        case deadlinePassed
        case closed
    }

    /// The control thread's wait, one command at a time (so that a critical play that comes
    /// while it works through others is the next it takes), or until `deadline` (monotonic
    /// nanoseconds). Without a deadline it sleeps until there is work.
    func nextCommand(deadline: UInt64?) -> Next {
        condition.withLock {
            while commands.isEmpty && criticalPlays.isEmpty && !closed {
                if let deadline {
                    if !condition.wait(until: deadline) { break }
                } else {
                    condition.wait()
                }
            }
            if closed { return .closed }
            if let critical = criticalPlays.popFirst() {
                return .command(critical, more: !(criticalPlays.isEmpty && commands.isEmpty))
            }
            guard let command = commands.popFirst() else { return .deadlinePassed }
            if case .play = command { queuedPlays -= 1 }
            return .command(command, more: !commands.isEmpty)
        }
    }

    /// How long `close` waits for the devices to close: a well-behaved device closes in a period
    /// or two (so a host that exits right after leaves nothing half-written), a hung one is left
    /// to close in the background.
    static let closeWait: UInt64 = 100_000_000

    /// The control thread's last word: every device it had is closed.
    func controlEnded() {
        condition.withLock {
            devicesClosed = true
            condition.broadcast()
        }
    }

    /// Stops taking requests; awaiting Tasks resume `.cancelled`, queued callbacks are dropped,
    /// and once it returns no callback runs. The control thread closes the devices on its way
    /// out; this waits for that, at most `closeWait`.
    func close() {
        let waiting = condition.withLock { () -> [PlaybackID: (completion: Completion, critical: Bool)] in
            closed = true
            commands = FIFO()
            criticalPlays = FIFO()
            queuedPlays = 0
            condition.broadcast()
            defer { completions = [:] }
            return completions
        }
        for (id, (completion, _)) in waiting {
            if case .continuation(let continuation) = completion {
                continuation.resume(returning: PlaybackReport(id: id, result: .cancelled))
            }
        }
        callbacks?.close()
        let deadline = monotonicNanoseconds() + Self.closeWait
        condition.withLock {
            while !devicesClosed && condition.wait(until: deadline) {}
        }
    }
}

/// A first-in, first-out list that takes from its front without shifting the rest.
struct FIFO<Element> {
    private var elements: [Element?] = []
    private var head = 0

    var isEmpty: Bool { head == elements.count }
    var count: Int { elements.count - head }

    mutating func append(_ element: Element) { elements.append(element) }

    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        defer {
            elements[head] = nil  // let go of it now, not at the next compaction
            head += 1
            if head == elements.count {
                elements.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && 2 * head >= elements.count {
                elements.removeFirst(head)
                head = 0
            }
        }
        return elements[head]
    }
}
