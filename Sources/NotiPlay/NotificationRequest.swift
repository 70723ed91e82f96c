/// One notification's sound request, from what the Desktop Notifications Specification gives a
/// daemon: the `Notify` call's app name and its hints. ``NotificationSoundPlayer`` plays it with
/// `UNNotificationSound`'s semantics; ``sound`` is the mapping, in one place:
///
/// | hint | what plays |
/// | --- | --- |
/// | `suppress-sound` true | nothing (silenced) |
/// | `sound-file` | that file, untrusted: an absolute path (or a `file://` URI) to a regular file in a notification sound's formats (a theme sound's in a sound theme folder) |
/// | `sound-name` | a file of that name in the app's sound folders (as `UNNotificationSound(named:)`), else the sound theme's sound of that name |
/// | `category` | the theme sound for it (``soundName(forCategory:)``); `call`, `call.incoming`: a ringtone |
/// | none of them | the default sound |
/// | `urgency` 2 | any of the above as a critical sound (quiet hours pass it, at exactly `volume`) |
/// | `desktop-entry`, else the app name | that app's sound folders (``SoundLocator``) |
///
/// A named or theme sound that is not found gives way to the default sound, with a warning, as
/// iOS plays the default for a sound name it cannot find.
///
/// Before any of that, when it is asked for, the player's ``SoundLimits`` and the request's
/// ``isUpdate`` and ``hintsOnly`` decide whether it plays at all (else it is `silenced`, with
/// the reason): an update without a sound of its own, a notification without sound hints when
/// only hinted sounds play, a second sound of one app within `interval`, more than `burstLimit`
/// sounds in it. Critical sounds pass the rate limit.
public struct NotificationRequest: Sendable, Hashable {
    public enum Urgency: UInt8, Sendable, Hashable {
        case low = 0, normal = 1, critical = 2
    }

    public var appName: String?
    public var desktopEntry: String?
    /// The `sound-file` hint: a path from the notification.
    public var soundFile: SoundPath?
    /// The `sound-name` hint.
    public var soundName: String?
    public var category: String?
    public var suppressSound: Bool
    public var urgency: Urgency
    /// A critical sound's exact volume, else a gain on the user's notification volume (0…1).
    public var volume: Float
    /// Loop until cancelled (a call), whatever the category says.
    public var isRingtone: Bool
    /// The notification replaces one still shown (`Notify`'s `replaces_id`: a progress bar, a
    /// volume OSD, a track change): silent unless it names its own sound (`sound-file`,
    /// `sound-name`), is critical or a ringtone, so that an update does not beep.
    public var isUpdate: Bool
    /// Play only what the hints ask for: a notification whose hints name no sound (no
    /// `sound-file`, `sound-name` or category with a sound, not a ringtone) is silenced instead
    /// of playing the default sound. For a daemon that sounds only notifications that ask to.
    public var hintsOnly: Bool
    /// The notification's id (what `Notify` returned for it; its `replaces_id` in an update), so
    /// that a ringtone asked for a notification whose ringtone still rings does not ring twice:
    /// the ring goes on as it was, under the id it started with, and this request is silenced
    /// ("its notification's ringtone rings on"); any other request of it (the call answered or
    /// ended) ends that ring, which reports `.cancelled`. nil: every request is a notification
    /// of its own.
    public var notificationID: UInt32?

    public init(appName: String? = nil, desktopEntry: String? = nil, soundFile: SoundPath? = nil,
                soundName: String? = nil, category: String? = nil, suppressSound: Bool = false,
                urgency: Urgency = .normal, volume: Float = 1, isRingtone: Bool = false,
                isUpdate: Bool = false, hintsOnly: Bool = false, notificationID: UInt32? = nil) {
        self.notificationID = notificationID
        self.isUpdate = isUpdate
        self.hintsOnly = hintsOnly
        self.appName = appName
        self.desktopEntry = desktopEntry
        self.soundFile = soundFile
        self.soundName = soundName
        self.category = category
        self.suppressSound = suppressSound
        self.urgency = urgency
        self.volume = volume
        self.isRingtone = isRingtone
    }

    /// The Sound Naming name for a notification category (Desktop Notifications Specification's
    /// categories, the Sound Naming Specification's names), or nil: the default sound.
    public static func soundName(forCategory category: String) -> String? {
        switch category {
        case "im", "im.received": "message-new-instant"
        case "email", "email.arrived": "message-new-email"
        case "device.added": "device-added"
        case "device.removed": "device-removed"
        case "device.error", "network.error", "transfer.error", "email.bounced", "im.error": "dialog-error"
        case "network.connected": "network-connectivity-established"
        case "network.disconnected": "network-connectivity-lost"
        case "presence.online": "service-login"
        case "presence.offline": "service-logout"
        case "transfer.complete": "complete-download"
        case "call", "call.incoming": "phone-incoming-call"
        case "call.ended": "phone-hangup"
        case "call.unanswered": "phone-failure"
        default: nil
        }
    }

    /// A `sound-file` hint as a path: some senders give a `file://` URI (`file:///a%20b.wav`,
    /// `file://localhost/…`), which is decoded; anything else is the path itself.
    static func path(fromHint hint: SoundPath) -> SoundPath {
        var rest = hint.bytes[...]
        for prefix in ["file://localhost/", "file:///"] where rest.starts(with: prefix.utf8) {
            rest = rest.dropFirst(prefix.utf8.count - 1)
            var decoded: [UInt8] = []
            decoded.reserveCapacity(rest.count)
            var index = rest.startIndex
            while index < rest.endIndex {
                if rest[index] == UInt8(ascii: "%"), index + 2 < rest.endIndex,
                   let high = hexValue(rest[index + 1]), let low = hexValue(rest[index + 2]) {
                    decoded.append(high << 4 | low)
                    index += 3
                } else {
                    decoded.append(rest[index])
                    index += 1
                }
            }
            return SoundPath(bytes: decoded)
        }
        return hint
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Categories whose sound loops until the notification is closed.
    static func isCall(_ category: String?) -> Bool { category == "call" || category == "call.incoming" }

    /// Whether it asks for a ring: a ringtone, not suppressed (a call whose ringer the user
    /// silenced asks for no sound).
    var asksForRingtone: Bool { sound.isRingtone && !suppressSound }

    /// The app whose sound folders are searched: the desktop entry, else the app name.
    var appID: String? { desktopEntry.flatMap { $0.isEmpty ? nil : $0 } ?? appName.flatMap { $0.isEmpty ? nil : $0 } }

    /// The `UNNotificationSound` this request asks for, before the lookup.
    public var sound: NotificationSound {
        var sound: NotificationSound
        if let soundFile, !soundFile.bytes.isEmpty { sound = .init(source: .notificationFile(Self.path(fromHint: soundFile))) }
        else if let soundName, !soundName.isEmpty { sound = .themeSound(soundName) }
        else if let category, let name = Self.soundName(forCategory: category) { sound = .themeSound(name) }
        else { sound = .default }
        sound.isCritical = urgency == .critical
        sound.isRingtone = isRingtone || Self.isCall(category)
        sound.criticalVolume = volume
        return sound
    }
}
