import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// The C library as a C daemon uses it: installed with its header and pkg-config file, the
/// example daemon compiled with `gcc $(pkg-config --cflags --libs noti-play)`, run, and its
/// sounds checked on ALSA's `file:` device.
@Suite struct CLibraryTests {
    let folder = TemporaryDirectory("c-library")
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Installs what `swift build` made into a fresh prefix and builds the example daemon there.
    func buildDaemon() throws -> String {
        let prefix = folder.file("prefix")
        let buildDirectory = URL(fileURLWithPath: TestTools.notiPlay).deletingLastPathComponent().path
        try TestTools.runChecked(repository + "/scripts/install.sh", ["--prefix", prefix, "--from", buildDirectory])
        let pkgConfig = ["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"]
        let flags = try TestTools.run("pkg-config", ["--cflags", "--libs", "noti-play"], environment: pkgConfig)
        #expect(flags.status == 0, "\(flags.stderr)")
        let daemon = folder.file("noti-play-daemon")
        let compile = try TestTools.run("gcc", ["-Wall", "-Wextra", "-Werror", "-o", daemon, repository + "/docs/examples/noti-play-daemon.c"]
            + flags.stdoutText.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty })
        #expect(compile.status == 0, "\(compile.stderr)")
        return daemon
    }

    func run(_ daemon: String, _ requests: [String], capture: String) throws -> [String] {
        let input = folder.file("requests-\(UUID().uuidString)")
        try (requests.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let result = try TestTools.run("/bin/sh", ["-c", "\"$0\" < \"$1\"", daemon, input], environment: [
            "NOTI_PLAY_DEVICE": "file:FILE=\(capture),FORMAT=raw", "NOTI_PLAY_SOUNDS": folder.path,
            "XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdoutText.split(separator: "\n").map(String.init)
    }

    @Test func aCDaemonPlaysCancelsAndGetsItsCallbacks() throws {
        let daemon = try buildDaemon()
        let sound = folder.file("chime.caf")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=880:d=0.3", "-c:a", "adpcm_ima_qt", "-y", sound])
        let capture = folder.file("critical.raw")
        let lines = try run(daemon, [
            "name chime.caf 0.5 critical", "wait",
            "name ../chime.caf",
            "file \(repository)/Sounds/ringtone.caf 1 ringtone", "cancel 3", "wait",
            "quiet on", "name chime.caf", "wait", "quit",
        ], capture: capture)
        #expect(lines == [
            "started 1", "ended 1 finished ", "idle",
            "error sound name '../chime.caf' is refused: it contains '/': a sound name is a file name, not a path",
            "started 3", "ended 3 cancelled ", "idle",
            "started 4", "ended 4 silenced do not disturb is on", "idle",
        ])
        // The critical sound reached the device at exactly half volume, from its first frame; the
        // player opens devices in stereo at least, so the mono chime feeds both channels.
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let expected = try SoundDecoder(path: sound).readAll().flatMap { [$0 * Float(0.5), $0 * Float(0.5)] }
        #expect(Array(written.prefix(expected.count)) == expected)
    }

    @Test func theInstalledCommandPlaysItsInstalledSounds() throws {
        _ = try buildDaemon()
        let capture = folder.file("installed.raw")
        let result = try TestTools.run(folder.file("prefix/bin/noti-play"), ["--default", "--device", "file:FILE=\(capture),FORMAT=raw"],
                                       environment: ["XDG_CONFIG_HOME": folder.file("config")])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(written == (try SoundDecoder(path: folder.file("prefix/share/noti-play/sounds/default.caf")).readAll()))
        #expect(FileManager.default.fileExists(atPath: folder.file("prefix/share/man/man1/noti-play.1")))
    }
}
