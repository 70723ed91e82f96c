import Foundation
import NotiPlayTestSupport
import Testing

/// The C library's noti_play_options on the private PipeWire, as a daemon compiled against the
/// installed library uses them: the backend it chose plays, and the desktop sees the stream as
/// the daemon's notification. Part of PipeWireTests (serialized, run on their own).
extension PipeWireTests {
    /// A daemon that names itself and a backend: it plays a 3 s file and prints how it ended.
    static let optionsDaemon = #"""
        #include <noti-play.h>
        #include <pthread.h>
        #include <stdio.h>
        #include <stdlib.h>

        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
        static int ended = -1;

        static void on_end(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
            (void)id; (void)user_data;
            pthread_mutex_lock(&lock);
            ended = (int)result;
            printf("ended %d %s\n", (int)result, detail);
            pthread_cond_signal(&changed);
            pthread_mutex_unlock(&lock);
        }

        int main(int argc, char **argv) {
            if (argc != 3) return 64;
            noti_play_options options = NOTI_PLAY_OPTIONS_INIT;
            options.backend = atoi(argv[1]);
            options.application_name = "Dunst";
            options.application_id = "org.knopwob.dunst";
            char *error = NULL;
            noti_play *player = noti_play_new_with_options(&options, &error);
            if (!player) {
                fprintf(stderr, "%s\n", error);
                noti_play_free_string(error);
                return 1;
            }
            if (noti_play_file(player, argv[2], 1.0f, 0, on_end, NULL, &error) == 0) {
                fprintf(stderr, "%s\n", error);
                return 1;
            }
            pthread_mutex_lock(&lock);
            while (ended < 0) pthread_cond_wait(&changed, &lock);
            pthread_mutex_unlock(&lock);
            noti_play_free(player);
            return ended == 0 ? 0 : 2;
        }
        """#

    func compileOptionsDaemon() throws -> String {
        let source = folder.file("options-daemon.c")
        try Self.optionsDaemon.write(toFile: source, atomically: true, encoding: .utf8)
        let program = folder.file("options-daemon")
        try InstalledLibrary(in: folder).compile(source, into: program)
        return program
    }

    /// NOTI_PLAY_BACKEND_PIPEWIRE (1): the stream is the daemon's own on the server (its name and
    /// id from the options, not "noti-play"), a notification, and the file plays to its end.
    /// NOTI_PLAY_BACKEND_ALSA (3): the same daemon through ALSA's default, which the rig routes
    /// through pipewire-alsa: a stream of that plugin's, still a notification.
    @Test func aCDaemonChoosesItsBackendAndNamesItsStream() throws {
        let server = try PipeWireServer()
        let daemon = try compileOptionsDaemon()
        let path = try tone("c-options.wav", seconds: 3)
        for (backend, key, value) in [(1, "application.id", "org.knopwob.dunst"), (3, "application.name", "PipeWire ALSA [options-daemon]")] {
            let player = try ChildProcess(daemon, [String(backend), path], environment: server.environment, in: folder)
            var node: [String: String] = [:]
            try waitUntil("backend \(backend)'s stream on the server", timeout: 10) {
                node = try server.nodeProperties(where: key, is: value).first?.compactMapValues { $0 as? String } ?? [:]
                return !node.isEmpty || player.poll() != nil
            }
            #expect(player.wait() == 0, "backend \(backend): \(player.stdout) \(player.stderr)")
            #expect(player.stdout == "ended 0 \n", "backend \(backend): \(player.stderr)")
            #expect(node["media.role"] == "Notification", "backend \(backend): \(node)")
            if backend == 1 {
                #expect(node["application.name"] == "Dunst" && node["node.name"] == "org.knopwob.dunst", "\(node)")
            }
        }
    }
}
