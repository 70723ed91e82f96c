import Foundation
import NotiPlayDecoder
import NotiPlayTestSupport
import Testing

/// docs/examples/glib-notification-daemon.c as a maintainer would build it (GLib's GIO and the
/// installed libnoti-play, through pkg-config), run as the session's notification server on a
/// private bus, sent real notifications by notify-send and gdbus; what it played is read back
/// from ALSA's tap.
@Suite struct GLibDaemonTests {
    let folder = TemporaryDirectory("glib-daemon")

    @Test func theExampleDaemonPlaysUpdatesNothingClosesARingtoneAndPauses() throws {
        let program = folder.file("glib-notification-daemon")
        try InstalledLibrary(in: folder).compile(Repository.path + "/docs/examples/glib-notification-daemon.c", into: program,
                                                 extraPackages: ["gio-2.0", "gio-unix-2.0"])
        let rig = try ListenRig()
        let chime = rig.folder.file("chime.wav")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=880:d=0.2", "-ac", "2", "-c:a", "pcm_s16le", "-y", chime])
        let daemon = try rig.spawn(program, [])
        try waitUntil("the daemon to own the name", timeout: 10) { daemon.stdout.hasPrefix("ready\n") || daemon.poll() != nil }
        /// Waits for a line that starts with `line` (a warning may follow: the theme has no ringtone).
        func waitForLine(_ line: String) throws {
            do {
                try waitUntil("'\(line)' from the daemon", timeout: 10) {
                    daemon.stdout.split(separator: "\n").contains { $0.hasPrefix(line) }
                }
            } catch {
                throw RigFailure("waiting for '\(line)'", "the daemon said:\n\(daemon.stdout)\(daemon.stderr)")
            }
        }

        // A notification's own sound plays, exactly; its progress update is silent.
        let first = try rig.notifySend(["-a", "Chat", "-h", "string:sound-file:\(chime)"])
        try waitForLine("ended \(first) finished")
        #expect(try rig.notifySend(["-a", "Chat", "-r", String(first), "-h", "int:value:40"]) == first)
        try waitForLine("ended \(first) silenced an update of a notification names no sound of its own")
        // A call rings until its notification is closed, though its text was updated meanwhile.
        let call = try rig.notifySend(["-a", "Phone", "-h", "string:category:call.incoming"])
        usleep(300_000)
        #expect(try rig.notifySend(["-a", "Phone", "-r", String(call)]) == call)
        try waitForLine("ended \(call) silenced an update of a notification names no sound of its own")
        #expect(try rig.gdbus("CloseNotification", [String(call)]).status == 0)
        try waitForLine("ended \(call) cancelled")
        // Paused, the next call's ringing ends, and a critical sound still plays.
        let second = try rig.notifySend(["-a", "Phone2", "-h", "string:category:call.incoming"])
        usleep(300_000)
        daemon.signal(SIGUSR1)
        try waitForLine("ended \(second) silenced do not disturb is on")
        let critical = try rig.notifySend(["-a", "Alarm", "-u", "critical", "-h", "string:sound-file:\(chime)"])
        try waitForLine("ended \(critical) finished")
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        #expect(!daemon.stdout.contains("ended \(call) finished"), "the call rang to its cap: \(daemon.stdout)")

        // The tap: the chime, then the critical chime (the ringtones in between, cut short).
        let played = try rig.tap.captured().withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let sound = try SoundDecoder(path: chime).readAll()
        #expect(Array(played.prefix(sound.count)) == sound, "the first chime is not what was played")
        #expect(Array(played.suffix(sound.count)) == sound, "the critical chime is not what was played last")
    }
}
