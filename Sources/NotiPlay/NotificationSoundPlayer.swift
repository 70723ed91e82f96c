import NotiPlayDecoder
import NotiPlayOutput
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How a notification sound ended.
public enum PlaybackResult: Sendable, Equatable {
    case finished
    /// Cancelled, preempted by a critical sound, or stopped by a quiet switch.
    case cancelled
    /// Nothing played, on purpose; the reason is for people ("quiet hours").
    case silenced(String)
    case failed(String)
}

public struct PlaybackID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "playback \(rawValue)" }
}

/// Plays notification sounds for a daemon: safe from any thread, fast to start, never blocking.
///
/// ```swift
/// let player = NotificationSoundPlayer(configuration: .init(appFolders: ["/opt/chat/sounds"]))
/// let id = try player.play(.named("ping.caf")) { result in print(result) }
/// player.cancel(id)                                    // fades out over 10 ms
/// let result = try await player.play(.criticalSoundNamed("alarm.caf", withAudioVolume: 0.8))
/// ```
/// The device stays open for `idleTimeout` after the last sound so the next starts at once;
/// decoded sounds are cached by file identity (device, inode, size, modification time).
public final class NotificationSoundPlayer: Sendable {
    public struct Configuration: Sendable {
        public var appFolders: [String]
        public var appID: String?
        public var device: String
        /// Seconds the device stays open after the last sound.
        public var idleTimeout: Double
        /// The user's settings; by default read from the configuration file.
        public var policy: SoundPolicy?
        /// Bytes of decoded sound kept for replay.
        public var cacheLimit: Int

        public init(appFolders: [String] = [], appID: String? = nil, device: String = "default",
                    idleTimeout: Double = 5, policy: SoundPolicy? = nil, cacheLimit: Int = 32 << 20) {
            self.appFolders = appFolders
            self.appID = appID
            self.device = device
            self.idleTimeout = idleTimeout
            self.policy = policy
            self.cacheLimit = cacheLimit
        }
    }

    /// One open device stream; sounds of another rate or channel count get their own.
    private struct EngineKey: Hashable { var rate: Int; var channels: Int }

    private struct State: ~Copyable {
        var resolver: SoundResolver
        var engines: [EngineKey: PlaybackEngine] = [:]
        var idleSince: [EngineKey: UInt64] = [:]
        var active: [Int: (key: EngineKey, voice: VoiceID)] = [:]
        var cache: [FileIdentity: DecodedSound] = [:]
        var cacheOrder: [FileIdentity] = []
        var cacheBytes = 0
        var closed = false
    }

    private let configuration: Configuration
    private let state: Mutex<State>
    private let nextID = Atomic<Int>(0)
    private let reaperRunning = Atomic<Bool>(true)
    private let reaper = Mutex<JoinableThread?>(nil)
    /// Warnings from the configuration file and from lookups, for the daemon to log.
    public let configurationWarnings: [String]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let loaded = configuration.policy.map { ($0, [String]()) } ?? SoundPolicy.load()
        let locator = SoundLocator(appFolders: configuration.appFolders, appID: configuration.appID)
        configurationWarnings = loaded.1 + locator.warnings
        state = Mutex(State(resolver: SoundResolver(locator: locator, policy: loaded.0)))
    }

    deinit { close() }

    /// Starts a sound. `completion` is called exactly once, from a player thread, when it ends —
    /// right away with `.silenced` when policy keeps it quiet. Throws only for requests that cannot
    /// be played at all (a refused name, a missing or broken file, no device).
    /// `gain` (0…1) scales a non-critical sound beyond the notification volume (a daemon's own
    /// per-app volume); critical sounds play at exactly their own volume.
    @discardableResult
    public func play(
        _ sound: NotificationSound, suppressSound: Bool = false, gain: Float = 1,
        completion: @escaping @Sendable (PlaybackResult) -> Void = { _ in }
    ) throws(NotificationSoundError) -> PlaybackID {
        guard gain.isFinite, (0...1).contains(gain) else { throw .invalidVolume(gain) }
        let id = PlaybackID(rawValue: nextID.add(1, ordering: .relaxed).newValue)
        let resolver = state.withLock { $0.resolver }
        let resolved = try resolver.resolve(sound, suppressSound: suppressSound)
        guard case let .play(file, volume, loops, isCritical) = resolved.action else {
            // Reported from a player thread like every other end, after `play` has returned.
            if case let .silent(reason) = resolved.action { JoinableThread.detached { completion(.silenced(reason)) } }
            return id
        }
        let source = try source(for: file, loops: loops)
        let key = EngineKey(rate: Int(source.sampleRate.rounded()), channels: max(2, source.channelCount))
        do {
            let engine = try engine(for: key)
            let voice = try engine.play(source, volume: isCritical ? volume : volume * gain, critical: isCritical) { [weak self] outcome in
                self?.ended(id)
                switch outcome {
                case .finished: completion(.finished)
                case .stopped: completion(.cancelled)
                case .failed(let message): completion(.failed(message))
                }
            }
            state.withLock { $0.active[id.rawValue] = (key, voice) }
        } catch {
            throw .playback(String(describing: error))
        }
        return id
    }

    /// Plays a sound and returns when it has ended.
    public func play(_ sound: NotificationSound, suppressSound: Bool = false) async throws(NotificationSoundError) -> PlaybackResult {
        var started: Result<PlaybackID, NotificationSoundError>?
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<PlaybackResult, Never>) in
            do throws(NotificationSoundError) {
                started = .success(try play(sound, suppressSound: suppressSound) { continuation.resume(returning: $0) })
            } catch {
                started = .failure(error)
                continuation.resume(returning: .failed(error.description))
            }
        }
        if case .failure(let error) = started { throw error }
        return result
    }

    /// Fades the sound out (10 ms) and ends it; its completion reports `.cancelled`.
    public func cancel(_ id: PlaybackID) {
        withVoice(id) { engine, voice in engine.stop(voice) }
    }

    /// Pauses or resumes a sound where it is (a content extension's media play/pause).
    public func pause(_ id: PlaybackID) { withVoice(id) { $0.setPaused($1, true) } }
    public func resume(_ id: PlaybackID) { withVoice(id) { $0.setPaused($1, false) } }

    /// Silences non-critical sounds (true), lets them play (false), or follows the policy (nil).
    public func setQuiet(_ quiet: Bool?) {
        state.withLock { $0.resolver.quietOverride = quiet }
    }

    /// Stops every sound at once and closes the devices.
    public func close() {
        reaperRunning.store(false, ordering: .releasing)
        reaper.withLock { $0 }?.join()
        let engines = state.withLock { state -> [PlaybackEngine] in
            state.closed = true
            defer { state.engines = [:] }
            return Array(state.engines.values)
        }
        engines.forEach { $0.close() }
    }

    // MARK: Internals

    /// A cached decode when the file has not changed since; otherwise the file, streamed, with
    /// what is decoded kept for the cache.
    private func source(for file: SoundFile, loops: Bool) throws(NotificationSoundError) -> any FrameSource {
        let identity = file.file.identity
        if let cached = state.withLock({ $0.cache[identity] }) {
            return DecodedSoundSource(cached, loops: loops)
        }
        return try SoundSources.open(file, loops: loops) { [weak self] sound in self?.remember(sound, as: identity) }
    }

    private func remember(_ sound: DecodedSound, as identity: FileIdentity) {
        let bytes = sound.samples.count * MemoryLayout<Float>.size
        guard bytes <= configuration.cacheLimit else { return }
        state.withLock { state in
            guard state.cache[identity] == nil else { return }
            state.cache[identity] = sound
            state.cacheOrder.append(identity)
            state.cacheBytes += bytes
            while state.cacheBytes > configuration.cacheLimit, let oldest = state.cacheOrder.first {
                state.cacheOrder.removeFirst()
                state.cacheBytes -= (state.cache.removeValue(forKey: oldest)?.samples.count ?? 0) * MemoryLayout<Float>.size
            }
        }
    }

    private func engine(for key: EngineKey) throws -> PlaybackEngine {
        if let engine = state.withLock({ state -> PlaybackEngine? in
            state.idleSince[key] = nil
            return state.engines[key]
        }) { return engine }
        let engine = try PlaybackEngine(
            device: configuration.device, request: PCMRequest(sampleRate: key.rate, channelCount: key.channels))
        let kept = state.withLock { state -> PlaybackEngine in
            if let existing = state.engines[key] { return existing }
            state.engines[key] = engine
            return engine
        }
        startReaper()
        return kept
    }

    private func ended(_ id: PlaybackID) {
        state.withLock { state in
            guard let (key, _) = state.active.removeValue(forKey: id.rawValue) else { return }
            if !state.active.values.contains(where: { $0.key == key }) { state.idleSince[key] = monotonicNanoseconds() }
        }
    }

    private func withVoice(_ id: PlaybackID, _ body: (PlaybackEngine, VoiceID) -> Void) {
        let target = state.withLock { state -> (PlaybackEngine, VoiceID)? in
            guard let (key, voice) = state.active[id.rawValue], let engine = state.engines[key] else { return nil }
            return (engine, voice)
        }
        if let (engine, voice) = target { body(engine, voice) }
    }

    /// Closes devices idle for longer than the timeout; checks four times a second.
    private func startReaper() {
        reaper.withLock { thread in
            guard thread == nil else { return }
            thread = JoinableThread { [weak self] in
                while let self, self.reaperRunning.load(ordering: .acquiring) {
                    self.closeIdleEngines()
                    usleep(250_000)
                }
            }
        }
    }

    private func closeIdleEngines() {
        let limit = UInt64(configuration.idleTimeout * 1e9)
        let now = monotonicNanoseconds()
        let idle = state.withLock { state -> [PlaybackEngine] in
            let keys = state.idleSince.filter { now - $0.value > limit }.map(\.key)
            return keys.compactMap { key in
                state.idleSince[key] = nil
                return state.engines.removeValue(forKey: key)
            }
        }
        idle.forEach { $0.close() }
    }
}
