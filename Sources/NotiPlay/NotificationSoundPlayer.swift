import CSystemSupport
import NotiPlayDecoder
import NotiPlayOutput
import Synchronization

/// Plays notification sounds for a daemon: safe from any thread, and no call blocks.
///
/// ```swift
/// let player = NotificationSoundPlayer(configuration: .init(appFolders: ["/opt/chat/sounds"]))
/// let id = try player.play(.named("ping.caf")) { report in print(report.result) }
/// player.cancel(id)                                    // fades out over 10 ms
/// let report = try await player.play(.criticalSoundNamed("alarm.caf", withAudioVolume: 0.8))
/// let hints = NotificationRequest(desktopEntry: "org.example.Chat", category: "im.received")
/// player.play(hints) { report in print(report.result) }  // what a Notify call asks for
/// ```
///
/// **Threads.** `play` checks its arguments, queues the request and returns its id; the lookup,
/// the file, the decoding and the device are handled on the player's own control thread, and a
/// device that does not open within 5 s fails the request. Completions run one at a time on the
/// player's callback thread, which does nothing else: a slow completion delays other
/// completions, never a sound. Every id is answered exactly once, until ``close()``: after it
/// returns, no completion runs (those not yet delivered are dropped, awaiting Tasks resume with
/// `.cancelled`).
///
/// Every sound is mixed into one stream per device, at the first sound's rate (or the device's
/// nearest); sounds at other rates are converted in the decode worker. Each device stays open
/// for `idleTimeout` after its last sound, so the next starts within a period. Sounds are cached
/// by file identity (device, inode, size, modification time), decoded and converted for their
/// stream, so a sound played again is neither decoded nor converted again.
/// An idle player wakes for nothing, and a player that has played nothing yet has no thread: its
/// threads, cache and configuration file are made at its first sound. When the system has no
/// thread to give then (a limit on threads reached), that call throws
/// `.playback(.cannotStartThread)` and the next one tries again.
public final class NotificationSoundPlayer: Sendable {
    public struct Configuration: Sendable {
        public var appFolders: [String]
        public var appID: String?
        public var device: String
        /// Seconds the device stays open after the last sound.
        public var idleTimeout: Double
        /// The user's settings; by default read from the configuration file.
        public var policy: SoundPolicy?
        /// The rate of notifications' sounds and how long a ringtone rings (``SoundLimits``):
        /// by default `noti-play listen`'s, one sound per app a second, three of all apps, 30 s.
        public var limits: SoundLimits
        /// Bytes of sound kept for replay, decoded and converted; 0 streams every sound from its file.
        public var cacheLimit: Int
        /// How the device streams are set up.
        public var output: Output
        /// Runs each device open (on the opener's thread): the command points fd 2 away from
        /// libraries that print while a device opens (libjack). A library never touches a
        /// host's descriptors, so this is the command's alone. Opens may overlap (a device
        /// reopened while another opens): a hook that swaps process state must count them; the
        /// command's opens one device once.
        package var aroundDeviceOpen: @Sendable (_ open: () -> Void) -> Void = { open in open() }
        /// Where sound goes: nil (auto) tries the desktop's sound server natively (PipeWire,
        /// then PulseAudio), then ALSA, for `device` "default"; an ALSA device name is ALSA's, and
        /// `pipewire:SINK` or `pulse:SINK` names a server's sink. A backend named here wins over
        /// the user's `backend =` in noti-play.conf.
        public var backend: AudioBackend?
        /// What the sound server shows of the stream and applies its rules by (the host's name
        /// and id; the role is always a notification's).
        public var streamProperties: StreamProperties
        /// The backend table's own seam: in the lifecycle tests a scripted device; the command's
        /// table with a deep server queue. nil: the standard table for `backend`.
        package var pcmBackend: PCMBackend?
        /// How long a device may take to open and to take sound; the tests shorten them.
        package var deviceDeadlines = DeviceDeadlines.Seconds()
        /// Runs on the control thread between a sound's lookup (the 30-second rule read its
        /// header) and its play, with its path: the tests rewrite the file there, as a sender
        /// racing the rule would, or hold the control thread while requests queue.
        package var afterLookup: @Sendable (_ path: String) -> Void = { _ in }

        public init(appFolders: [String] = [], appID: String? = nil, device: String = "default",
                    idleTimeout: Double = 5, policy: SoundPolicy? = nil, cacheLimit: Int = 32 << 20,
                    output: Output = Output(), backend: AudioBackend? = nil,
                    streamProperties: StreamProperties = StreamProperties(), limits: SoundLimits = SoundLimits()) {
            self.limits = limits
            self.backend = backend
            self.streamProperties = streamProperties
            self.appFolders = appFolders
            self.appID = appID
            self.device = device
            self.idleTimeout = idleTimeout
            self.policy = policy
            self.cacheLimit = cacheLimit
            self.output = output
        }
    }

    /// The device streams' shape. The defaults suit a daemon: 10 ms periods, so a sound starts
    /// and stops within a few; the command plays one sound with longer periods, which cost less CPU.
    public struct Output: Sendable {
        /// Period length: the render thread wakes once per period.
        public var periodMicroseconds: Int
        /// Periods in the device buffer: more survive load, fewer stop sooner.
        public var periodsPerBuffer: Int
        /// Sample formats to ask the device for, in order of preference.
        public var formats: [DeviceSampleFormat]
        /// Length of a full-scale fade (a cancel, a preemption, a volume change), in milliseconds.
        public var rampMilliseconds: Double
        /// Sounds that may play at once on one stream (see the voice policy).
        public var voiceCapacity: Int
        /// Channels of the device's stream, onto which every sound is mapped: stereo by default;
        /// nil opens it with the first sound's channels (a sound played by itself, as it is).
        public var streamChannels: Int?
        /// The rates the stream may open at: the first sound's rate, raised or lowered into this
        /// range (then the device's nearest, if it cannot play that); sounds at other rates are
        /// converted in the decode worker. The range keeps an 8 kHz beep from holding every later
        /// sound to 4 kHz of bandwidth while the stream stays open, and an odd rate from putting
        /// the stream beyond conversion's reach. nil: the first sound's own rate (a sound played
        /// by itself, bit-exact).
        public var streamRates: ClosedRange<Int>?

        public init(periodMicroseconds: Int = 10_000, periodsPerBuffer: Int = 3,
                    formats: [DeviceSampleFormat] = DeviceSampleFormat.allCases, rampMilliseconds: Double = 10,
                    voiceCapacity: Int = 16, streamChannels: Int? = 2, streamRates: ClosedRange<Int>? = 44_100...192_000) {
            self.periodMicroseconds = periodMicroseconds
            self.periodsPerBuffer = periodsPerBuffer
            self.formats = formats
            self.rampMilliseconds = rampMilliseconds
            self.voiceCapacity = voiceCapacity
            self.streamChannels = streamChannels
            self.streamRates = streamRates
        }

        /// These settings within what a device and the engine can take, and what was changed.
        /// Out-of-range values from a host are clamped, not trapped on: a player never ends its
        /// host's process for a setting.
        func clamped() -> (Output, [String]) {
            var output = self, changes: [String] = []
            func clamp<T: Comparable>(_ value: inout T, _ range: ClosedRange<T>, _ name: String) {
                let limited = min(max(value, range.lowerBound), range.upperBound)
                if limited != value { changes.append("output.\(name) \(value) is outside \(range.lowerBound)...\(range.upperBound): \(limited) is used") }
                value = limited
            }
            clamp(&output.periodMicroseconds, 1_000...1_000_000, "periodMicroseconds")
            clamp(&output.periodsPerBuffer, 2...64, "periodsPerBuffer")
            clamp(&output.voiceCapacity, 1...64, "voiceCapacity")
            if !output.rampMilliseconds.isFinite { output.rampMilliseconds = 10; changes.append("output.rampMilliseconds is not finite: 10 is used") }
            clamp(&output.rampMilliseconds, 0.1...1000, "rampMilliseconds")
            if var channels = output.streamChannels {
                clamp(&channels, 1...StreamDescription.maximumChannelCount, "streamChannels")
                output.streamChannels = channels
            }
            let rates = 1...Int(StreamDescription.maximumSampleRate)
            if let range = output.streamRates, !(rates.contains(range.lowerBound) && rates.contains(range.upperBound)) {
                output.streamRates = Output().streamRates
                changes.append("output.streamRates \(range) is outside \(rates): the default is used")
            }
            if output.formats.isEmpty {
                output.formats = DeviceSampleFormat.allCases
                changes.append("output.formats is empty: every format is tried")
            }
            return (output, changes)
        }
    }

    /// Makes the configuration, at the first call that needs it.
    private let makeConfiguration: @Sendable () -> Configuration
    /// The configuration, the configuration file's policy, the threads and the cache, made at
    /// the first call that needs them (a play, a drain), not at init: a daemon that makes its
    /// player at start pays for them once a sound is asked for (issue 24: in dunst the player
    /// cost 5.7 MB at start, before any notification).
    private let state = Mutex(State())

    private struct State {
        var core: PlayerCore?
        var closed = false
        /// `setQuiet` before the core was made.
        var quiet: Bool??
        /// `configure` before the core was made.
        var settings: PlayerSettings?
        var setup: Setup?

        mutating func setUp(_ make: () -> Configuration) -> Setup {
            if let setup { return setup }
            let made = Setup(make())
            setup = made
            return made
        }
    }

    /// The configuration checked. No file is read here: a play call does no I/O, so the user's
    /// noti-play.conf is read on the player's control thread as it starts.
    private struct Setup {
        let configuration: Configuration
        let warnings: [String]

        init(_ configuration: Configuration) {
            var configuration = configuration
            if !(configuration.idleTimeout.isFinite && configuration.idleTimeout >= 0) { configuration.idleTimeout = 5 }
            let (output, outputWarnings) = configuration.output.clamped()
            configuration.output = output
            self.configuration = configuration
            warnings = outputWarnings + SoundLocator(appFolders: configuration.appFolders, appID: configuration.appID).warnings.map(\.text)
        }
    }

    /// What the cache holds and saved, for the tests.
    package var cacheFigures: SoundCacheFigures { startedCore?.cache.figures ?? SoundCacheFigures() }
    /// Warnings from the configuration file and from the configured app folders, for the daemon
    /// to log. Asking reads the configuration file.
    public var configurationWarnings: [String] {
        let setup = state.withLock { $0.setUp(makeConfiguration) }
        return (setup.configuration.policy == nil ? SoundPolicy.load().warnings : []) + setup.warnings
            + (isStarted ? [] : ["no thread could be started for the player (the system's limit on threads was reached): nothing will play"])
    }

    public convenience init(configuration: Configuration = Configuration()) {
        self.init(makingConfiguration: { configuration })
    }

    /// A player whose configuration `make` makes at its first sound (the C library's: building
    /// a configuration runs Swift code a host would otherwise pay for at start).
    package init(makingConfiguration make: @escaping @Sendable () -> Configuration) {
        makeConfiguration = make
        // Its threads start with the first sound; whether there are threads to be had is asked
        // now, so that a host learns it when it makes the player (noti_play_new returns NULL).
        isStarted = noti_thread_can_start() != 0
        if !isStarted { state.withLock { $0.closed = true } }
    }

    /// False when no thread could be started for the player when it was made: it is closed,
    /// and every `play` throws `.closed`. (Its threads start with its first sound; should none
    /// be had then, that play throws `.playback(.cannotStartThread)`, and the next tries again.)
    public let isStarted: Bool

    /// The player's core, or nil: before the first sound (its threads start there).
    private var startedCore: PlayerCore? { state.withLock { $0.core } }

    /// The player's core, made and its threads started at the first call that needs them.
    /// Throws `.closed` once closed, and `.playback(.cannotStartThread)` when the system gives
    /// no thread (RLIMIT_NPROC, a cgroup's pids.max): nothing is kept of that try, so that the
    /// next call tries again, as a daemon would have it once the load that held the threads is gone.
    private func core() throws(NotificationSoundError) -> PlayerCore {
        try state.withLock { (state) throws(NotificationSoundError) -> PlayerCore in
            if let core = state.core { return core }
            guard !state.closed else { throw .closed }
            let setup = state.setUp(makeConfiguration)
            let core = PlayerCore(configuration: setup.configuration, policy: setup.configuration.policy ?? SoundPolicy())
            if let quiet = state.quiet { core.setQuiet(quiet) }
            if let settings = state.settings { core.apply(settings) }
            if core.isClosed || !PlayerControl.start(core) {
                core.controlEnded()  // no control thread: no device to wait for
                core.close()  // its callback thread, if it had one, ends
                throw .playback(.cannotStartThread)
            }
            state.core = core
            return core
        }
    }

    deinit { close() }

    /// Starts a sound.
    /// - Parameters:
    ///   - sound: what to play (``NotificationSound``).
    ///   - suppressSound: the notification's `suppress-sound` hint: nothing plays (`.silenced`).
    ///   - gain: 0…1, scales a non-critical sound beyond the notification volume (a daemon's own
    ///     per-app volume); critical sounds play at exactly their own volume.
    ///   - completion: called exactly once on the player's callback thread, with the outcome and
    ///     the warnings — also for a sound that could not be found or played.
    /// - Returns: the id, for ``cancel(_:)``, ``pause(_:)`` and ``resume(_:)``.
    /// - Throws: for a request that can never play: a gain or critical volume outside 0…1, a
    ///   sound name that is not a file name, a closed player; and `.busy` for one that comes
    ///   while 256 of its kind (critical, or not) wait to be looked up (a flood: a critical
    ///   request is never refused for the others, nor waits behind them); `.unanswered` while
    ///   1024 ids of its kind are not answered yet (completions held up by one that is slow or
    ///   blocked: answers cannot pile up without end); `.playback(.cannotStartThread)` when the
    ///   system gives no thread for the player's own at its first sound (the next call tries
    ///   again). Nothing has been queued then.
    @discardableResult
    public func play(
        _ sound: NotificationSound, suppressSound: Bool = false, gain: Float = 1,
        completion: @escaping @Sendable (PlaybackReport) -> Void = { _ in }
    ) throws(NotificationSoundError) -> PlaybackID {
        try Self.validate(sound, gain: gain)
        return try submit(.sound(sound, suppressSound: suppressSound, gain: gain), .callback(completion))
    }

    /// Plays what a notification asks for (see ``NotificationRequest`` for the mapping).
    /// Whether it plays at all is decided at this call, in the order and at the time the
    /// notifications were asked for: an update without a sound of its own
    /// (``NotificationRequest/isUpdate``), a notification without sound hints when only hinted
    /// sounds play (``NotificationRequest/hintsOnly``), and past ``Configuration/limits``'s rate
    /// it reports `.silenced` with the reason. A ringtone ends after `limits.ringCap` unless
    /// cancelled before.
    /// - Parameters:
    ///   - request: the notification's app name and hints.
    ///   - completion: as for ``play(_:suppressSound:gain:completion:)``.
    @discardableResult
    public func play(
        _ request: NotificationRequest, completion: @escaping @Sendable (PlaybackReport) -> Void = { _ in }
    ) throws(NotificationSoundError) -> PlaybackID {
        try deciding(request, completion: completion).id
    }

    /// ``play(_:completion:)`` that also says, at once, whether the request rules silenced it
    /// (the completion hears it too): for `listen`'s log, which says what plays as it happens.
    package func deciding(
        _ request: NotificationRequest, completion: @escaping @Sendable (PlaybackReport) -> Void
    ) throws(NotificationSoundError) -> (id: PlaybackID, silenced: String?) {
        try Self.validate(request.sound, gain: request.volume, names: false)
        return try core().submit(.notification(request), .callback(completion))
    }

    /// Plays a sound and returns its report when it has ended. Cancelling the awaiting Task
    /// cancels the sound (a 10 ms fade), which then reports `.cancelled`.
    public func play(_ sound: NotificationSound, suppressSound: Bool = false, gain: Float = 1) async throws(NotificationSoundError) -> PlaybackReport {
        try Self.validate(sound, gain: gain)
        return try await awaitReport(.sound(sound, suppressSound: suppressSound, gain: gain))
    }

    /// Plays what a notification asks for and returns its report when it has ended; cancelling
    /// the awaiting Task cancels the sound.
    public func play(_ request: NotificationRequest) async throws(NotificationSoundError) -> PlaybackReport {
        try Self.validate(request.sound, gain: request.volume, names: false)
        return try await awaitReport(.notification(request))
    }

    /// Fades the sound out (10 ms) and ends it; it reports `.cancelled`. Unknown ids are ignored.
    public func cancel(_ id: PlaybackID) { startedCore?.control(id) { $0.cancel = true } }

    /// Pauses or resumes a sound where it is (a content extension's media play/pause).
    public func pause(_ id: PlaybackID) { startedCore?.control(id) { $0.paused = true } }
    public func resume(_ id: PlaybackID) { startedCore?.control(id) { $0.paused = false } }

    /// Drives the settings from the host's own configuration, at any time: each field set in
    /// `settings` wins over the user's `noti-play.conf`, each one left nil comes from it (see
    /// ``PlayerSettings``); a call replaces the settings of the one before. The rate limits
    /// apply to the requests asked after it returns; the rest to the sounds looked up after it
    /// (the file is read on the player's thread, not the caller's). Do-not-disturb turned on
    /// ends the non-critical sounds playing, as ``setQuiet(_:)`` does.
    /// - Parameter settings: what the host sets.
    /// - Throws: `.invalidSetting` for settings that can never apply (a volume outside 0…1, a
    ///   theme name that is a path, a negative interval); nothing changes then.
    public func configure(_ settings: PlayerSettings) throws(NotificationSoundError) {
        if let why = settings.problem() { throw .invalidSetting(why) }
        let core = state.withLock { state in
            if state.core == nil { state.settings = settings }  // applied when the core is made
            return state.core
        }
        core?.apply(settings)
    }

    /// Silences non-critical sounds (true), lets them play (false), or follows the policy (nil).
    /// A request is judged by the switch as it is when the request is looked up (requests are
    /// looked up in order, within milliseconds unless a flood waits); turned on, it also ends the
    /// non-critical sounds playing or waiting now (faded out within a fade's 10 ms), which
    /// report `.silenced` with the reason. Critical sounds play on.
    public func setQuiet(_ quiet: Bool?) {
        let core = state.withLock { state in
            if state.core == nil { state.quiet = .some(quiet) }
            return state.core
        }
        core?.setQuiet(quiet)
    }

    /// Stops every sound and closes the devices (on the player's thread; it waits for them at
    /// most 100 ms, so a hung device is left to close in the background). Completions not yet
    /// delivered are dropped; awaiting Tasks resume with `.cancelled`; once it returns, no
    /// completion runs (it waits only for one running at that moment, unless called from inside
    /// it). Later `play` calls throw `.closed`.
    public func close() {
        let core = state.withLock { state in
            state.closed = true
            return state.core
        }
        core?.close()
    }

    /// Lets what plays end, then closes every device once it has played its last frame, without
    /// waiting for `idleTimeout`: for a host that plays and then exits. `completion` runs on the
    /// callback thread, with each drained stream's figures; sounds asked for meanwhile play
    /// first. A device that stops taking sound delays it until the sound's stall report; one
    /// stuck in the system may never let it run, so a host bounds its own wait. After ``close()``
    /// it never runs, as no completion does.
    public func drain(completion: @escaping @Sendable ([StreamFigures]) -> Void) {
        (try? core())?.post(.drain(completion))
    }

    // MARK: Internals

    /// What can be refused without I/O. `names`: a sound or theme name the caller gave must be a
    /// file name (a notification's hints are not refused: a bad sound-name plays the default).
    private static func validate(_ sound: NotificationSound, gain: Float, names: Bool = true) throws(NotificationSoundError) {
        guard gain.isFinite, (0...1).contains(gain) else { throw .invalidVolume(gain) }
        if sound.isCritical, !(sound.criticalVolume.isFinite && (0...1).contains(sound.criticalVolume)) {
            throw .invalidVolume(sound.criticalVolume)
        }
        guard names else { return }
        switch sound.source {
        case .named(let name), .themeName(let name): try SoundName.validate(name)
        default: break
        }
    }

    private func submit(_ request: PlayRequest, _ completion: Completion) throws(NotificationSoundError) -> PlaybackID {
        try core().submit(request, completion).id
    }

    private func awaitReport(_ request: PlayRequest) async throws(NotificationSoundError) -> PlaybackReport {
        let core = try core()
        let id = Mutex<PlaybackID?>(nil)
        let refusal = Mutex<NotificationSoundError?>(nil)  // set when nothing was queued: closed, or busy
        let report = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PlaybackReport?, Never>) in
                let submitted: PlaybackID
                do throws(NotificationSoundError) {
                    submitted = try core.submit(request, .continuation(continuation)).id
                } catch {
                    refusal.withLock { $0 = error }
                    continuation.resume(returning: nil)
                    return
                }
                id.withLock { $0 = submitted }
                if Task.isCancelled { core.control(submitted) { $0.cancel = true } }  // cancelled before it was queued
            }
        } onCancel: {
            if let submitted = id.withLock({ $0 }) { core.control(submitted) { $0.cancel = true } }
        }
        guard let report else { throw refusal.withLock { $0 } ?? .closed }
        return report
    }
}
