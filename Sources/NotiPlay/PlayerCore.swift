import NotiPlayDecoder
import NotiPlayOutput

/// What a `play` asks for, resolved later on the control thread.
enum PlayRequest: Sendable {
    case sound(NotificationSound, suppressSound: Bool, gain: Float)
    case notification(NotificationRequest)
}

/// Who hears how a `play` ended.
enum Completion: Sendable {
    case callback(@Sendable (PlaybackReport) -> Void)
    /// An `async` play: resumed directly (no caller code runs), also by `close()`.
    case continuation(CheckedContinuation<PlaybackReport?, Never>)
}

/// Work for the control thread, in the order it arrived.
enum PlayerCommand: Sendable {
    case play(PlaybackID, PlayRequest)
    case cancel(PlaybackID)
    case pause(PlaybackID, Bool)
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
final class PlayerCore: @unchecked Sendable {  // Every var is guarded by `condition`.
    let configuration: NotificationSoundPlayer.Configuration
    let policy: SoundPolicy
    /// nil when its thread could not be started; the core is then closed from the start.
    let callbacks: CallbackQueue?
    let cache: SoundCache
    private let condition = Condition()
    private var commands: [PlayerCommand] = []
    private var completions: [PlaybackID: Completion] = [:]
    private var closed = false
    /// Set by the control thread once it has closed every device, on its way out.
    private var devicesClosed = false
    private var quietOverride: Bool?
    private var nextID = 0

    init(configuration: NotificationSoundPlayer.Configuration, policy: SoundPolicy) {
        self.configuration = configuration
        self.policy = policy
        cache = SoundCache(limit: configuration.cacheLimit)
        callbacks = CallbackQueue()
        closed = callbacks == nil
    }

    /// A new id, and the request queued for the control thread. Returns nil once closed.
    func submit(_ request: PlayRequest, _ completion: Completion) -> PlaybackID? {
        condition.withLock {
            guard !closed else { return nil }
            nextID += 1
            let id = PlaybackID(rawValue: nextID)
            completions[id] = completion
            commands.append(.play(id, request))
            condition.broadcast()
            return id
        }
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

    var quiet: Bool? {
        get { condition.withLock { quietOverride } }
        set { condition.withLock { quietOverride = newValue } }
    }

    var isClosed: Bool { condition.withLock { closed } }

    /// Reports how `id` ended, once: its callback is queued, or its awaiting Task resumed.
    func finish(_ id: PlaybackID, _ result: PlaybackResult, warnings: [String] = [], file: String? = nil, stream: StreamFigures? = nil,
                sound: (sampleRate: Int, channelCount: Int)? = nil) {
        guard let completion = condition.withLock({ completions.removeValue(forKey: id) }) else { return }
        let report = PlaybackReport(id: id, result: result, warnings: warnings, file: file, stream: stream,
                                    soundSampleRate: sound?.sampleRate, soundChannelCount: sound?.channelCount)
        switch completion {
        case .callback(let callback): callbacks?.enqueue { callback(report) }
        case .continuation(let continuation): continuation.resume(returning: report)
        }
    }

    /// The control thread's wait: the commands that arrived, or none when `deadline` (monotonic
    /// nanoseconds) passed first; nil once closed. Without a deadline it sleeps until there is work.
    func nextCommands(deadline: UInt64?) -> [PlayerCommand]? {
        condition.withLock {
            while commands.isEmpty && !closed {
                if let deadline {
                    if !condition.wait(until: deadline) { break }
                } else {
                    condition.wait()
                }
            }
            if closed { return nil }
            defer { commands = [] }
            return commands
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
        let waiting = condition.withLock { () -> [PlaybackID: Completion] in
            closed = true
            commands = []
            condition.broadcast()
            defer { completions = [:] }
            return completions
        }
        for (id, completion) in waiting {
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
