/// noti-play's version, written once for Swift: `noti-play --version` and the C library's
/// `noti_play_version()` both read it. noti-play.h's NOTI_PLAY_VERSION_* macros (read by
/// scripts/install.sh) must say the same; CommandTests' VersionTests checks that they do.
public enum NotiPlayVersion {
    /// "MAJOR.MINOR.PATCH". A StaticString so that C callers get a pointer that lives for ever.
    public static let text: StaticString = "0.4.0"
}
