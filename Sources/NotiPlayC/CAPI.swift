import NotiPlay
#if canImport(Glibc)
import Glibc
#endif

// The C library: noti-play.h, implemented over NotificationSoundPlayer. A context is a retained
// NotificationSoundPlayer behind an opaque pointer.

public typealias NotiPlayCallback = @convention(c) (UInt64, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

private let flagCritical: UInt32 = 1 << 0
private let flagRingtone: UInt32 = 1 << 1
private let flagSuppress: UInt32 = 1 << 2

private func player(_ context: OpaquePointer?) -> NotificationSoundPlayer? {
    context.map { Unmanaged<NotificationSoundPlayer>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

/// noti-play.h's NOTI_PLAY_VERSION_* (CLibraryTests compiles a C check that the two agree).
private let version: StaticString = "0.1.0"

@_cdecl("noti_play_version")
public func noti_play_version() -> UnsafePointer<CChar> {
    UnsafeRawPointer(version.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("noti_play_new")
public func noti_play_new(
    _ device: UnsafePointer<CChar>?, _ folders: UnsafePointer<UnsafePointer<CChar>?>?, _ folderCount: Int
) -> OpaquePointer? {
    var appFolders: [String] = []
    for index in 0..<max(0, folderCount) {
        if let folder = folders?[index] { appFolders.append(String(cString: folder)) }
    }
    let configuration = NotificationSoundPlayer.Configuration(
        appFolders: appFolders, device: device.map { String(cString: $0) } ?? "default")
    let player = NotificationSoundPlayer(configuration: configuration)
    return OpaquePointer(Unmanaged.passRetained(player).toOpaque())
}

@_cdecl("noti_play_free")
public func noti_play_free(_ context: OpaquePointer?) {
    guard let context else { return }
    let unmanaged = Unmanaged<NotificationSoundPlayer>.fromOpaque(UnsafeRawPointer(context))
    unmanaged.takeUnretainedValue().close()
    unmanaged.release()
}

/// The user data pointer travels with the callback; it is the caller's, never dereferenced here.
private struct CallbackTarget: @unchecked Sendable {
    let callback: NotiPlayCallback?
    let userData: UnsafeMutableRawPointer?
}

private func play(
    _ context: OpaquePointer?, _ sound: NotificationSound, _ volume: Float, _ flags: UInt32,
    _ callback: NotiPlayCallback?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UInt64 {
    guard let player = player(context) else { return 0 }
    var sound = sound
    sound.isCritical = flags & flagCritical != 0
    sound.isRingtone = flags & flagRingtone != 0
    sound.criticalVolume = volume
    let target = CallbackTarget(callback: callback, userData: userData)
    let id = IDBox()
    do {
        let playback = try player.play(sound, suppressSound: flags & flagSuppress != 0, gain: sound.isCritical ? 1 : volume) { result in
            guard let callback = target.callback else { return }
            let (code, detail): (Int32, String) = switch result {
            case .finished: (0, "")
            case .cancelled: (1, "")
            case .silenced(let why): (2, why)
            case .failed(let why): (3, why)
            }
            detail.withCString { callback(id.value(), code, $0, target.userData) }
        }
        id.set(UInt64(playback.rawValue))
        return UInt64(playback.rawValue)
    } catch let failure {
        error?.pointee = strdup(failure.description)
        return 0
    }
}

/// The id reaches the callback even when the sound ends before `play` has returned it: the
/// callback, always on a player thread, waits the moment it takes.
private final class IDBox: @unchecked Sendable {
    private var id: UInt64 = 0
    private var lock = pthread_mutex_t()
    private var ready = pthread_cond_t()
    init() { pthread_mutex_init(&lock, nil); pthread_cond_init(&ready, nil) }
    deinit { pthread_mutex_destroy(&lock); pthread_cond_destroy(&ready) }
    func set(_ value: UInt64) {
        pthread_mutex_lock(&lock); id = value; pthread_cond_broadcast(&ready); pthread_mutex_unlock(&lock)
    }
    func value() -> UInt64 {
        pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }
        while id == 0 { pthread_cond_wait(&ready, &lock) }
        return id
    }
}

@_cdecl("noti_play_file")
public func noti_play_file(
    _ context: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ volume: Float, _ flags: UInt32,
    _ callback: NotiPlayCallback?, _ userData: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UInt64 {
    guard let path else { error?.pointee = strdup("no path given"); return 0 }
    // The path's bytes as they are: a file name need not be UTF-8.
    let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self), count: strlen(path)))
    return play(context, .file(bytes: bytes), volume, flags, callback, userData, error)
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

@_cdecl("noti_play_free_string")
public func noti_play_free_string(_ string: UnsafeMutablePointer<CChar>?) {
    free(string)
}
