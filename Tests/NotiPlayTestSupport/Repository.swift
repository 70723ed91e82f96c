import Foundation

/// The checkout the tests run from.
public enum Repository {
    /// Its root folder.
    public static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// MAJOR.MINOR.PATCH from noti-play.h's NOTI_PLAY_VERSION_* macros, the version scripts/install.sh
    /// names the library after.
    public static func headerVersion() throws -> String {
        let header = try String(contentsOfFile: path + "/Sources/NotiPlayC/noti-play.h", encoding: .utf8)
        let parts = try ["MAJOR", "MINOR", "PATCH"].map { part in
            let prefix = "#define NOTI_PLAY_VERSION_\(part) "
            guard let line = header.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
                  let number = Int(line.dropFirst(prefix.count)) else {
                throw RigFailure("noti-play.h", "no \(prefix)NUMBER line")
            }
            return String(number)
        }
        return parts.joined(separator: ".")
    }
}
