import ArgumentParser
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `noti-play play FILE ...`: what `noti-play FILE ...` does, for those who name it. Parsed
/// under `Subcommands` only, and not listed in the help, man page or completions, where it would
/// repeat the root's options.
struct PlayCommand: ParsableCommand {
    static let discussion = """
        Exits 0 when the whole sound was played, 1 when the file or the device failed, 64 for a \
        usage error, and 130, 143 or 129 when SIGINT, SIGTERM or SIGHUP stopped it (with a fade of \
        a few milliseconds). `noti-play --help` says more.
        """

    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a sound through ALSA: what `noti-play FILE ...` does.",
        discussion: discussion
    )

    @Argument(help: PlayOptions.fileHelp)
    var file: String?

    @OptionGroup var options: PlayOptions

    func run() throws { try options.play(file: file) }
}

/// `noti-play FILE [--volume V] [--critical] [--device NAME]`: play one sound and exit when it
/// has been heard to the end. The sound may also be named as a notification names it
/// (`--named`, `--sound-name`, `--default`, `--ringtone`), and the user's configuration
/// (notification volume, quiet hours, theme, default sounds) applies. These options are the root
/// command's own (so that `noti-play --help`, the man page and the completions show them) and
/// `noti-play play`'s, each with its own FILE argument.
struct PlayOptions: ParsableArguments {
    /// FILE is the commands' own argument, not one of these options: see CompletionRoot.
    static let fileHelp = ArgumentHelp("A WAV, AIFF/AIFC or CAF file (a path: for trusted callers).")

    @Option(help: ArgumentHelp("A sound file name from a notification, looked up only in the allowed folders.", valueName: "name"))
    var named: String?

    @Option(name: .customLong("sounds-dir"), help: ArgumentHelp("An app's own sound folder, searched first (repeatable).", valueName: "dir"),
            completion: .directory)
    var soundsDirs: [String] = []

    @Option(name: .customLong("app-id"), help: ArgumentHelp("The app's id: adds its folders under the XDG data folders.", valueName: "id"))
    var appID: String?

    @Option(name: .customLong("sound-name"), help: ArgumentHelp("A freedesktop sound theme name, such as message-new-instant.", valueName: "name"))
    var soundName: String?

    @Flag(name: .customLong("default"), help: "Play the default notification sound.")
    var playDefault = false

    @Flag(name: .customLong("default-critical"), help: "Play the default critical sound (implies --critical).")
    var defaultCritical = false

    @Flag(help: "Play as a ringtone: loop until SIGINT or SIGTERM, or --for. Without a sound, the default ringtone.")
    var ringtone = false

    @Option(name: .customLong("for"), parsing: .unconditional, help: ArgumentHelp("With --ringtone: stop after this many seconds.", valueName: "seconds"))
    var seconds: Double?

    // .unconditional: the next argument is the value even when it starts with "-", so that
    // `--volume -0.1` reaches validate() and its message instead of "Missing value".
    @Option(parsing: .unconditional, help: "Linear amplitude from 0.0 to 1.0, as UNNotificationSound's audio volume.")
    var volume: Float = 1.0

    @Flag(help: "Play as a critical alert: exactly at --volume, fading out any other sound.")
    var critical = false

    @Option(help: "The ALSA device to play on.")
    var device = "default"

    @Flag(help: "List ALSA's playback devices and exit.")
    var listDevices = false

    @Flag(help: "Report the negotiated format, period and buffer, underruns and timings on stderr.")
    var verbose = false

    @Option(help: "Force the device sample format (FLOAT, S32 or S16) instead of the best it takes.")
    var sampleFormat: DeviceSampleFormat?

    // 20 ms × 3, the balance of three figures measured through PulseAudio beside aplay
    // (scripts/measure-playback.py): a SIGINT must end the sound, faded, within 100 ms, and the
    // fade is heard only after what the buffer holds (the pulse plugin's snd_pcm_rewind claims
    // success but takes nothing back), so the buffer stays small: 20 ms × 3 stops in 55–65 ms,
    // 30 ms × 3 in 70–97. CPU falls with the wake-ups: a 10 s sound cost 210 ms at 5 ms × 4,
    // 80–100 ms at 20 ms × 3 (aplay with its 500 ms buffer: 19 ms). Under CPU, memory and I/O
    // load it underran about as often as aplay with its default buffer (0–1 in 5 rounds of 8 s).
    @Option(parsing: .unconditional, help: "Period length in milliseconds, 1 to 1000 (the device may round it): longer costs less CPU; a stop is heard after the whole buffer.")
    var periodMs: Double = 20

    @Option(parsing: .unconditional, help: "Periods in the device buffer, 2 to 64 (the device may ask for more): more survive load, fewer stop sooner.")
    var periods: Int = 3

    @Option(parsing: .unconditional, help: ArgumentHelp("Fade length in milliseconds when SIGINT or SIGTERM stops the sound.", visibility: .hidden))
    var rampMs: Double = 5

    func validate() throws {
        guard volume.isFinite, (0...1).contains(volume) else {
            throw ValidationError("--volume must be a number from 0.0 to 1.0 (got \(volume))")
        }
        guard periodMs.isFinite, periodMs >= 1, periodMs <= 1000 else { throw ValidationError("--period-ms must be from 1 to 1000") }
        guard (2...64).contains(periods) else { throw ValidationError("--periods must be from 2 to 64") }
        guard rampMs.isFinite, rampMs >= 0.1, rampMs <= 1000 else { throw ValidationError("--ramp-ms must be from 0.1 to 1000") }
        if let seconds, !(seconds.isFinite && seconds > 0 && seconds <= Self.longestRingtone) {
            throw ValidationError("--for must be a number of seconds above 0 and at most \(Int(Self.longestRingtone))")
        }
        if seconds != nil && !ringtone { throw ValidationError("--for goes with --ringtone") }
        if let appID, let problem = SoundLocator.appIDProblem(appID) {
            throw ValidationError("--app-id '\(appID)' cannot be used: \(problem)")
        }
    }

    /// Whether the options name one sound. Not in validate(): ArgumentParser validates the root
    /// command's options before it looks for unknown options, so `noti-play --critcal` would
    /// say "Name a sound" instead of "Unknown option '--critcal'. Did you mean '--critical'?".
    func checkOneSoundIsNamed(file: String?) throws {
        let sources = [file != nil, named != nil, soundName != nil, playDefault || defaultCritical].filter { $0 }.count
        if sources == 0 && !listDevices && !ringtone {
            throw ValidationError("Name a sound to play (a FILE, --named, --sound-name, --default or --ringtone), or use --list-devices.")
        }
        if sources > 1 { throw ValidationError("Name one sound: a FILE, --named, --sound-name or --default.") }
        if listDevices && (sources > 0 || ringtone) { throw ValidationError("--list-devices plays nothing: name no sound with it.") }
    }

    /// The longest `--for`: a day.
    static let longestRingtone = 86_400.0

    func play(file: String?) throws {
        try checkOneSoundIsNamed(file: file)
        let launched = monotonicNanoseconds()
        if listDevices {
            // Names and descriptions come from ALSA's configuration: escaped, one line each.
            let lines = PlaybackDevices.list().map { PrintableText.escaped($0.name).padding(toLength: 24) + PrintableText.escaped($0.description) }
            try Output.standardOutput(lines.map { $0 + "\n" }.joined())
            return
        }
        StreamRole.announceEvent()
        // The first thing: block SIGINT and SIGTERM before any thread exists (so every thread
        // inherits the mask) and watch them on one thread. Until a sound plays there is nothing
        // to fade, so a signal ends the process at once, whatever it is reading or waiting for.
        let signals = SignalWatcher.blockTerminationSignals()
        let engineForSignals = Mutex<PlaybackEngine?>(nil)
        let wake = SignalWatcher.Event()  // a device opened, the sound ended, or a signal
        let watcher = SignalWatcher(signals) { signal in
            guard let engine = engineForSignals.withLock({ $0 }) else { _exit(128 + signal) }
            engine.stopAll()
            wake.post()
        }
        func interrupted() -> Bool { watcher.receivedAt.load(ordering: .relaxed) != 0 }
        func exitInterrupted() -> ExitCode { ExitCode(128 + (watcher.stop() ?? SIGTERM)) }

        guard let (sound, volume, loops, isCritical) = try resolveSound(file: file) else { return }
        let decoder: any FrameSource
        do {
            decoder = try SoundSources.open(sound, loops: loops)
        } catch {
            Output.standardError("noti-play: \(error.description)")
            throw ExitCode.failure
        }

        let engine = try openDevice(for: decoder, wake: wake, interrupted: interrupted, exitInterrupted: exitInterrupted)
        engineForSignals.withLock { $0 = engine }

        let outcome = Mutex<VoiceOutcome?>(nil)
        do {
            try engine.play(decoder, volume: volume, critical: isCritical) { result in
                outcome.withLock { $0 = result }
                wake.post()
            }
        } catch {
            Output.failure(sound.path, error.description)
            throw ExitCode.failure
        }
        if interrupted() { engine.stopAll() }  // a signal before the engine was known
        if let seconds {
            // A ringtone with --for: fade it out when the time is up; that is a normal end.
            SignalWatcher.after(seconds: seconds) { engine.stopAll() }
        }
        try waitWhilePlaying(engine, wake: wake, until: { outcome.withLock { $0 != nil } },
                             interrupted: interrupted, exitInterrupted: exitInterrupted)

        // Returns once the tail has been heard; a device that stops taking sound would keep it.
        // It posts `wake`, as a signal does: a signal during the drain shortens the wait to the
        // buffer and a second (what the signal wait allows), not the stall rule's 5 s.
        let drained = Atomic<Bool>(false)
        JoinableThread.detached {
            engine.finish()
            drained.store(true, ordering: .releasing)
            wake.post()
        }
        let bufferSeconds = Double(engine.format.bufferFrames) / Double(engine.format.sampleRate)
        let drainStarted = monotonicNanoseconds()
        while !drained.load(ordering: .acquiring) {
            let signalledAt = watcher.receivedAt.load(ordering: .relaxed)
            let (since, limit) = signalledAt != 0
                ? (signalledAt, bufferSeconds + 1) : (drainStarted, bufferSeconds + Double(DeviceDeadlines.stall))
            let left = limit - Double(monotonicNanoseconds() &- since) / 1e9
            if left <= 0 {
                if interrupted() { throw exitInterrupted() }
                Output.standardError("noti-play: audio device '\(device)': stopped taking sound (its last \((bufferSeconds * 1000).fixed(0)) ms never played)")
                throw ExitCode.failure
            }
            _ = wake.wait(seconds: left)
        }
        let finished = monotonicNanoseconds()
        let interruption = watcher.stop()

        if verbose {
            report(engine, duration: decoder.duration, launched: launched, finished: finished,
                   signalled: watcher.receivedAt.load(ordering: .relaxed))
        }
        if let failure = engine.deviceFailure {
            Output.standardError("noti-play: \(failure.description)")
            throw ExitCode.failure
        }
        switch outcome.withLock({ $0 }) {
        case .failed(let error)?:
            Output.failure(sound.path, error.description)
            throw ExitCode.failure
        case .finished? where interruption == nil:
            return
        case .stopped(.cancelled)? where interruption == nil && seconds != nil:
            return  // the ringtone's time was up
        default:
            throw ExitCode(128 + (interruption ?? SIGTERM))
        }
    }

    /// The sound the options name, after the user's policy: nil when it is silenced (the reason
    /// is printed). The volume is the one to play at: critical sounds at exactly --volume,
    /// others at --volume × the notification volume.
    private func resolveSound(file: String?) throws -> (SoundFile, volume: Float, loops: Bool, isCritical: Bool)? {
        let request = notificationSound(file: file)
        let (policy, warnings) = SoundPolicy.load()
        warnings.forEach { Output.standardError("noti-play: warning: " + $0) }
        let resolver = SoundResolver(locator: SoundLocator(appFolders: soundsDirs, appID: appID), policy: policy)
        let resolved: ResolvedSound
        do {
            resolved = try resolver.resolve(request)
        } catch {
            Output.standardError("noti-play: \(error.description)")
            throw ExitCode.failure
        }
        resolved.warnings.forEach { Output.standardError("noti-play: warning: " + $0) }
        switch resolved.action {
        case let .play(file, resolvedVolume, loops, isCritical):
            return (file, isCritical ? resolvedVolume : volume * resolvedVolume, loops, isCritical)
        case let .silent(reason):
            Output.standardError("noti-play: not playing \(request): \(reason)")
            return nil
        }
    }

    /// Opens the device on a thread of its own, with a deadline: a device that blocks (ALSA's
    /// file plugin on a FIFO nobody reads, a hung sound server) ends in a line and a status.
    private func openDevice(
        for decoder: any FrameSource, wake: SignalWatcher.Event, interrupted: () -> Bool, exitInterrupted: () -> ExitCode
    ) throws -> PlaybackEngine {
        let pcmRequest = PCMRequest(
            sampleRate: Int(decoder.sampleRate.rounded()), channelCount: decoder.channelCount,
            formats: sampleFormat.map { [$0] } ?? DeviceSampleFormat.allCases,
            periodMicroseconds: Int(periodMs * 1000), periodsPerBuffer: periods)
        let opening = Mutex<Result<PlaybackEngine, ALSAError>?>(nil)
        let (device, rampMs, verbose) = (self.device, self.rampMs, self.verbose)
        JoinableThread.detached {
            let open = {
                Result { () throws(ALSAError) in
                    try PlaybackEngine(device: device, request: pcmRequest, voiceCapacity: 1, drainWhenIdle: true, rampMilliseconds: rampMs)
                }
            }
            // A device's libraries (libjack) may print to stderr: only our one line is shown.
            let result = verbose ? open() : Output.quietingLibraries(open)
            opening.withLock { $0 = result }
            wake.post()
        }
        let openStarted = monotonicNanoseconds()
        while opening.withLock({ $0 == nil }) && !interrupted() {
            let left = Double(DeviceDeadlines.open) - Double(monotonicNanoseconds() - openStarted) / 1e9
            if left <= 0 || !wake.wait(seconds: left) { break }
        }
        if interrupted() { throw exitInterrupted() }
        switch opening.withLock({ $0 }) {
        case .success(let opened)?:
            return opened
        case .failure(let error)?:
            Output.standardError("noti-play: \(error.description) (see --list-devices; choose one with --device)")
            throw ExitCode.failure
        case nil:
            Output.standardError("noti-play: " + NotificationSoundError.deviceTimeout(device: device, seconds: DeviceDeadlines.open).description)
            throw ExitCode.failure
        }
    }

    /// Waits for the sound to end. A device that takes no sound for `DeviceDeadlines.stall`
    /// ends the wait with a line and status 1 (``StallWatch`` judges, over many looks: a slow
    /// device, a busy machine, or the process being stopped and continued is not a stall).
    private func waitWhilePlaying(
        _ engine: PlaybackEngine, wake: SignalWatcher.Event, until ended: () -> Bool,
        interrupted: () -> Bool, exitInterrupted: () -> ExitCode
    ) throws {
        let look = 0.25
        var watch = StallWatch(lookEvery: look)
        var signalledLooks = 0
        while !ended() {
            if wake.wait(seconds: look) { continue }
            if interrupted() {
                // The fade takes milliseconds; a device that cannot even take that is let go.
                signalledLooks += 1
                if Double(signalledLooks) * look >= 1 && !ended() { throw exitInterrupted() }
                continue
            }
            if watch.isStalled(framesWritten: engine.framesWritten, now: monotonicNanoseconds()) {
                Output.standardError("noti-play: " + NotificationSoundError.deviceStalled(device: device, seconds: DeviceDeadlines.stall).description)
                throw ExitCode.failure
            }
        }
    }

    private func report(_ engine: PlaybackEngine, duration: Double?, launched: UInt64, finished: UInt64, signalled: UInt64) {
        let f = engine.format
        let ms = { (frames: Int) in (Double(frames) * 1000 / Double(f.sampleRate)).fixed(1) }
        var lines = [
            "device:      \(f.device): \(f.sampleFormat.rawValue), \(f.sampleRate) Hz, \(f.channelCount) channel(s)",
            "period:      \(f.periodFrames) frames (\(ms(f.periodFrames)) ms); buffer \(f.bufferFrames) frames (\(ms(f.bufferFrames)) ms)",
            "scheduling:  \(engine.isRealtime ? "SCHED_FIFO" : "normal (SCHED_FIFO was refused)")",
            "underruns:   \(engine.underruns) device, \(engine.starvedWaits) waits for the decoder",
        ]
        if let first = engine.firstWriteNanoseconds {
            lines.append("start:       first period written \((Double(first - launched) / 1e6).fixed(2)) ms after start-up")
        }
        // The file's length and when the command was done: a ringtone, --for or a signal makes
        // what was heard differ from the length.
        lines.append("sound:       \(duration.map { "\($0.fixed(3)) s long" } ?? "of unknown length"); done \((Double(finished - launched) / 1e9).fixed(3)) s after start-up")
        if signalled > 0, let last = engine.lastWriteNanoseconds {
            let ms = { (t: UInt64) in (Double(t &- signalled) / 1e6).fixed(1) }
            lines.append("stopped:     fade written \(ms(last)) ms after the signal; device drained at \(ms(finished)) ms")
        }
        for line in lines { Output.standardError("noti-play: " + line) }
    }
}

extension PlayOptions {
    /// The sound the options name, as a notification would.
    func notificationSound(file: String?) -> NotificationSound {
        var sound: NotificationSound
        if let file { sound = .file(bytes: RawArguments.bytes(of: file)) }
        else if let named { sound = .named(named) }
        else if let soundName { sound = .themeSound(soundName) }
        else { sound = .default }
        sound.isCritical = critical || defaultCritical
        sound.isRingtone = ringtone
        sound.criticalVolume = volume
        return sound
    }
}

extension DeviceSampleFormat: ExpressibleByArgument {}

/// What the desktop's sound server is told about the stream, so that its rules for alert sounds
/// (the event/alert volume, ducking, a role's device) apply: PulseAudio's `media.role=event` and
/// an application id, through libpulse's `PULSE_PROP_*` variables, which ALSA's pulse plugin
/// passes to the stream. Set before any thread exists (setenv is not thread-safe), and only
/// where the user has not set them.
enum StreamRole {
    static func announceEvent() {
        setenv("PULSE_PROP_media.role", "event", 0)
        setenv("PULSE_PROP_application.id", "noti-play", 0)
    }
}
