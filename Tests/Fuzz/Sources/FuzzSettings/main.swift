import NotiPlay
#if canImport(Glibc)
import Glibc
#endif

// libFuzzer entry point: what a user or a notification hands the notification layer as text.
// The same bytes go through the configuration parser, the sound-name rule, and — written as a
// theme's index.theme — a real sound-theme lookup.

/// A private theme folder, made once: `<tmp>/sounds/fuzz/index.theme` is rewritten per input.
let themeBase: String = {
    var template = Array("/tmp/noti-play-fuzz-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
    let base = String(cString: made) + "/sounds"
    mkdir(base, 0o700)
    mkdir(base + "/fuzz", 0o700)
    return base
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)

    // The configuration file: whatever it says, the policy stays within its ranges and every
    // warning is one line.
    let (policy, warnings) = SoundPolicy.parse(text)
    precondition((0...1).contains(policy.notificationVolume))
    if let (start, end) = policy.quietHours { precondition((0...1440).contains(start) && (0...1440).contains(end)) }
    precondition(warnings.allSatisfy { !$0.contains("\n") })
    for minute in stride(from: 0, to: 1440, by: 97) { _ = policy.isQuiet(atMinute: minute) }

    // A sound name: accepted only when it cannot leave its folder.
    if (try? SoundName.validate(text)) != nil {
        precondition(!text.utf8.contains(UInt8(ascii: "/")) && text != "." && text != ".." && !text.isEmpty)
        precondition(!text.utf8.contains { $0 < 0x20 || $0 == 0x7F } && text.utf8.count <= 255)
    }

    // An index.theme: parsed through a lookup that must end (Inherits may loop).
    if let file = fopen(themeBase + "/fuzz/index.theme", "w") {
        _ = fwrite(data, 1, size, file)
        fclose(file)
    }
    var theme = SoundTheme(name: "fuzz")
    theme.baseFolders = [themeBase]
    _ = theme.lookup("message-new-instant")
    return 0
}
