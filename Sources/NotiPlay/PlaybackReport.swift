import NotiPlayOutput

/// Names one `play` of a ``NotificationSoundPlayer``; given before anything is looked up.
public struct PlaybackID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public var description: String { "playback \(rawValue)" }
}

/// How a notification sound ended. Each outcome is its own case, so a daemon can tell the user
/// (or its log) what happened.
public enum PlaybackResult: Sendable, Equatable {
    /// Played to its end.
    case finished
    /// The caller cancelled it (``NotificationSoundPlayer/cancel(_:)``, the awaiting Task's
    /// cancellation, or ``NotificationSoundPlayer/close()``).
    case cancelled
    /// Faded out for a critical sound.
    case preempted
    /// Faded out to make room: every voice was taken, and it was the oldest.
    case replaced
    /// Nothing played, on purpose; the reason is for people ("quiet hours", "suppress-sound").
    case silenced(String)
    /// It could not be found, read or played.
    case failed(NotificationSoundError)
}

/// Something a `play` did other than asked, though it played: one line for people, and its kind
/// for a host that acts on it (noti-play.h's NOTI_PLAY_WARNING_ bits).
public struct PlaybackWarning: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable, CaseIterable {
        /// The sound lasts 30 s or more: the default sound plays instead.
        case tooLong
        /// The sound asked for was not found, or a file of its name was refused: the default
        /// sound plays instead.
        case notFound
        /// The configured default sound cannot be played: noti-play's own plays instead.
        case defaultUnplayable
        /// The app id cannot name a folder: the app's sound folders are not searched.
        case appIDUnused
    }

    public let kind: Kind
    public let text: String

    /// - Parameters:
    ///   - kind: what happened.
    ///   - text: the one line that says it, for people.
    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    public var description: String { text }
}

/// What a `play` came to: its id, its outcome, the warnings it raised on the way (a sound of
/// 30 s or more replaced by the default, a configured default that cannot be played, an app id that
/// is not a valid name) and the file that was found for it.
public struct PlaybackReport: Sendable, Equatable {
    public let id: PlaybackID
    public let result: PlaybackResult
    public let warnings: [PlaybackWarning]
    /// The full path of the file the lookup chose (control characters escaped): what played, or
    /// what was to and could not be read or decoded (a `sound-file` that is not there included).
    /// nil when nothing was found, or nothing was looked up.
    public let file: String?
    /// The device stream it played on, as it was when the sound ended (the format the device
    /// agreed to, underruns): nil when it never reached a device.
    public let stream: StreamFigures?
    /// The sound's own rate and channels, once its file was opened. Where they differ from the
    /// stream's format, the sound was converted to it in the decode worker (a mono sound on a
    /// stereo stream is only mapped onto both speakers).
    public let soundSampleRate: Int?
    public let soundChannelCount: Int?

    public init(id: PlaybackID, result: PlaybackResult, warnings: [PlaybackWarning] = [], file: String? = nil, stream: StreamFigures? = nil,
                soundSampleRate: Int? = nil, soundChannelCount: Int? = nil) {
        self.id = id
        self.result = result
        self.warnings = warnings
        self.file = file
        self.stream = stream
        self.soundSampleRate = soundSampleRate
        self.soundChannelCount = soundChannelCount
    }
}

extension PlaybackResult {
    /// The player's word for how the engine's voice ended.
    init(_ outcome: VoiceOutcome) {
        switch outcome {
        case .finished: self = .finished
        case .stopped(.cancelled), .stopped(.interrupted): self = .cancelled
        case .stopped(.preempted): self = .preempted
        case .stopped(.replaced): self = .replaced
        case .failed(.device(let error)): self = .failed(.device(error))
        case .failed(let error): self = .failed(.playback(error))
        }
    }
}
