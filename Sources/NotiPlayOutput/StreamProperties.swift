/// Who plays, and what, as a sound server shows a stream and applies its rules to it (the
/// desktop's alert volume, a role's routing and ducking). Every stream noti-play opens is a
/// notification's: PipeWire's media.role Notification, PulseAudio's event role.
public struct StreamProperties: Sendable, Equatable {
    /// The host's name, as the desktop's mixer lists it (application.name).
    public var applicationName: String
    /// The host's reverse-DNS id or desktop file name (application.id): what a server remembers
    /// a stream's volume by.
    public var applicationID: String
    /// What plays (media.name): the sound's name or file, or nil for the host's name. A daemon's
    /// one stream plays many sounds: the first one's name is the stream's.
    public var mediaName: String?

    public init(applicationName: String = "noti-play", applicationID: String = "noti-play", mediaName: String? = nil) {
        self.applicationName = applicationName
        self.applicationID = applicationID
        self.mediaName = mediaName
    }
}
