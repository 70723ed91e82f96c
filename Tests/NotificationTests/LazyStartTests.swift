import Foundation
import NotiPlayTestSupport
import Testing

/// Issue 24: a daemon makes its player at start and may play nothing for hours. Until the first
/// sound, noti_play_new has started none of the player's threads (nor read its configuration,
/// nor made its cache): the process has the one thread it had. (What that saves in memory is
/// measured by scripts/measure/host-memory.py, not here.)
@Suite struct LazyStartTests {
    let folder = TemporaryDirectory("lazy-start")

    static let host = #"""
        #include <dirent.h>
        #include <pthread.h>
        #include <stdio.h>
        #include <noti-play.h>

        static int threads(void) {
            DIR *tasks = opendir("/proc/self/task");
            int count = 0;
            for (struct dirent *entry; (entry = readdir(tasks));) count += entry->d_name[0] != '.';
            closedir(tasks);
            return count;
        }

        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
        static int ended;

        static void sound_ended(uint64_t id, noti_play_result result, const char *detail, void *data) {
            (void)id; (void)detail; (void)data;
            pthread_mutex_lock(&lock);
            ended = result == NOTI_PLAY_FINISHED ? 1 : -1;
            pthread_cond_broadcast(&changed);
            pthread_mutex_unlock(&lock);
        }

        int main(int argc, char **argv) {
            if (argc != 3) return 64;
            printf("before %d\n", threads());
            noti_play *player = noti_play_new(argv[1], NULL, 0);
            if (!player) return 1;
            printf("made %d\n", threads());
            noti_play_set_quiet(player, 0);
            noti_play_cancel(player, 7);
            printf("idle calls %d\n", threads());
            if (!noti_play_file(player, argv[2], 1.0f, 0, sound_ended, NULL, NULL)) return 2;
            pthread_mutex_lock(&lock);
            while (!ended) pthread_cond_wait(&changed, &lock);
            pthread_mutex_unlock(&lock);
            printf("played %d %s\n", threads(), ended == 1 ? "finished" : "failed");
            noti_play_free(player);
            /* A player freed before its first sound starts nothing either. */
            noti_play *unused = noti_play_new(argv[1], NULL, 0);
            noti_play_free(unused);
            return 0;
        }
        """#

    @Test func noThreadStartsBeforeTheFirstSound() throws {
        let source = folder.file("host.c"), program = folder.file("host")
        try Self.host.write(toFile: source, atomically: true, encoding: .utf8)
        try InstalledLibrary(in: folder).compile(source, into: program)
        let sound = folder.file("tone.wav")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=0.1", "-c:a", "pcm_s16le", "-y", sound])
        let result = try TestTools.run(program, ["file:FILE=\(folder.file("played.raw")),FORMAT=raw", sound], environment: [
            "XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(3)) == ["before 1", "made 1", "idle calls 1"], "\(lines)")
        // The control thread and the callback thread at least, once a sound has played.
        let played = lines.count > 3 ? lines[3].split(separator: " ") : []
        #expect(played.count == 3 && played[0] == "played" && (Int(played[1]) ?? 0) >= 3 && played[2] == "finished", "\(lines)")
    }
}
