import CNotificationBus
import NotiPlay
#if canImport(Glibc)
import Glibc
#endif

/// What the session bus said that matters to `listen`, copied out of the D-Bus message (whose
/// memory is only valid until the next event) with every string bounded.
enum BusEvent: Equatable {
    /// A Notify call; `call` names it until the server's reply gives the notification's id.
    case notify(NotifyCall)
    /// A call to the notification interface with arguments of the wrong types.
    case malformed(sender: String, member: String)
    /// The server answered the call `call` with the notification's id (nil: not an id).
    case reply(call: CallKey, id: UInt32?)
    /// The server refused the call `call`.
    case errorReply(call: CallKey)
    /// CloseNotification(id), from any client.
    case closeCall(id: UInt32)
    /// The NotificationClosed signal.
    case closed(id: UInt32)
    /// org.freedesktop.Notifications got an owner (true) or lost it.
    case serverOwner(Bool)
    /// org.erikreider.swaync.cc got an owner (true) or lost it.
    case swayncOwner(Bool)
    /// dunst's `paused` property.
    case dunstPaused(Bool)
    /// swaync's do-not-disturb state.
    case swayncDoNotDisturb(Bool)
    /// The server's capabilities include "sound" (nil: no server answered).
    case capabilities(playsSound: Bool?)
}

/// A method call on the bus: its sender's unique name and its serial, which the reply names.
struct CallKey: Hashable {
    var sender: String
    var serial: UInt64
}

struct NotifyCall: Equatable {
    var call: CallKey
    /// The id of the notification this one replaces, if any.
    var replaces: UInt32?
    var request: NotificationRequest
}

/// A connection to the session bus through sd-bus: a monitor of the notification traffic, or an
/// ordinary client for listen's own questions. Not thread-safe: the listener's thread owns it.
final class BusConnection {
    enum Role { case monitor, client }

    private let bus: OpaquePointer

    /// Connects: at most 5 s, and no longer than until `cancel` is readable.
    /// - Parameters:
    ///   - cancel: a descriptor that ends the wait when it becomes readable (listen's signalfd;
    ///     it is not read), or -1.
    /// - Throws: `.interrupted` when `cancel` ended it, else the one-line reason.
    init(address: String?, role: Role, cancel: Int32) throws(ListenError) {
        var handle: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let result = nb_open(address, role == .monitor ? NB_MONITOR : NB_CLIENT, cancel, &handle, &message, message.count)
        if result == -EINTR { throw .interrupted }
        guard result == 0, let handle else {
            throw .bus(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        bus = handle
    }

    deinit { nb_close(bus) }

    var descriptor: Int32 { nb_fd(bus) }
    var pollEvents: Int16 { Int16(truncatingIfNeeded: nb_events(bus)) }
    /// The CLOCK_MONOTONIC nanosecond by which `next()` must run again, if any.
    var deadline: UInt64? {
        let microseconds = nb_timeout(bus)
        return microseconds == .max ? nil : microseconds.multipliedReportingOverflow(by: 1000).partialValue
    }

    /// Starts one of listen's questions; its answer comes back as an event.
    func query(_ query: nb_query_kind) { _ = nb_query(bus, query) }

    /// The next event, nil when there is none until the descriptor is ready.
    /// - Throws: `.disconnected` when the bus has gone.
    func next() throws(ListenError) -> BusEvent? {
        var event = nb_event()
        while true {
            let result = nb_next(bus, &event)
            if result < 0 { throw .disconnected(String(cString: strerror(-result))) }
            if result == 0 { return nil }
            if let converted = Self.convert(event) { return converted }
            if event.kind == NB_EVENT_DISCONNECTED { throw .disconnected("the bus closed the connection") }
        }
    }

    // MARK: Copying out of the message

    /// Names and ids are short; a path is at most PATH_MAX. Longer strings are cut one byte past
    /// the limit (so they still fail as too long) instead of being copied whole.
    static let nameLimit = 255
    static let pathLimit = 4096

    private static func bytes(_ pointer: UnsafePointer<CChar>?, limit: Int) -> [UInt8]? {
        guard let pointer else { return nil }
        let length = strnlen(pointer, limit + 1)
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?, limit: Int = nameLimit) -> String? {
        bytes(pointer, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func convert(_ event: nb_event) -> BusEvent? {
        switch event.kind {
        case NB_EVENT_NOTIFY:
            let hints = event.hints
            let request = NotificationRequest(
                appName: text(event.app_name),
                desktopEntry: text(hints.desktop_entry),
                soundFile: bytes(hints.sound_file, limit: pathLimit).map { SoundPath(bytes: $0) },
                soundName: text(hints.sound_name),
                category: text(hints.category),
                suppressSound: hints.suppress_sound == 1,
                urgency: hints.urgency < 0 ? .normal : NotificationRequest.Urgency(rawValue: UInt8(clamping: hints.urgency)) ?? .normal,
                isRingtone: hints.ringtone == 1
            )
            let call = CallKey(sender: text(event.sender) ?? "", serial: event.serial)
            return .notify(NotifyCall(call: call, replaces: event.has_id != 0 ? event.id : nil,
                                      request: request))
        case NB_EVENT_MALFORMED:
            return .malformed(sender: text(event.sender) ?? "?", member: text(event.member) ?? "?")
        case NB_EVENT_REPLY:
            return .reply(call: CallKey(sender: text(event.destination) ?? "", serial: event.serial), id: event.has_id != 0 ? event.id : nil)
        case NB_EVENT_ERROR_REPLY:
            return .errorReply(call: CallKey(sender: text(event.destination) ?? "", serial: event.serial))
        case NB_EVENT_CLOSE_CALL: return .closeCall(id: event.id)
        case NB_EVENT_CLOSED: return .closed(id: event.id)
        case NB_EVENT_SERVER_OWNER: return .serverOwner(event.flag != 0)
        case NB_EVENT_SWAYNC_OWNER: return .swayncOwner(event.flag != 0)
        case NB_EVENT_DUNST_PAUSED: return .dunstPaused(event.flag != 0)
        case NB_EVENT_SWAYNC_DND: return .swayncDoNotDisturb(event.flag != 0)
        case NB_EVENT_CAPABILITIES: return .capabilities(playsSound: event.has_id != 0 ? event.flag != 0 : nil)
        default: return nil
        }
    }
}

/// Why listen cannot go on: one line for the user.
public enum ListenError: Error, Equatable, CustomStringConvertible {
    case bus(String)
    case disconnected(String)
    case system(String)
    /// A signal arrived while connecting.
    case interrupted

    public var description: String {
        switch self {
        case .bus(let why): why
        case .interrupted: "a signal arrived while connecting to the session bus"
        case .disconnected(let why): "lost the session bus: \(why)"
        case .system(let why): why
        }
    }
}
