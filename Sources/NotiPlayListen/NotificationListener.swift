import CNotificationBus
import NotiPlay
import NotiPlayDecoder
import NotiPlayOutput
#if canImport(Glibc)
import Glibc
#endif

/// `noti-play listen`: hears every notification on the session bus and plays the sound it asks
/// for, with `UNNotificationSound`'s semantics (``NotificationRequest`` maps the hints), for
/// desktops whose notification server plays none.
///
/// ```swift
/// var signals = sigset_t()   // SIGTERM, SIGINT, SIGHUP, blocked in every thread beforehand
/// let listener = NotificationListener(configuration: .init()) { line in print(line) }
/// let signal = try listener.run(signals: signals)   // until SIGTERM or SIGINT
/// ```
///
/// One thread does everything but the sound: it waits in `poll` on the bus, the signals and the
/// log's next summary, so an idle listener never wakes. The sound is the player's, on its
/// own threads; a notification starts it without waiting for anything.
public final class NotificationListener {
    public struct Configuration: Sendable {
        /// Play even when the notification server lists the `sound` capability.
        public var always = false
        /// The rate of sounds (one per app per `interval`, `burstLimit` of all apps; critical
        /// sounds always play) and the ringtones' cap: the player's rules, as for any daemon.
        public var limits = SoundLimits()
        /// The ALSA device.
        public var device = "default"
        /// The bus to monitor; nil: the session bus (`DBUS_SESSION_BUS_ADDRESS`).
        public var address: String?
        /// Log each notification's decision and each sound's outcome, not only failures.
        public var verbose = false

        public init() {}
    }

    private let configuration: Configuration
    private let log: ListenLog
    private var rules: ListenRules
    private var ringtones = Ringtones()
    private var open = OpenNotifications()
    private var player: NotificationSoundPlayer
    private var monitor: BusConnection?
    private var client: BusConnection?
    /// When the next attempt to reconnect is due (seconds, monotonic), while the bus is gone.
    private var reconnectAt: Double?

    /// - Parameters:
    ///   - configuration: the rules and the device.
    ///   - log: receives one line per event worth telling, from the listener's and the player's
    ///     callback thread; it must not block (it would hold up the bus and the signals). The
    ///     lines of each kind are rate-limited: a burst, then one a second, with the count of
    ///     those held back (``LogRateLimit``); --verbose's are not.
    public init(configuration: Configuration, log: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.log = ListenLog(log)
        rules = ListenRules(settings: .init(always: configuration.always))
        player = Self.makePlayer(configuration, log: self.log)
    }

    deinit { player.close() }

    private static func makePlayer(_ configuration: Configuration, log: ListenLog) -> NotificationSoundPlayer {
        let player = NotificationSoundPlayer(configuration: .init(device: configuration.device, limits: configuration.limits))
        for warning in player.configurationWarnings { log(.session, warning) }
        return player
    }

    /// Connects and listens until SIGTERM or SIGINT arrives; SIGHUP re-reads the configuration.
    /// A bus that goes away is reconnected every second until it is back.
    /// - Parameter signals: SIGTERM, SIGINT and SIGHUP (those not ignored), already blocked in
    ///   every thread of the process, so that only this loop receives them.
    /// - Returns: the signal that ended it.
    /// - Throws: when the first connection fails, or the signals cannot be watched.
    public func run(signals: sigset_t) throws(ListenError) -> Int32 {
        var signals = signals
        let signalDescriptor = nb_signal_descriptor(&signals)
        guard signalDescriptor >= 0 else { throw .system("cannot watch for signals: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(signalDescriptor) }
        while true {
            do {
                try connect(cancel: signalDescriptor)
                break
            } catch .interrupted {
                // A signal while the bus keeps listen waiting: SIGHUP reloads and connecting
                // goes on; the others end listen at once.
                guard let signal = receivedSignal(signalDescriptor) else { continue }
                if signal == SIGHUP { reload() } else {
                    player.close()
                    return signal
                }
            }
        }
        log(.session, "listening to notifications on the session bus")
        while true {
            var descriptors = [pollfd(fd: signalDescriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: log.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            for bus in [monitor, client].compactMap({ $0 }) {
                descriptors.append(pollfd(fd: bus.descriptor, events: bus.pollEvents, revents: 0))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), pollTimeout())
            if ready < 0 && errno != EINTR { throw .system("poll failed: \(String(cString: strerror(errno)))") }
            if let signal = receivedSignal(signalDescriptor) {
                if signal == SIGHUP { reload() } else {
                    player.close()
                    // What the limit held back is told before listen ends.
                    log.logDueSummaries(force: true)
                    return signal
                }
            }
            let now = Self.now()
            serveBus(at: now)
            if let due = reconnectAt, due <= now { reconnect(cancel: signalDescriptor) }
            log.logDueSummaries()
        }
    }

    // MARK: The bus

    private func connect(cancel: Int32) throws(ListenError) {
        let monitor = try BusConnection(address: configuration.address, role: .monitor, cancel: cancel)
        let client = try BusConnection(address: configuration.address, role: .client, cancel: cancel)
        (self.monitor, self.client) = (monitor, client)
        client.query(NB_QUERY_CAPABILITIES)
        client.query(NB_QUERY_DUNST_PAUSED)
        client.query(NB_QUERY_SWAYNC_DND)
    }

    /// A signal that interrupts it is served by the loop, which sees the signalfd still readable.
    private func reconnect(cancel: Int32) {
        do {
            try connect(cancel: cancel)
            reconnectAt = nil
            log(.session, "reconnected to the session bus")
        } catch {
            reconnectAt = Self.now() + 1
        }
    }

    private func serveBus(at now: Double) {
        guard let monitor, let client else { return }
        do {
            while let event = try monitor.next() { handle(event, at: now) }
            while let event = try client.next() { handle(event, at: now) }
        } catch {
            log(.session, "\(error); reconnecting every second")
            (self.monitor, self.client) = (nil, nil)
            rules.serverChanged()
            rules.swayncDoNotDisturb = false
            reconnectAt = now + 1
        }
    }

    private func handle(_ event: BusEvent, at now: Double) {
        switch event {
        case .notify(let notify):
            handle(notify, at: now)
        case .malformed(let sender, let member):
            log(.malformedCall, "ignored a \(member) call from \(sender): its arguments are not the Desktop Notifications Specification's")
        case .reply(let call, let id?):
            open.opened(id)
            ringtones.replied(call, id: id)
        case .reply:
            break
        case .errorReply(let call):
            stop(ringtones.stop(call: call))
        case .closeCall(let id), .closed(let id):
            open.closed(id)
            stop(ringtones.stop(id: id))
        case .serverOwner(let present):
            rules.serverChanged()
            // Its notifications went with it: a call that nobody can see or dismiss stops ringing.
            open.removeAll()
            stop(ringtones.removeAll())
            if present {
                client?.query(NB_QUERY_CAPABILITIES)
                client?.query(NB_QUERY_DUNST_PAUSED)
            }
            if configuration.verbose { log.verbose(present ? "a notification server started" : "the notification server stopped") }
        case .swayncOwner(let present):
            rules.swayncDoNotDisturb = false
            if present { client?.query(NB_QUERY_SWAYNC_DND) }
        case .dunstPaused(let paused):
            rules.dunstPaused = paused
            if configuration.verbose { log.verbose(paused ? "dunst paused: only critical sounds play" : "dunst resumed") }
        case .swayncDoNotDisturb(let on):
            rules.swayncDoNotDisturb = on
            if configuration.verbose { log.verbose(on ? "swaync's do not disturb is on: only critical sounds play" : "swaync's do not disturb is off") }
        case .capabilities(let playsSound):
            let before = rules.serverPlaysSound
            rules.serverPlaysSound = playsSound ?? false
            if rules.serverPlaysSound != before || configuration.verbose, let playsSound {
                log(.server, playsSound
                    ? (configuration.always ? "the notification server plays sounds itself; --always: listen plays them too"
                                            : "the notification server plays sounds itself: listen stays quiet (--always overrides)")
                    : "the notification server plays no sounds: listen plays them")
            }
        }
    }

    private func handle(_ notify: NotifyCall, at now: Double) {
        var request = notify.request
        let app = [request.desktopEntry, request.appName].lazy.compactMap { $0 }.first { !$0.isEmpty } ?? notify.call.sender
        let label = PrintableText.escaped(app)
        if let replaced = notify.replaces, ringtones.isRinging(replaced, at: now) {
            // An update of a call's notification: it keeps ringing, once.
            if request.sound.isRingtone { return }
            stop(ringtones.stop(id: replaced))
        }
        // A replaces_id of a closed notification is a new notification, not an update.
        request.isUpdate = notify.replaces.map(open.contains) ?? false
        switch rules.decide(request) {
        case .skip(let why):
            if configuration.verbose { log.verbose("\(label): no sound: \(why)") }
        case .play:
            let verbose = configuration.verbose, log = self.log
            do {
                // The player decides the update and rate rules at this call; what it silences
                // is told by the completion, like any other sound that does not play.
                let (playback, silenced) = try player.deciding(request) { report in
                    for warning in report.warnings { log(.sound, "\(label): \(warning)") }
                    switch report.result {
                    case .failed(let error): log(.sound, "\(label): no sound: \(error)")
                    case .silenced(let why): if verbose { log.verbose("\(label): no sound: \(why)") }
                    case let result: if verbose { log.verbose("\(label): \(result)") }
                    }
                }
                guard silenced == nil else { return }
                if verbose { log.verbose("\(label): plays \(request.sound)") }
                if request.sound.isRingtone {
                    stop(ringtones.started(playback, call: notify.call, at: now, ringCap: configuration.limits.activeRingCap))
                }
            } catch {
                log(.sound, "\(label): no sound: \(error)")
            }
        }
    }

    // MARK: Signals, time and sounds

    private func receivedSignal(_ descriptor: Int32) -> Int32? {
        // Several may be pending: an ending signal wins over SIGHUP.
        var strongest: Int32?
        while case let signal = nb_read_signal(descriptor), signal != 0 {
            if strongest == nil || strongest == SIGHUP { strongest = signal }
        }
        return strongest
    }

    /// SIGHUP: the configuration file again, in a new player (the sounds playing end).
    private func reload() {
        stop(ringtones.removeAll())
        player.close()
        player = Self.makePlayer(configuration, log: log)
        log(.session, "reloaded \(SoundPolicy.configurationPath)")
    }

    private func stop(_ playbacks: [PlaybackID]) {
        for playback in playbacks { player.cancel(playback) }
    }

    /// Milliseconds until the next thing that is due, -1 for none (an idle listener sleeps).
    private func pollTimeout() -> Int32 {
        let now = Self.now()
        var due = [reconnectAt, log.summaryDue].compactMap { $0 }
        for bus in [monitor, client].compactMap({ $0 }) {
            if let deadline = bus.deadline { due.append(Double(deadline) / 1e9) }
        }
        guard let next = due.min() else { return -1 }
        return Int32(min(max(0, ((next - now) * 1000).rounded(.up)), 60_000))
    }

    private static func now() -> Double { Double(monotonicNanoseconds()) / 1e9 }
}
