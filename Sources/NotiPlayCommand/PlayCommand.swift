import ArgumentParser
import NotiPlayDecoder
import NotiPlayOutput
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `noti-play FILE [--volume V] [--critical] [--device NAME]`: play one sound and exit when it
/// has been heard to the end. The default command.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a sound through ALSA (the default command).",
        discussion: """
            Exits 0 when the whole sound was played, 1 when the file or the device failed, and \
            130 or 143 when SIGINT or SIGTERM stopped it (with a fade of a few milliseconds).
            """
    )

    @Argument(help: "A WAV, AIFF/AIFC or CAF file.")
    var file: String?

    @Option(help: "Linear amplitude from 0.0 to 1.0, as UNNotificationSound's audio volume.")
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

    // 5 ms × 4: through PulseAudio (which keeps at least 3 periods) SIGINT ends the sound in
    // about 36 ms; 10 ms periods measured 52–58 ms, over the 50 ms the stop must take.
    @Option(help: "Period length in milliseconds: lower starts and stops sooner, higher survives load.")
    var periodMs: Double = 5

    @Option(help: "Periods in the device buffer.")
    var periods: Int = 4

    @Option(help: ArgumentHelp("Fade length in milliseconds when SIGINT or SIGTERM stops the sound.", visibility: .hidden))
    var rampMs: Double = 5

    func validate() throws {
        guard volume.isFinite, (0...1).contains(volume) else {
            throw ValidationError("--volume must be a number from 0.0 to 1.0 (got \(volume))")
        }
        guard periodMs >= 1, periodMs <= 1000 else { throw ValidationError("--period-ms must be from 1 to 1000") }
        guard (2...64).contains(periods) else { throw ValidationError("--periods must be from 2 to 64") }
        if file == nil && !listDevices {
            throw ValidationError("Name a sound file to play, or use --list-devices.")
        }
    }

    func run() throws {
        let launched = monotonicNanoseconds()
        if listDevices {
            for device in PlaybackDevices.list() { print(device.name.padding(toLength: 24) + device.description) }
            return
        }
        guard let file else { return }
        // Before any thread exists, so every thread inherits the mask and only the signal
        // thread below receives SIGINT and SIGTERM.
        let signals = SignalWatcher.blockTerminationSignals()

        let decoder: SoundDecoder
        do {
            decoder = try SoundDecoder(path: file)
        } catch {
            Output.failure(file, error.message)
            throw ExitCode.failure
        }
        let sound = decoder.description
        let request = PCMRequest(
            sampleRate: Int(sound.sampleRate.rounded()), channelCount: sound.channelCount,
            formats: sampleFormat.map { [$0] } ?? DeviceSampleFormat.allCases,
            periodMicroseconds: Int(periodMs * 1000), periodsPerBuffer: periods)
        // Every wait below has a deadline: a device that blocks (ALSA's file plugin on a FIFO
        // nobody reads, a hung sound server) must end in a line and a status, never a hang.
        // The signal watcher runs from here on, so SIGINT and SIGTERM work during those waits.
        let engineForSignals = Mutex<PlaybackEngine?>(nil)
        let wake = SignalWatcher.Semaphore()  // a device opened, the sound ended, or a signal
        let watcher = SignalWatcher(signals) {
            engineForSignals.withLock { $0 }?.stopAll()
            wake.post()
        }
        func interrupted() -> Bool { watcher.receivedAt.load(ordering: .relaxed) != 0 }
        func exitInterrupted() -> ExitCode { ExitCode(128 + (watcher.stop() ?? SIGTERM)) }

        let opening = Mutex<Result<PlaybackEngine, ALSAError>?>(nil)
        detachedThread {
            let result = Result { () throws(ALSAError) in
                try PlaybackEngine(device: device, request: request, voiceCapacity: 1, drainWhenIdle: true, rampMilliseconds: rampMs)
            }
            opening.withLock { $0 = result }
            wake.post()
        }
        let openDeadline = Deadline(seconds: Self.openTimeout)
        while opening.withLock({ $0 == nil }) && !interrupted() {
            if !wake.wait(until: openDeadline) { break }
        }
        if interrupted() { throw exitInterrupted() }
        let engine: PlaybackEngine
        switch opening.withLock({ $0 }) {
        case .success(let opened)?:
            engine = opened
        case .failure(let error)?:
            Output.standardError("noti-play: \(error.description) (see --list-devices; choose one with --device)")
            throw ExitCode.failure
        case nil:
            Output.standardError("noti-play: audio device '\(device)': did not open within \(Int(Self.openTimeout)) s (it blocks: held by another program, or its server hangs)")
            throw ExitCode.failure
        }
        engineForSignals.withLock { $0 = engine }

        let outcome = Mutex<VoiceOutcome?>(nil)
        do {
            try engine.play(decoder, volume: volume, critical: critical) { result in
                outcome.withLock { $0 = result }
                wake.post()
            }
        } catch {
            Output.failure(file, error.description)
            throw ExitCode.failure
        }
        if interrupted() { engine.stopAll() }  // a signal before the engine was known
        // The sound's length plus a margin; after a signal, the fade plus a margin.
        let playDeadline = Deadline(seconds: sound.duration + Self.stallTimeout)
        while outcome.withLock({ $0 == nil }) {
            let deadline = interrupted() ? Deadline(seconds: 1) : playDeadline
            if !wake.wait(until: deadline) && outcome.withLock({ $0 == nil }) {
                if interrupted() { throw exitInterrupted() }
                Output.standardError("noti-play: audio device '\(device)': stopped taking sound (nothing played for \(Int(Self.stallTimeout)) s past the sound's end)")
                throw ExitCode.failure
            }
        }
        // Returns once the tail has been heard; a device that stops taking sound would keep it.
        let drained = SignalWatcher.Semaphore()
        detachedThread {
            engine.finish()
            drained.post()
        }
        let bufferSeconds = Double(engine.format.bufferFrames) / Double(engine.format.sampleRate)
        if !drained.wait(until: Deadline(seconds: bufferSeconds + Self.stallTimeout)) {
            if interrupted() { throw exitInterrupted() }
            Output.standardError("noti-play: audio device '\(device)': stopped taking sound (its last \((bufferSeconds * 1000).fixed(0)) ms never played)")
            throw ExitCode.failure
        }
        let finished = monotonicNanoseconds()
        let interruption = watcher.stop()

        if verbose {
            report(engine, sound: sound, launched: launched, finished: finished,
                   signalled: watcher.receivedAt.load(ordering: .relaxed))
        }
        if let failure = engine.deviceFailure {
            Output.standardError("noti-play: \(failure.description)")
            throw ExitCode.failure
        }
        switch outcome.withLock({ $0 }) {
        case .failed(let message)?:
            Output.failure(file, message)
            throw ExitCode.failure
        case .finished? where interruption == nil:
            return
        default:
            throw ExitCode(128 + (interruption ?? SIGTERM))
        }
    }

    /// How long a device may take to open, and to take the sound beyond its own length.
    static let openTimeout = 5.0
    static let stallTimeout = 5.0

    private func report(_ engine: PlaybackEngine, sound: StreamDescription, launched: UInt64, finished: UInt64, signalled: UInt64) {
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
        lines.append("played:      \(sound.duration.fixed(3)) s of sound in \((Double(finished - launched) / 1e9).fixed(3)) s")
        if signalled > 0, let last = engine.lastWriteNanoseconds {
            let ms = { (t: UInt64) in (Double(t &- signalled) / 1e6).fixed(1) }
            lines.append("stopped:     fade written \(ms(last)) ms after the signal; device drained at \(ms(finished)) ms")
        }
        for line in lines { Output.standardError("noti-play: " + line) }
    }
}

extension DeviceSampleFormat: ExpressibleByArgument {}

/// Runs `body` on a thread of its own that nobody joins (it may block in a device for good;
/// the process ends without it).
func detachedThread(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    guard pthread_create(&thread, nil, { argument in
        Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
        return nil
    }, box) == 0 else {
        Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()  // no thread: run it here
        return
    }
    pthread_detach(thread)
}

/// A moment on CLOCK_REALTIME (what sem_timedwait takes), `seconds` from now.
struct Deadline {
    var time: timespec
    init(seconds: Double) {
        time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let nanoseconds = Int(time.tv_nsec) + Int((seconds.isFinite ? max(0, min(seconds, 1e6)) : 1e6) * 1e9)
        time.tv_sec += nanoseconds / 1_000_000_000
        time.tv_nsec = nanoseconds % 1_000_000_000
    }
}

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
