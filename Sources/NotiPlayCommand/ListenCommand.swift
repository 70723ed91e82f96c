import ArgumentParser
import NotiPlay
import NotiPlayListen
#if canImport(Glibc)
import Glibc
#endif

/// `noti-play listen`: the sound of every desktop notification, for desktops whose notification
/// server plays none (mako, dunst, swaync, KDE…). Meant to run as the user service
/// `noti-play-listen.service`.
struct ListenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Play the sound of every desktop notification on the session bus.",
        discussion: """
            Hears each Notify call on the session bus and plays what its hints ask for: \
            suppress-sound, sound-file, sound-name, category, urgency (2 is a critical sound that \
            passes do-not-disturb), desktop-entry; a call (category call or call.incoming, or the \
            hint x-noti-play-ringtone) rings until its notification is closed or 30 s pass. It stays \
            quiet when the notification server plays sounds itself (its capabilities list "sound"), \
            while dunst is paused or swaync's do-not-disturb is on (critical sounds still play), and \
            during noti-play.conf's do-not-disturb and quiet hours. SIGHUP re-reads noti-play.conf; SIGTERM and \
            SIGINT end it (status 0); without a session bus at start it exits 1. An update of an open notification (replaces_id) plays nothing unless it names its own sound, is critical or is a call. \
            Log lines of each kind (failed sounds, malformed calls, server changes) come 5 at once, then \
            one a second, the others counted ("and N more") in the next line or a second after they \
            stop; --verbose's lines are all shown. A stderr that nobody reads never holds listen up: \
            lines it cannot take are dropped, and a line says how many once it takes them again.
            """
    )

    @Flag(help: "Play even when the notification server says it plays sounds itself.")
    var always = false

    // .unconditional: `--interval -1` reaches validate() and its message (see PlayOptions).
    @Option(parsing: .unconditional, help: ArgumentHelp("One sound per app in this many seconds (critical sounds always play; 0: no rate limit).", valueName: "seconds"))
    var interval: Double = 1

    @Option(name: .customLong("burst-limit"), parsing: .unconditional, help: ArgumentHelp("At most this many sounds of all apps together per interval.", valueName: "count"))
    var burstLimit = 3

    @Option(help: "The ALSA device to play on.")
    var device = "default"

    @Option(help: ArgumentHelp("A D-Bus address to listen on instead of the session bus.", valueName: "address"))
    var address: String?

    @Flag(help: "Log every notification's decision and every sound's outcome, not only failures.")
    var verbose = false

    func validate() throws {
        guard interval.isFinite, (0...3600).contains(interval) else { throw ValidationError("--interval must be from 0 to 3600 seconds") }
        let most = SoundLimits.mostSoundsPerInterval
        guard (1...most).contains(burstLimit) else { throw ValidationError("--burst-limit must be from 1 to \(most)") }
        if address?.isEmpty == true { throw ValidationError("--address must name a D-Bus address, such as unix:path=/run/user/1000/bus") }
    }

    func run() throws {
        StreamRole.announceEvent()
        // Before the player starts its threads, so that only the listener's loop receives them.
        let signals = SignalWatcher.blockTerminationSignals()
        var configuration = NotificationListener.Configuration()
        configuration.always = always
        configuration.limits.interval = interval
        configuration.limits.burstLimit = burstLimit
        configuration.device = device
        configuration.address = address
        configuration.verbose = verbose
        // Lines go through a queue and a thread of their own: a stderr nobody reads must not keep
        // the listener from its signals. (Without a thread to spare, they are written directly.)
        let write: @Sendable (String) -> Void = { Output.standardError("noti-play listen: " + $0) }
        let queue = StandardErrorQueue(write: write)
        let log: @Sendable (String) -> Void = if let queue { { queue.append($0) } } else { write }
        // What is still queued is written before listen exits, unless stderr stays blocked.
        defer { queue?.finish(within: 1) }
        do {
            let listener = NotificationListener(configuration: configuration, log: log)
            _ = try listener.run(signals: signals)
        } catch {
            log("\(error)")
            throw ExitCode.failure
        }
    }
}
