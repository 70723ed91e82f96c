import CNotiPlayABI
import NotiPlay
import NotiPlayOutput
#if canImport(Glibc)
import Glibc
#endif

// The C library: noti-play.h, implemented over NotificationSoundPlayer. A context is a retained
// NotificationSoundPlayer behind an opaque pointer.

public typealias NotiPlayCallback = @convention(c) (UInt64, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

// The header's flags, as the C compiler reads them (CNotiPlayABI imports noti-play.h).
private let flagCritical = UInt32(NOTI_PLAY_CRITICAL)
private let flagRingtone = UInt32(NOTI_PLAY_RINGTONE)
private let flagSuppress = UInt32(NOTI_PLAY_SUPPRESS)
private let flagRequestUpdate = UInt32(NOTI_PLAY_REQUEST_UPDATE)
private let flagRequestHintsOnly = UInt32(NOTI_PLAY_REQUEST_HINTS_ONLY)
/// What a notification's request may say of itself: noti_play_notify's alone.
private let requestFlags = flagRequestUpdate | flagRequestHintsOnly
private let knownFlags = flagCritical | flagRingtone | flagSuppress | requestFlags

/// A one-line refusal for flag bits noti-play.h does not define (a caller's mistake, or a
/// newer header's flag this library cannot honour), or for request flags given to a call that
/// names its sound itself; or nil.
private func unknownFlags(_ flags: UInt32, notification: Bool) -> String? {
    if flags & ~knownFlags != 0 {
        return "unknown flags 0x\(String(flags & ~knownFlags, radix: 16)) (noti-play.h defines NOTI_PLAY_CRITICAL, _RINGTONE, _SUPPRESS, _REQUEST_UPDATE and _REQUEST_HINTS_ONLY)"
    }
    if !notification && flags & requestFlags != 0 {
        return "NOTI_PLAY_REQUEST_UPDATE and NOTI_PLAY_REQUEST_HINTS_ONLY are for noti_play_notify: this call names its sound itself"
    }
    return nil
}

private func player(_ context: OpaquePointer?) -> NotificationSoundPlayer? {
    context.map { Unmanaged<NotificationSoundPlayer>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

/// NotiPlayVersion, the one Swift place the version is written (a static string: the pointer
/// stays valid for ever).
@_cdecl("noti_play_version")
public func noti_play_version() -> UnsafePointer<CChar> {
    UnsafeRawPointer(NotiPlayVersion.text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("noti_play_new_with_options")
public func noti_play_new_with_options(
    _ options: UnsafeRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> OpaquePointer? {
    var read = noti_play_options()
    if let options, noti_abi_read_options(options, &read) != 0 {
        error?.pointee = strdup("the options' size field is too small: start from NOTI_PLAY_OPTIONS_INIT")
        return nil
    }
    // A switch, not a dictionary: a dictionary's generic type is built at run time by the
    // Swift runtime's demangler, whose pages a host would pay for at start (issue 24).
    let backend: AudioBackend?
    switch UInt32(bitPattern: read.backend) {
    case NOTI_PLAY_BACKEND_AUTO.rawValue: backend = nil
    case NOTI_PLAY_BACKEND_PIPEWIRE.rawValue: backend = .pipewire
    case NOTI_PLAY_BACKEND_PULSEAUDIO.rawValue: backend = .pulse
    case NOTI_PLAY_BACKEND_ALSA.rawValue: backend = .alsa
    default:
        error?.pointee = strdup("unknown backend \(read.backend) (noti-play.h defines NOTI_PLAY_BACKEND_AUTO, _PIPEWIRE, _PULSEAUDIO and _ALSA)")
        return nil
    }
    // NULL folders are no folders, whatever the count says: the count is not looped over
    // (2^40 of nothing took minutes, in a call that must not block).
    var appFolders: [String] = []
    if let folders = read.app_folders {
        for index in 0..<max(0, Int(clamping: read.app_folder_count)) {
            if let folder = folders[index] { appFolders.append(String(cString: folder)) }
        }
    }
    // A daemon's streams are its own: the desktop lists them under the program's name unless
    // the host names itself.
    let applicationName = string(read.application_name) ?? String(cString: noti_abi_program_name())
    let properties = StreamProperties(applicationName: applicationName, applicationID: string(read.application_id) ?? applicationName)
    let device = string(read.device) ?? "default"
    // Made at the first sound: until then a host pays for no more of the library than it loaded.
    let player = NotificationSoundPlayer(makingConfiguration: { [appFolders] in
        NotificationSoundPlayer.Configuration(appFolders: appFolders, device: device, backend: backend, streamProperties: properties)
    })
    guard player.isStarted else {  // no thread to be had: as out of memory
        error?.pointee = strdup("the player could not start: no thread to be had")
        return nil
    }
    return OpaquePointer(Unmanaged.passRetained(player).toOpaque())
}

@_cdecl("noti_play_new")
public func noti_play_new(
    _ device: UnsafePointer<CChar>?, _ folders: UnsafePointer<UnsafePointer<CChar>?>?, _ folderCount: Int
) -> OpaquePointer? {
    var options = noti_play_options()
    options.size = MemoryLayout<noti_play_options>.size
    options.device = device
    options.app_folders = folders
    options.app_folder_count = folderCount
    return withUnsafePointer(to: &options) { noti_play_new_with_options(UnsafeRawPointer($0), nil) }
}

@_cdecl("noti_play_free")
public func noti_play_free(_ context: OpaquePointer?) {
    guard let context else { return }
    let unmanaged = Unmanaged<NotificationSoundPlayer>.fromOpaque(UnsafeRawPointer(context))
    unmanaged.takeUnretainedValue().close()
    unmanaged.release()
}

public typealias NotiPlayReportCallback = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Void

/// noti-play.h's result code for a report, and its one-line detail: the reason for SILENCED and
/// FAILED, otherwise the warnings.
private func resultAndDetail(_ report: PlaybackReport) -> (noti_play_result, String) {
    let warnings = report.warnings.map(\.text).joined(separator: "; ")
    return switch report.result {
    case .finished: (NOTI_PLAY_FINISHED, warnings)
    case .cancelled: (NOTI_PLAY_CANCELLED, warnings)
    case .silenced(let why): (NOTI_PLAY_SILENCED, why)
    case .failed(let error): (NOTI_PLAY_FAILED, error.description)
    case .preempted: (NOTI_PLAY_PREEMPTED, warnings)
    case .replaced: (NOTI_PLAY_REPLACED, warnings)
    }
}

/// noti-play.h's noti_play_error for a result.
private func errorCode(_ result: PlaybackResult) -> noti_play_error {
    switch result {
    case .finished, .cancelled, .preempted, .replaced: NOTI_PLAY_ERROR_NONE
    case .silenced: NOTI_PLAY_ERROR_SILENCED
    case .failed(let error):
        switch error {
        case .notFound, .themeLookupStopped: NOTI_PLAY_ERROR_NOT_FOUND
        case .file(_, .unreadable, _), .invalidName, .attachment: NOTI_PLAY_ERROR_UNREADABLE
        case .file(_, .unsupportedFormat, _): NOTI_PLAY_ERROR_UNSUPPORTED_FORMAT
        case .file(_, .malformed, _): NOTI_PLAY_ERROR_MALFORMED
        case .device: NOTI_PLAY_ERROR_DEVICE_FAILED
        case .deviceTimeout, .deviceStalled, .deviceUnresponsive: NOTI_PLAY_ERROR_DEVICE_STALLED
        case .invalidVolume, .invalidSetting, .playback, .closed, .busy, .unanswered: NOTI_PLAY_ERROR_OTHER
        }
    }
}

/// noti-play.h's NOTI_PLAY_WARNING_ bits for a report's warnings.
private func warningBits(_ warnings: [PlaybackWarning]) -> UInt32 {
    warnings.reduce(0) { bits, warning in
        let bit = switch warning.kind {
        case .tooLong: NOTI_PLAY_WARNING_TOO_LONG
        case .notFound: NOTI_PLAY_WARNING_NOT_FOUND
        case .defaultUnplayable: NOTI_PLAY_WARNING_DEFAULT_UNPLAYABLE
        case .appIDUnused: NOTI_PLAY_WARNING_APP_ID_UNUSED
        }
        return bits | UInt32(bit)
    }
}

/// The user data pointer travels with the callback; it is the caller's, never dereferenced here.
private struct CallbackTarget: @unchecked Sendable {
    let callback: NotiPlayCallback?
    let userData: UnsafeMutableRawPointer?

    /// Calls the C callback with noti-play.h's result code and its one-line detail.
    func report(_ report: PlaybackReport) {
        guard let callback else { return }
        let (code, detail) = resultAndDetail(report)
        detail.withCString { callback(UInt64(report.id.rawValue), Int32(code.rawValue), $0, userData) }
    }
}

/// A noti_play_report_callback and its user data.
private struct ReportTarget: @unchecked Sendable {
    let callback: NotiPlayReportCallback?
    let userData: UnsafeMutableRawPointer?
    /// The host was built against a header before 0.4.0 (its request ends before
    /// `notification_id`): that header lists error codes up to OTHER, and calls a file's format
    /// or damage UNREADABLE, so it gets UNREADABLE for them, never a code it cannot know.
    let olderHeader: Bool

    /// Calls the C callback with a noti_play_report that lives for the call.
    func report(_ report: PlaybackReport) {
        guard let callback else { return }
        let (code, detail) = resultAndDetail(report)
        detail.withCString { detail in
            withOptionalCString(report.file) { file in
                var error = errorCode(report.result)
                if olderHeader && (error == NOTI_PLAY_ERROR_UNSUPPORTED_FORMAT || error == NOTI_PLAY_ERROR_MALFORMED) {
                    error = NOTI_PLAY_ERROR_UNREADABLE
                }
                var shown = noti_play_report(
                    size: MemoryLayout<noti_play_report>.size, id: UInt64(report.id.rawValue),
                    result: code, error: error, detail: detail, file: file,
                    warnings: warningBits(report.warnings))
                withUnsafePointer(to: &shown) { callback(UnsafeRawPointer($0), userData) }
            }
        }
    }
}


/// Runs a play call: its id, or 0 with the one-line reason in `error`.
private func play(
    _ context: OpaquePointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ start: (NotificationSoundPlayer) throws(NotificationSoundError) -> PlaybackID
) -> UInt64 {
    guard let player = player(context) else {
        error?.pointee = strdup("no noti_play context given")
        return 0
    }
    do {
        return UInt64(try start(player).rawValue)
    } catch let failure {
        error?.pointee = strdup(failure.description)
        return 0
    }
}

private func play(
    _ context: OpaquePointer?, _ sound: NotificationSound, _ volume: Float, _ flags: UInt32,
    _ callback: NotiPlayCallback?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UInt64 {
    if let unknown = unknownFlags(flags, notification: false) { error?.pointee = strdup(unknown); return 0 }
    var sound = sound
    sound.isCritical = flags & flagCritical != 0
    sound.isRingtone = flags & flagRingtone != 0
    sound.criticalVolume = volume
    let target = CallbackTarget(callback: callback, userData: userData)
    return play(context, error) { (player) throws(NotificationSoundError) in
        try player.play(sound, suppressSound: flags & flagSuppress != 0, gain: sound.isCritical ? 1 : volume, completion: target.report)
    }
}

/// The C string at `pointer` as a Swift string, or nil for NULL.
private func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }

/// The bytes of the C string at `pointer` as they are (a path need not be UTF-8).
private func bytes(_ pointer: UnsafePointer<CChar>) -> [UInt8] {
    Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
}

/// The path at `pointer`, its bytes exact, or nil for NULL.
private func path(_ pointer: UnsafePointer<CChar>?) -> SoundPath? { pointer.map { SoundPath(bytes: bytes($0)) } }

@_cdecl("noti_play_notify")
public func noti_play_notify(
    _ context: OpaquePointer?, _ request: UnsafeRawPointer?,
    _ callback: NotiPlayCallback?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UInt64 {
    notify(context, request, error, completion: CallbackTarget(callback: callback, userData: userData).report)
}

@_cdecl("noti_play_notify_reporting")
public func noti_play_notify_reporting(
    _ context: OpaquePointer?, _ request: UnsafeRawPointer?,
    _ callback: NotiPlayReportCallback?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UInt64 {
    let newest = MemoryLayout<noti_play_request>.offset(of: \noti_play_request.notification_id)! + MemoryLayout<UInt32>.size
    let olderHeader = request.map { $0.loadUnaligned(as: Int.self) < newest } ?? false
    return notify(context, request, error, completion: ReportTarget(callback: callback, userData: userData, olderHeader: olderHeader).report)
}

/// A notification's request, read through its C layout, played with `completion`.
private func notify(
    _ context: OpaquePointer?, _ request: UnsafeRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    completion: @escaping @Sendable (PlaybackReport) -> Void
) -> UInt64 {
    guard let request else { error?.pointee = strdup("no request given"); return 0 }
    // Through the C compiler's own layout, each field only where the caller's size covers it.
    var read = noti_play_request()
    guard noti_abi_read_request(request, &read) == 0 else {
        error?.pointee = strdup("the request's size field is \(request.loadUnaligned(as: Int.self)): start from NOTI_PLAY_REQUEST_INIT")
        return 0
    }
    var hints = NotificationRequest()
    hints.appName = string(read.app_name)
    hints.desktopEntry = string(read.desktop_entry)
    hints.soundFile = path(read.sound_file)
    hints.soundName = string(read.sound_name)
    hints.category = string(read.category)
    hints.suppressSound = read.suppress_sound != 0
    // Only the spec's 2 is critical: a value out of range must not pass quiet hours.
    hints.urgency = NotificationRequest.Urgency(rawValue: UInt8(clamping: read.urgency)) ?? .normal
    hints.volume = read.volume
    let flags = UInt32(read.flags)
    if let unknown = unknownFlags(flags, notification: true) { error?.pointee = strdup(unknown); return 0 }
    if flags & flagCritical != 0 { hints.urgency = .critical }
    hints.isRingtone = flags & flagRingtone != 0
    if flags & flagSuppress != 0 { hints.suppressSound = true }
    hints.isUpdate = flags & flagRequestUpdate != 0
    hints.hintsOnly = flags & flagRequestHintsOnly != 0
    hints.notificationID = read.notification_id == 0 ? nil : read.notification_id
    return play(context, error) { (player) throws(NotificationSoundError) in
        try player.play(hints, completion: completion)
    }
}

@_cdecl("noti_play_file")
public func noti_play_file(
    _ context: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ volume: Float, _ flags: UInt32,
    _ callback: NotiPlayCallback?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UInt64 {
    guard let path else { error?.pointee = strdup("no path given"); return 0 }
    return play(context, .file(bytes: bytes(path)), volume, flags, callback, userData, error)
}

@_cdecl("noti_play_name")
public func noti_play_name(
    _ context: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ volume: Float, _ flags: UInt32,
    _ callback: NotiPlayCallback?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UInt64 {
    guard let name else { error?.pointee = strdup("no sound name given"); return 0 }
    return play(context, .named(String(cString: name)), volume, flags, callback, userData, error)
}

@_cdecl("noti_play_theme_sound")
public func noti_play_theme_sound(
    _ context: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ volume: Float, _ flags: UInt32,
    _ callback: NotiPlayCallback?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UInt64 {
    guard let name else { error?.pointee = strdup("no sound name given"); return 0 }
    return play(context, .themeSound(String(cString: name)), volume, flags, callback, userData, error)
}

@_cdecl("noti_play_default")
public func noti_play_default(
    _ context: OpaquePointer?, _ volume: Float, _ flags: UInt32,
    _ callback: NotiPlayCallback?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UInt64 {
    play(context, .default, volume, flags, callback, userData, error)
}

@_cdecl("noti_play_cancel")
public func noti_play_cancel(_ context: OpaquePointer?, _ id: UInt64) {
    player(context)?.cancel(PlaybackID(rawValue: Int(truncatingIfNeeded: id)))
}

@_cdecl("noti_play_pause")
public func noti_play_pause(_ context: OpaquePointer?, _ id: UInt64) {
    player(context)?.pause(PlaybackID(rawValue: Int(truncatingIfNeeded: id)))
}

@_cdecl("noti_play_resume")
public func noti_play_resume(_ context: OpaquePointer?, _ id: UInt64) {
    player(context)?.resume(PlaybackID(rawValue: Int(truncatingIfNeeded: id)))
}

@_cdecl("noti_play_set_quiet")
public func noti_play_set_quiet(_ context: OpaquePointer?, _ quiet: Int32) {
    player(context)?.setQuiet(quiet < 0 ? nil : quiet != 0)
}

@_cdecl("noti_play_configure")
public func noti_play_configure(
    _ context: OpaquePointer?, _ settings: UnsafeRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    guard let player = player(context) else { error?.pointee = strdup("no noti_play context given"); return -1 }
    guard let settings else { error?.pointee = strdup("no settings given"); return -1 }
    var read = noti_play_settings()
    guard noti_abi_read_settings(settings, &read) == 0 else {
        error?.pointee = strdup("the settings' size field is too small: start from NOTI_PLAY_SETTINGS_INIT")
        return -1
    }
    // NOTI_PLAY_UNSET leaves a field to noti-play.conf; any other value out of range is
    // refused by the player's own check, with its reason.
    let unset = Int32(NOTI_PLAY_UNSET)
    func number<T: BinaryFloatingPoint>(_ value: T) -> T? { value == T(unset) ? nil : value }
    let swiftSettings = PlayerSettings(
        notificationVolume: number(read.notification_volume), theme: string(read.theme),
        defaultSound: path(read.default_sound), criticalSound: path(read.critical_sound), ringtoneSound: path(read.ringtone_sound),
        doNotDisturb: read.do_not_disturb == unset ? nil : read.do_not_disturb != 0,
        rateInterval: number(read.rate_interval), burstLimit: read.burst_limit == unset ? nil : Int(read.burst_limit),
        ringCap: number(read.ring_cap), readsUserConfiguration: read.read_user_configuration != 0)
    do {
        try player.configure(swiftSettings)
        return 0
    } catch let failure {
        error?.pointee = strdup(failure.description)
        return -1
    }
}

@_cdecl("noti_play_configuration_warnings")
public func noti_play_configuration_warnings(_ context: OpaquePointer?) -> UnsafeMutablePointer<CChar>? {
    guard let player = player(context) else { return nil }
    return strdup(player.configurationWarnings.map { $0 + "\n" }.joined())
}

@_cdecl("noti_play_free_string")
public func noti_play_free_string(_ string: UnsafeMutablePointer<CChar>?) {
    free(string)
}
