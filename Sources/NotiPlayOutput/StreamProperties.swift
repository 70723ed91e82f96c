/// What a sound server is told about a stream: who plays it and what it is, so that the desktop's
/// rules for notification sounds (their own volume, ducking, a mixer's labels) apply to it.
/// A backend that talks to a server passes them on (PipeWire: application.name, application.id,
/// media.name, media.role); ALSA has nowhere to put them.
public struct StreamProperties: Sendable, Equatable {
    /// The application people see in a mixer ("Chat"): application.name.
    public var applicationName: String
    /// The application's identifier, its desktop-file ID where it has one ("org.example.Chat"):
    /// application.id.
    public var applicationID: String
    /// What the stream plays, the sound's name or file ("message-new-instant"): media.name.
    /// nil: the application's name.
    public var mediaName: String?
    public var role: Role

    /// What kind of sound it is, as PipeWire's media.role names it (pipewire-pulse maps
    /// PulseAudio's `event` to Notification and `phone` to Communication).
    public enum Role: String, Sendable {
        /// An alert: a notification's sound, an event's.
        case notification = "Notification"
        /// A call: a ringtone.
        case communication = "Communication"
    }

    /// The command's own: `noti-play`, a notification. Hosts give their application's name and ID.
    public init(applicationName: String = "noti-play", applicationID: String = "noti-play", mediaName: String? = nil,
                role: Role = .notification) {
        self.applicationName = applicationName
        self.applicationID = applicationID
        self.mediaName = mediaName
        self.role = role
    }
}
