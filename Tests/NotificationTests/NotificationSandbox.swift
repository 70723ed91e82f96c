import Foundation
import NotiPlayTestSupport

/// An isolated user for the command: its own configuration and data folders, sounds written by
/// ffmpeg, and ALSA's file tap to read back what reached the PCM.
struct NotificationSandbox {
    let folder: TemporaryDirectory

    /// No configuration, no sound folders, unless a test writes them.
    func environment(_ tap: ALSATap, config: String? = nil) throws -> [String: String] {
        let configHome = folder.file("config-\(UUID().uuidString)")
        if let config {
            try FileManager.default.createDirectory(atPath: configHome + "/noti-play", withIntermediateDirectories: true)
            try config.write(toFile: configHome + "/noti-play/noti-play.conf", atomically: true, encoding: .utf8)
        }
        return tap.environment.merging([
            "XDG_CONFIG_HOME": configHome, "XDG_DATA_HOME": folder.file("data"), "XDG_DATA_DIRS": "/usr/share",
        ]) { $1 }
    }

    /// A 523 Hz stereo tone: IMA4 in CAF, or 16-bit PCM for a `.wav` name.
    func tone(_ name: String, seconds: Double, in directory: String? = nil) throws -> String {
        let path = (directory ?? folder.path) + "/" + name
        try FileManager.default.createDirectory(atPath: directory ?? folder.path, withIntermediateDirectories: true)
        let codec = name.hasSuffix(".wav") ? "pcm_s16le" : "adpcm_ima_qt"
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=523:d=\(seconds)", "-ac", "2",
                                            "-c:a", codec, "-y", path])
        return path
    }

    /// The Float samples the tap recorded (none if the device was never written).
    func captured(_ tap: ALSATap) throws -> [Float] {
        guard FileManager.default.fileExists(atPath: tap.capturePath) else { return [] }
        return try tap.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
