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
        abstract: "Play a sound: what `noti-play FILE ...` does.",
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

    @Option(help: ArgumentHelp("Where to play: default, an ALSA device (hw:0, plughw:…, a PCM of asound.conf), or a sound server's sink (pipewire:NAME, pulse:NAME).", valueName: "device"))
    var device = "default"

    @Option(help: ArgumentHelp("The sound system for the default device: pipewire, pulse, alsa, or auto (the desktop's sound server natively, else ALSA; noti-play.conf's backend = by default). pulse is PulseAudio itself only: on PipeWire's PulseAudio service (pipewire-pulse), which cannot take back what it queued, it fails; use pipewire or auto there.", valueName: "backend"))
    var backend: BackendOption?

    @Flag(help: "List the playback devices of every sound system (ALSA's, the servers' sinks) and exit.")
    var listDevices = false

    @Flag(help: "Report the sound's format and any conversion, the negotiated format, period and buffer, underruns and timings on stderr.")
    var verbose = false

    @Option(help: "Force the device sample format (FLOAT, S32 or S16) instead of the best it takes.")
    var sampleFormat: DeviceSampleFormat?

    // Two policies, each measured through PulseAudio beside aplay (scripts/measure/playback.py,
    // scripts/measure/pulse-study). Through ALSA, 20 ms × 3: a SIGINT must end the sound, faded, within
    // 100 ms, and the fade is heard only after what the buffer holds (the pulse plugin's
    // snd_pcm_rewind claims success but takes nothing back), so the buffer stays small: 20 ms × 3
    // stops in 55–65 ms, 30 ms × 3 in 70–97; a 10 s sound costs 80–100 ms of CPU (210 at 5 ms × 4).
    // On a PulseAudio server reached directly the queue can be taken back, so it holds 500 ms in
    // 125 ms requests, as aplay's does: a stop is heard within its fade all the same.
    @Option(parsing: .unconditional, help: "Period length in milliseconds, 1 to 1000 (the device may round it; default 20 through ALSA; on a PulseAudio server reached directly, 125 into a queue of 500 the server may shorten): longer costs less CPU; through ALSA a stop is heard after the whole buffer.")
    var periodMs: Double?

    @Option(parsing: .unconditional, help: "Periods in the device buffer, 2 to 64 (the device may ask for more; default 3): more survive load, fewer stop sooner.")
    var periods: Int?

    @Flag(name: .customLong("through-alsa"), help: "The same as --backend alsa: through ALSA's plugin for the server, as other programs play.")
    var throughALSA = false

    /// The policies above; the PulseAudio one only where neither --period-ms nor --periods is given.
    static let alsaPeriodMilliseconds = 20.0, alsaPeriods = 3
    static let serverQueueMicroseconds = 500_000, serverRequestMicroseconds = 125_000

    @Option(parsing: .unconditional, help: ArgumentHelp("Fade length in milliseconds when SIGINT or SIGTERM stops the sound.", visibility: .hidden))
    var rampMs: Double = 5

    func validate() throws {
        guard volume.isFinite, (0...1).contains(volume) else {
            throw ValidationError("--volume must be a number from 0.0 to 1.0 (got \(volume))")
        }
        if let periodMs, !(periodMs.isFinite && periodMs >= 1 && periodMs <= 1000) { throw ValidationError("--period-ms must be from 1 to 1000") }
        if let periods, !(2...64).contains(periods) { throw ValidationError("--periods must be from 2 to 64") }
        guard rampMs.isFinite, rampMs >= 0.1, rampMs <= 1000 else { throw ValidationError("--ramp-ms must be from 0.1 to 1000") }
        if let seconds, !(seconds.isFinite && seconds > 0 && seconds <= Self.longestRingtone) {
            throw ValidationError("--for must be a number of seconds above 0 and at most \(Int(Self.longestRingtone))")
        }
        if seconds != nil && !ringtone { throw ValidationError("--for goes with --ringtone") }
        if let backend, backend.value == nil {
            // Checked here, not by ArgumentParser, whose message echoes the value raw (an ESC in it
            // would reach the terminal).
            throw ValidationError("--backend must be pipewire, pulse, alsa or auto (got '\(PrintableText.escaped(backend.text, atMost: 80))')")
        }
        if let appID, let problem = SoundLocator.appIDProblem(appID) {
            throw ValidationError("--app-id '\(PrintableText.escaped(appID))' cannot be used: \(problem)")
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
            let (devices, unanswered) = PCMBackend.devices(of: PCMBackend.standardTable())
            // A server that is there but did not answer: its sinks are missing, and the user is told.
            for error in unanswered { Output.standardError("noti-play: warning: its devices are not listed: \(error.description)") }
            let lines = devices.map { PrintableText.escaped($0.name).padding(toLength: 24) + PrintableText.escaped($0.description) }
            try Output.standardOutput(lines.map { $0 + "\n" }.joined())
            return
        }
        StreamRole.announceEvent()
        // The first thing: block SIGINT and SIGTERM before any thread exists (so every thread
        // inherits the mask) and watch them on one thread. Until the sound is asked for there is
        // nothing to fade, so a signal ends the process at once, whatever it is reading.
        let signals = SignalWatcher.blockTerminationSignals()
        let asked = Mutex<(player: NotificationSoundPlayer, id: PlaybackID)?>(nil)
        let wake = SignalWatcher.Event()  // the sound ended, the device drained, or a signal
        let watcher = SignalWatcher(signals) { signal in
            guard let (player, id) = asked.withLock({ $0 }) else { _exit(128 + signal) }
            player.cancel(id)
            wake.post()
        }
        func interrupted() -> Bool { watcher.receivedAt.load(ordering: .relaxed) != 0 }
        func exitInterrupted() -> ExitCode { ExitCode(128 + (watcher.stop() ?? SIGTERM)) }

        // When the device opened (its opener's thread says): a ringtone's --for counts from then,
        // not while a slow device opens.
        let deviceOpened = Atomic<UInt64>(0)
        let player = makePlayer(file: file) {
            deviceOpened.store(monotonicNanoseconds(), ordering: .releasing)
            wake.post()
        }
        let sound = notificationSound(file: file)
        let ended = Mutex<PlaybackReport?>(nil)
        let id: PlaybackID
        do {
            id = try player.play(sound, gain: volume) { report in
                ended.withLock { $0 = report }
                wake.post()
            }
        } catch {
            Output.standardError("noti-play: \(error.description)")
            throw ExitCode.failure
        }
        asked.withLock { $0 = (player, id) }
        // A ringtone with --for: fade it out when its time is up, counted from the device's
        // open; that is a normal end.
        let ringFor = seconds.map { seconds in { () -> Bool in
            let opened = deviceOpened.load(ordering: .acquiring)
            guard opened != 0 else { return false }
            SignalWatcher.after(seconds: max(0, seconds - Double(monotonicNanoseconds() &- opened) / 1e9)) { player.cancel(id) }
            return true
        } }
        let report = try waitForReport(ended, wake: wake, armRingtoneTimer: ringFor, interrupted: interrupted, exitInterrupted: exitInterrupted)
        report.warnings.forEach { Output.standardError("noti-play: warning: " + $0.text) }
        switch report.result {
        case .silenced(let reason):
            Output.standardError("noti-play: not playing \(sound): \(reason)")
            return
        case .failed(let error):
            Output.standardError("noti-play: " + Self.message(error, file: report.file, played: report.stream != nil))
            throw ExitCode.failure
        default:
            break
        }

        let stream = try waitForDrain(player, playedOn: report.stream, wake: wake, watcher: watcher,
                                      interrupted: interrupted, exitInterrupted: exitInterrupted)
        let finished = monotonicNanoseconds()
        let interruption = watcher.stop()

        if verbose, let stream {
            Self.report(stream, of: report, launched: launched, finished: finished, signalled: watcher.receivedAt.load(ordering: .relaxed))
        }
        if let failure = stream?.deviceFailure {
            Output.standardError("noti-play: \(failure.description)")
            throw ExitCode.failure
        }
        switch report.result {
        case .finished where interruption == nil:
            return
        case .cancelled where interruption == nil && seconds != nil:
            return  // the ringtone's time was up
        default:
            throw ExitCode(128 + (interruption ?? SIGTERM))
        }
    }

    /// The library's player, as a daemon has it: the lookup, the user's policy, the device's
    /// deadlines and the stall watch are the same code. One sound, so one voice, a stream in the
    /// sound's own rate and channels (bit-exact), nothing cached, and periods for a command
    /// (see --period-ms): on a PulseAudio server reached directly a deep queue, which a stop
    /// takes back (one sound, so no second sound waits behind it). The configuration's warnings
    /// are printed here, before anything plays.
    private func makePlayer(file: String?, deviceOpened: @escaping @Sendable () -> Void) -> NotificationSoundPlayer {
        let (policy, warnings) = SoundPolicy.load()
        warnings.forEach { Output.standardError("noti-play: warning: " + $0) }
        var configuration = NotificationSoundPlayer.Configuration(
            appFolders: soundsDirs, appID: appID, device: device, policy: policy, cacheLimit: 0,
            output: .init(periodMicroseconds: Int((periodMs ?? Self.alsaPeriodMilliseconds) * 1000), periodsPerBuffer: periods ?? Self.alsaPeriods,
                          formats: sampleFormat.map { [$0] } ?? DeviceSampleFormat.allCases,
                          rampMilliseconds: rampMs, voiceCapacity: 1, streamChannels: nil, streamRates: nil))
        let ownPolicy = periodMs == nil && periods == nil
        let table = PCMBackend.standardTable(
            serverQueue: ownPolicy ? ServerQueue(microseconds: Self.serverQueueMicroseconds, requestMicroseconds: Self.serverRequestMicroseconds) : nil)
        let chosen: AudioBackend? = throughALSA ? .alsa : backend?.value.map { $0.backend } ?? policy.backend
        configuration.pcmBackend = .choosing(chosen, from: table)
        configuration.streamProperties.mediaName = file.map { String($0.split(separator: "/").last ?? Substring($0)) }
            ?? named ?? soundName
        // A device's libraries (libjack) may print to stderr: only our one line is shown.
        let verbose = self.verbose
        configuration.aroundDeviceOpen = { open in
            if verbose { open() } else { Output.quietingLibraries(open) }
            deviceOpened()
        }
        return NotificationSoundPlayer(configuration: configuration)
    }

    /// Waits for the sound's report. The player ends every sound: a device that does not open
    /// within `DeviceDeadlines.open`, or takes no sound for `DeviceDeadlines.stall`, fails it.
    /// After a signal it waits a second for the fade at most: a device that cannot even take
    /// that is let go. `armRingtoneTimer` is tried at each wake until it says it is armed (once
    /// the device has opened).
    private func waitForReport(
        _ ended: borrowing Mutex<PlaybackReport?>, wake: SignalWatcher.Event, armRingtoneTimer: (() -> Bool)?,
        interrupted: () -> Bool, exitInterrupted: () -> ExitCode
    ) throws -> PlaybackReport {
        let look = 0.25
        var signalledLooks = 0
        var timerArmed = armRingtoneTimer == nil
        while true {
            if let report = ended.withLock({ $0 }) { return report }
            if !timerArmed, let arm = armRingtoneTimer { timerArmed = arm() }
            if wake.wait(seconds: look) { continue }
            if interrupted() {
                signalledLooks += 1
                if Double(signalledLooks) * look >= 1 && ended.withLock({ $0 == nil }) { throw exitInterrupted() }
            }
        }
    }

    /// Lets the player drain: returns once the tail has been heard, with the stream's final
    /// figures. A device that stops taking sound would keep it: the wait is the buffer and the
    /// stall rule's 5 s, or after a signal the buffer and a second (what the signal wait allows).
    private func waitForDrain(
        _ player: NotificationSoundPlayer, playedOn played: StreamFigures?, wake: SignalWatcher.Event, watcher: SignalWatcher,
        interrupted: () -> Bool, exitInterrupted: () -> ExitCode
    ) throws -> StreamFigures? {
        let drained = Mutex<[StreamFigures]?>(nil)
        player.drain { figures in
            drained.withLock { $0 = figures }
            wake.post()
        }
        let bufferSeconds = played.map { Double($0.format.bufferFrames) / Double($0.format.sampleRate) } ?? 0
        let drainStarted = monotonicNanoseconds()
        while drained.withLock({ $0 == nil }) {
            let signalledAt = watcher.receivedAt.load(ordering: .relaxed)
            let (since, limit) = signalledAt != 0
                ? (signalledAt, bufferSeconds + 1) : (drainStarted, bufferSeconds + Double(DeviceDeadlines.stall))
            let left = limit - Double(monotonicNanoseconds() &- since) / 1e9
            if left <= 0 {
                if interrupted() { throw exitInterrupted() }
                let reason = "its last \((bufferSeconds * 1000).fixed(0)) ms never played"
                Output.standardError("noti-play: " + (played.map { DeviceError.stalled(device: device, backend: $0.format.backend, reason: reason).description }
                    ?? "audio device '\(PrintableText.escaped(device, atMost: DeviceError.nameShown))': stopped taking sound: \(reason)"))
                throw ExitCode.failure
            }
            _ = wake.wait(seconds: left)
        }
        return drained.withLock { $0 }?.first ?? played
    }

    /// The one line for a sound that could not play. A device that would not open gets a hint;
    /// one that failed while playing does not (the choice of device was right).
    private static func message(_ error: NotificationSoundError, file: String?, played: Bool) -> String {
        // A device of one server, a backend of another (AudioBackend.refusal): the backend is
        // what to change.
        if case .device(let error) = error, error.code == -ENODEV, let server = AudioBackend.server(namedBy: error.device), server != error.backend {
            return "\(error.description): use --backend \(server.rawValue) or --backend auto"
        }
        return switch error {
        case .device(let error) where error.backend == .pulse && error.code == -EPROTONOSUPPORT:
            // --backend pulse on PipeWire's PulseAudio service, refused by design (it cannot take
            // back a queue, so a stop would be heard late): the backends that play it.
            "\(error.description): use --backend pipewire or --backend auto"
        case .device(let error) where !played:
            "\(error.description) (see --list-devices; choose one with --device)"
        case .playback(let error):
            file.map { "\($0): \(error.description)" } ?? error.description
        default:
            error.description
        }
    }

    /// The device's format, and its speakers in the device's channel order where it names them.
    private static func deviceLine(_ f: NegotiatedFormat) -> String {
        let speakers = f.speakers.map { " " + $0.map(\.shortName).joined(separator: " ") } ?? ""
        return "device:      \(f.device): \(f.sampleFormat.rawValue), \(f.sampleRate) Hz, \(f.channelCount) channel(s)" + speakers
    }

    private static func report(_ stream: StreamFigures, of sound: PlaybackReport, launched: UInt64, finished: UInt64, signalled: UInt64) {
        let f = stream.format
        let ms = { (frames: Int) in (Double(frames) * 1000 / Double(f.sampleRate)).fixed(1) }
        var lines: [String] = []
        if let rate = sound.soundSampleRate, let channels = sound.soundChannelCount {
            // The device may refuse the sound's rate or channels: then it was converted to the stream's.
            var changes: [String] = []
            if rate != f.sampleRate { changes.append("resampled to \(f.sampleRate) Hz") }
            if channels != f.channelCount { changes.append("mapped onto \(f.channelCount) channel(s)") }
            lines.append((["sound:       \(rate) Hz, \(channels) channel(s)"] + changes).joined(separator: ", "))
        }
        lines += [
            // The speakers in the device's channel order, where its channel map names them.
            deviceLine(f),
            "route:       \(f.route)",
            "period:      \(f.periodFrames) frames (\(ms(f.periodFrames)) ms); buffer \(f.bufferFrames) frames (\(ms(f.bufferFrames)) ms)",
            "scheduling:  \(stream.isRealtime ? "SCHED_FIFO" : "normal (SCHED_FIFO was refused)")",
            "underruns:   \(stream.underruns) device, \(stream.starvedWaits) waits for the decoder",
        ]
        if let first = stream.firstWriteNanoseconds {
            lines.append("start:       first period written \((Double(first - launched) / 1e6).fixed(2)) ms after start-up")
        }
        // When the command was done: a ringtone, --for or a signal make it differ from the sound's length.
        lines.append("done:        \((Double(finished - launched) / 1e9).fixed(3)) s after start-up")
        if signalled > 0, let last = stream.lastWriteNanoseconds {
            let ms = { (t: UInt64) in ((Double(t) - Double(signalled)) / 1e6).fixed(1) }
            // A signal during the drain comes after the last write: nothing was left to fade.
            lines.append(last >= signalled
                ? "stopped:     fade written \(ms(last)) ms after the signal; device drained at \(ms(finished)) ms"
                : "stopped:     the whole sound was written \(((Double(signalled) - Double(last)) / 1e6).fixed(1)) ms before the signal; device drained at \(ms(finished)) ms")
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

/// `--backend`'s values: a backend, or auto.
enum BackendChoice: String, CaseIterable {
    case pipewire, pulse, alsa, auto

    var backend: AudioBackend? { AudioBackend(rawValue: rawValue) }
}

/// `--backend` as typed: any text parses, and `validate()` refuses what is not a
/// `BackendChoice` with a message of its own, escaped (ArgumentParser's echoes the value raw).
struct BackendOption: ExpressibleByArgument {
    var text: String
    var value: BackendChoice? { BackendChoice(rawValue: text) }

    init(argument: String) { text = argument }

    // As for an enum: help's "(values: ...)" and the shells' completions.
    static var allValueStrings: [String] { BackendChoice.allCases.map(\.rawValue) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
