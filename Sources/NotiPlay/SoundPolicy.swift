import NotiPlayOutput
import NotiPlayDecoder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The user's notification-sound settings, from `$XDG_CONFIG_HOME/noti-play/noti-play.conf`
/// (default `~/.config/noti-play/noti-play.conf`). One `key = value` a line; `#` starts a comment.
///
/// | key | value | default |
/// | --- | --- | --- |
/// | `notification-volume` | 0.0 to 1.0: the linear volume of non-critical sounds | 1.0 |
/// | `do-not-disturb` | `true` or `false`: silence non-critical sounds | false |
/// | `quiet-hours` | `HH:MM-HH:MM`, local time, may pass midnight: silence non-critical sounds then | none |
/// | `theme` | the freedesktop sound theme for sound names | freedesktop |
/// | `default-sound` | path of the default notification sound | bundled `default.caf` |
/// | `critical-sound` | path of the default critical sound | bundled `critical.caf` |
/// | `ringtone-sound` | path of the default ringtone | bundled `ringtone.caf` |
///
/// Critical sounds pass do-not-disturb and quiet hours at their own volume, untouched by
/// `notification-volume`.
public struct SoundPolicy: Sendable, Equatable {
    public var notificationVolume: Float = 1
    public var doNotDisturb = false
    /// Minutes after midnight: quiet from `start` up to, not including, `end`.
    public var quietHours: (start: Int, end: Int)?
    public var theme = "freedesktop"
    /// Absolute paths, their bytes as given (a path need not be UTF-8).
    public var defaultSound: SoundPath?
    public var criticalSound: SoundPath?
    public var ringtoneSound: SoundPath?
    /// Where sound goes (`backend = pipewire|pulse|alsa|auto`): nil, auto, tries the desktop's
    /// sound server first. A host's own choice (`Configuration.backend`) wins over it.
    public var backend: AudioBackend?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.notificationVolume == b.notificationVolume && a.doNotDisturb == b.doNotDisturb
            && a.quietHours?.start == b.quietHours?.start && a.quietHours?.end == b.quietHours?.end
            && a.theme == b.theme && a.defaultSound == b.defaultSound && a.criticalSound == b.criticalSound
            && a.ringtoneSound == b.ringtoneSound && a.backend == b.backend
    }

    /// The configuration file's path.
    public static var configurationPath: String {
        FileSystem.configHome.appendingPath("noti-play/noti-play.conf")
    }

    /// Reads the user's configuration; a missing file gives the defaults. Lines that cannot be
    /// understood are skipped, each with a one-line warning.
    public static func load(from path: String = configurationPath) -> (policy: SoundPolicy, warnings: [String]) {
        switch FileSystem.readText(path) {
        case nil: return (SoundPolicy(), [])
        case .failure(let error)?: return (SoundPolicy(), ["\(path): \(error.message); using the defaults"])
        case .success(let text)?: return parse(text, source: path)
        }
    }

    public static func parse(_ text: String, source: String = "configuration") -> (policy: SoundPolicy, warnings: [String]) {
        var policy = SoundPolicy()
        var warnings: [String] = []
        // "\r\n" is one Character in Swift, and a newline: CRLF files split as LF files do.
        // A UTF-8 byte-order mark (editors on other systems write one) is not part of the first key.
        let body = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        for (number, rawLine) in body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = (rawLine.firstIndex(of: "#").map { rawLine[..<$0] } ?? rawLine[...]).trimmingCharacters(in: " \t\r")
            if line.isEmpty { continue }
            let warn = { (why: String) in warnings.append("\(source):\(number + 1): \(why)") }
            guard let equals = line.firstIndex(of: "=") else { warn("expected 'key = value'"); continue }
            let key = line[..<equals].trimmingCharacters(in: " \t")
            let value = line[line.index(after: equals)...].trimmingCharacters(in: " \t")
            switch key {
            case "notification-volume":
                if let volume = Float(value), volume >= 0, volume <= 1 { policy.notificationVolume = volume }
                else { warn("notification-volume must be from 0.0 to 1.0, not '\(value)'") }
            case "do-not-disturb":
                if let flag = Bool(value) { policy.doNotDisturb = flag } else { warn("do-not-disturb must be true or false") }
            case "quiet-hours":
                switch parseWindow(value) {
                case .success(let window): policy.quietHours = window
                case .failure(let problem): warn("quiet-hours must be HH:MM-HH:MM (00:00 to 24:00): \(problem.reason)")
                }
            case "theme":
                if (try? SoundName.validate(value)) != nil { policy.theme = value } else { warn("theme must be a theme's folder name") }
            case "default-sound", "critical-sound", "ringtone-sound":
                // A relative path is the configuration file's folder's: the same file whatever
                // folder the host runs in.
                var path = SoundPath(value)
                if !path.isAbsolute, source.hasPrefix("/"), let slash = source.lastIndex(of: "/") {
                    path = SoundPath(source[..<slash] + "/" + value)
                }
                guard path.isAbsolute else { warn("\(key) must be an absolute path, not '\(path)'"); continue }
                switch key {
                case "default-sound": policy.defaultSound = path
                case "critical-sound": policy.criticalSound = path
                default: policy.ringtoneSound = path
                }
            case "backend":
                if value == "auto" { policy.backend = nil }
                else if let backend = AudioBackend(rawValue: value) { policy.backend = backend }
                else { warn("backend must be pipewire, pulse, alsa or auto, not '\(value)'") }
            default: warn("unknown key '\(key)'")
            }
        }
        return (policy, warnings)
    }

    struct WindowProblem: Error { var reason: String }

    /// `HH:MM-HH:MM`: hours of one or two digits, minutes of two, 24:00 only as the end; an
    /// empty window (start = end) is refused rather than silently meaning "never".
    static func parseWindow(_ text: String) -> Result<(start: Int, end: Int), WindowProblem> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = minutes(parts[0]), let end = minutes(parts[1]) else {
            return .failure(WindowProblem(reason: "'\(text)' is not a window of that form"))
        }
        guard start < 24 * 60 else { return .failure(WindowProblem(reason: "a window cannot start at 24:00")) }
        guard start != end else {
            return .failure(WindowProblem(reason: "'\(text)' starts where it ends; for the whole day write 00:00-24:00"))
        }
        return .success((start, end))
    }

    static func minutes(_ text: Substring) -> Int? {
        let parts = text.trimmingCharacters(in: " ").split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hours = Int(parts[0]), let minutes = Int(parts[1]),
              (0...24).contains(hours), (0..<60).contains(minutes), hours * 60 + minutes <= 24 * 60 else { return nil }
        return hours * 60 + minutes
    }

    /// Whether non-critical sounds are silent at `minute` after local midnight.
    public func isQuiet(atMinute minute: Int) -> Bool {
        if doNotDisturb { return true }
        guard let (start, end) = quietHours, start != end else { return false }
        return start < end ? (start..<end).contains(minute) : (minute >= start || minute < end)
    }

    /// Why non-critical sounds are silent now, or nil when they play: `override` is a host's own
    /// switch (``NotificationSoundPlayer/setQuiet(_:)``), nil to follow this policy.
    public func quietReason(override: Bool?) -> String? {
        guard override ?? isQuietNow() else { return nil }
        return doNotDisturb || override == true ? "do not disturb is on" : "quiet hours"
    }

    /// Whether non-critical sounds are silent now.
    public func isQuietNow() -> Bool {
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        return isQuiet(atMinute: Int(local.tm_hour) * 60 + Int(local.tm_min))
    }
}
