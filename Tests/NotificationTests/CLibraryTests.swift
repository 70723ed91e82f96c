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
        try build(repository + "/docs/examples/noti-play-daemon.c", named: "noti-play-daemon")
    }

    /// Installs what `swift build` made into a fresh prefix and compiles `source` against it
    /// with `pkg-config --cflags --libs noti-play` and `extraPackages`.
    func build(_ source: String, named name: String, extraPackages: [String] = []) throws -> String {
        let program = folder.file(name)
        try InstalledLibrary(in: folder).compile(source, into: program, extraPackages: extraPackages)
        return program
    }

    func run(_ daemon: String, _ requests: [String], capture: String) throws -> [String] {
        let input = folder.file("requests-\(UUID().uuidString)")
        try (requests.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        // From /: the library finds its bundled sounds from its own location, not the working folder's.
        let result = try TestTools.run("/bin/sh", ["-c", "cd / && exec \"$0\" < \"$1\"", daemon, input], environment: [
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
            "file \(repository)/Sounds/ringtone.caf 1 ringtone", "cancel 2", "wait",
            "quiet on", "name chime.caf", "wait", "quit",
        ], capture: capture)
        // A refused call spends no id.
        #expect(lines == [
            "started 1", "ended 1 finished ", "idle",
            "error sound name '../chime.caf' is refused: it contains '/': a sound name is a file name, not a path",
            "started 2", "ended 2 cancelled ", "idle",
            "started 3", "ended 3 silenced do not disturb is on", "idle",
        ])
        // The critical sound reached the device at exactly half volume, from its first frame; the
        // player opens devices in stereo at least, so the mono chime feeds both channels.
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let expected = try SoundDecoder(path: sound).readAll().flatMap { [$0 * Float(0.5), $0 * Float(0.5)] }
        #expect(Array(written.prefix(expected.count)) == expected)
    }

    /// One call per notification, with the hints as the Desktop Notifications Specification gives
    /// them: the app's own folder by desktop entry (per call), a name no folder holds (the default
    /// plays, with a warning), suppress-sound, a category; the default sound from the installed
    /// library's own share folder, the daemon running from / and installed elsewhere.
    @Test func aNotificationsHintsThroughTheCLibrary() throws {
        let daemon = try buildDaemon()
        let appFolder = folder.file("data/noti-play/apps/org.example.Chat/sounds")
        try FileManager.default.createDirectory(atPath: appFolder, withIntermediateDirectories: true)
        let chime = appFolder + "/chime.caf"
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=880:d=0.2", "-ac", "2", "-c:a", "adpcm_ima_qt", "-y", chime])
        let capture = folder.file("hints.raw")
        let lines = try run(daemon, [
            "notify desktop-entry=org.example.Chat sound-name=chime.caf", "wait",
            "notify app-name=Other sound-name=chime.caf", "wait",
            "notify category=im.received suppress-sound=true", "wait",
            "default", "wait", "quit",
        ], capture: capture)
        #expect(lines.count == 12, "\(lines)")
        #expect(Array(lines.prefix(3)) == ["started 1", "ended 1 finished ", "idle"])
        #expect(lines.count > 4 && lines[4].hasPrefix("ended 2 finished sound 'chime.caf' was not found in ")
            && lines[4].hasSuffix("; the default sound plays instead"), "\(lines)")
        #expect(Array(lines.dropFirst(6)) == [
            "started 3", "ended 3 silenced the notification asks for no sound (suppress-sound)", "idle",
            "started 4", "ended 4 finished ", "idle",
        ])
        let bundled = try SoundDecoder(path: folder.file("prefix/share/noti-play/sounds/default.caf")).readAll()
        let expected = try SoundDecoder(path: chime).readAll() + bundled.flatMap { [$0, $0] } + bundled.flatMap { [$0, $0] }
        #expect(try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } == expected)
    }

    /// A daemon's whole job in the library: an update (NOTI_PLAY_REQUEST_UPDATE, a progress
    /// bar's next value) is silent unless it names its own sound or is critical; with
    /// NOTI_PLAY_REQUEST_HINTS_ONLY a notification without sound hints is silenced, not given
    /// the default sound. Each app is its own, so that the rate limit plays no part here: what
    /// plays is read back at the tap.
    @Test func updatesAndHintsOnlyThroughTheCLibrary() throws {
        let daemon = try buildDaemon()
        let chime = folder.file("chime.caf")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=880:d=0.2", "-ac", "2", "-c:a", "adpcm_ima_qt", "-y", chime])
        let capture = folder.file("flags.raw")
        let lines = try run(daemon, [
            "notify app-name=Progress update", "wait",
            "notify app-name=Player update sound-name=chime.caf", "wait",
            "notify app-name=Alarm update urgency=2 volume=0.5", "wait",
            "notify app-name=Volume hints-only", "wait",
            "notify app-name=Chat hints-only sound-name=chime.caf", "wait", "quit",
        ], capture: capture)
        #expect(lines == [
            "started 1", "ended 1 silenced an update of a notification names no sound of its own", "idle",
            "started 2", "ended 2 finished ", "idle",
            "started 3", "ended 3 finished ", "idle",
            "started 4", "ended 4 silenced the notification's hints name no sound, and only hinted sounds play", "idle",
            "started 5", "ended 5 finished ", "idle",
        ])
        // The chime, the bundled critical sound at exactly half volume (mono, on both speakers), the chime.
        let tone = try SoundDecoder(path: chime).readAll()
        let critical = try SoundDecoder(path: folder.file("prefix/share/noti-play/sounds/critical.caf"))
        #expect(critical.description.channelCount == 1)
        let expected = tone + (try critical.readAll()).flatMap { [$0 * Float(0.5), $0 * Float(0.5)] } + tone
        #expect(try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } == expected)
    }

    /// The rate rule through the C library, with its defaults: a second sound of one app within a
    /// second of the first is silenced with the reason; a critical one of that app passes.
    @Test func aSecondSoundOfOneAppIsSilencedButACriticalOnePassesThroughTheCLibrary() throws {
        let daemon = try buildDaemon()
        let chime = folder.file("chime.caf")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=880:d=0.2", "-ac", "2", "-c:a", "adpcm_ima_qt", "-y", chime])
        let capture = folder.file("rate.raw")
        let lines = try run(daemon, [
            "notify app-name=Chat sound-name=chime.caf", "notify app-name=Chat sound-name=chime.caf", "wait",
            "notify app-name=Chat sound-name=chime.caf urgency=2", "wait", "quit",
        ], capture: capture)
        // The first may end before or after the second is silenced: the tap has no clock.
        #expect(lines.count == 8, "\(lines)")
        #expect(lines.prefix(5).sorted() == [
            "ended 1 finished ", "ended 2 silenced rate limit: this app's last sound started less than 1.0 s ago",
            "idle", "started 1", "started 2",
        ].sorted(), "\(lines)")
        #expect(lines.last == "idle" && lines.dropFirst(5).prefix(2) == ["started 3", "ended 3 finished "], "\(lines)")
        let tone = try SoundDecoder(path: chime).readAll()
        #expect(try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } == tone + tone)
    }

    /// The other play calls name their sound: a request flag there is a mistake, refused at once.
    @Test func requestFlagsAreForNotificationsOnly() throws {
        let source = folder.file("request-flags.c")
        try #"""
            #include <noti-play.h>
            #include <stdio.h>
            int main(void) {
                noti_play *player = noti_play_new("null", NULL, 0);
                char *error = NULL;
                if (noti_play_default(player, 1.0f, NOTI_PLAY_REQUEST_HINTS_ONLY, NULL, NULL, &error) != 0) return 1;
                printf("%s\n", error ? error : "(none)");
                noti_play_free_string(error);
                noti_play_free(player);
                return 0;
            }
            """#.write(toFile: source, atomically: true, encoding: .utf8)
        let program = try build(source, named: "request-flags")
        let result = try TestTools.run(program, [], environment: ["XDG_CONFIG_HOME": folder.file("config")])
        #expect(result.status == 0 && result.stdoutText
            == "NOTI_PLAY_REQUEST_UPDATE and NOTI_PLAY_REQUEST_HINTS_ONLY are for noti_play_notify: this call names its sound itself\n",
            "\(result.stdoutText) \(result.stderr)")
    }

    /// What the user got wrong in noti-play.conf reaches the daemon to log: before, only the
    /// command printed it, and a daemon's user was told nothing.
    @Test func aDaemonGetsTheConfigurationsWarningsToLog() throws {
        try FileManager.default.createDirectory(atPath: folder.file("config/noti-play"), withIntermediateDirectories: true)
        try "notification-volume = 7\nbogus = 1\ndo-not-disturb = true\n"
            .write(toFile: folder.file("config/noti-play/noti-play.conf"), atomically: true, encoding: .utf8)
        let source = folder.file("configuration-warnings.c")
        try #"""
            #include <noti-play.h>
            #include <stdio.h>
            int main(void) {
                noti_play *player = noti_play_new("null", NULL, 0);
                char *warnings = noti_play_configuration_warnings(player);
                if (!warnings || noti_play_configuration_warnings(NULL)) return 1;
                fputs(warnings, stdout);
                noti_play_free_string(warnings);
                noti_play_free(player);
                return 0;
            }
            """#.write(toFile: source, atomically: true, encoding: .utf8)
        let program = try build(source, named: "configuration-warnings")
        let result = try TestTools.run(program, [], environment: ["XDG_CONFIG_HOME": folder.file("config")])
        let file = folder.file("config/noti-play/noti-play.conf")
        #expect(result.status == 0 && result.stdoutText
            == "\(file):1: notification-volume must be from 0.0 to 1.0, not '7'\n\(file):2: unknown key 'bogus'\n",
            "\(result.stdoutText) \(result.stderr)")
        // A file without faults: nothing to log.
        try "do-not-disturb = true\n".write(toFile: file, atomically: true, encoding: .utf8)
        let clean = try TestTools.run(program, [], environment: ["XDG_CONFIG_HOME": folder.file("config")])
        #expect(clean.status == 0 && clean.stdoutText.isEmpty, "\(clean.stdoutText) \(clean.stderr)")
    }

    /// A host whose process may start no more threads (RLIMIT_NPROC, which binds users other
    /// than root) gets NULL from noti_play_new, not a crash: the daemon says so and exits 1.
    @Test func noThreadToBeHadIsAnErrorNotACrash() throws {
        let daemon = try buildDaemon()
        try TestTools.runChecked("chmod", ["-R", "a+rX", folder.path])
        let run = { (limit: [String]) in
            try TestTools.run("/bin/sh", ["-c", "echo version | \"$@\"", "sh"] + limit
                + ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "XDG_CONFIG_HOME=/nonexistent", daemon])
        }
        let limited = try run(["prlimit", "--nproc=1"])
        #expect(limited.status == 1, "\(limited.stdoutText) \(limited.stderr)")
        #expect(limited.stderr == "noti-play-daemon: the player could not start (no memory, or no thread to be had)\n")
        let unlimited = try run([])
        // noti_play_version() (NotiPlayVersion, Swift's one place) and the header's macros agree.
        let words = unlimited.stdoutText.split(separator: " ")
        #expect(unlimited.status == 0 && words.count == 3 && words[0] == "version" && words[2] == words[1] + "\n",
                "\(unlimited.stdoutText) \(unlimited.stderr)")
    }

    /// The structs are read as the C compiler lays them out, each field only where the caller's
    /// `size` covers it: a host built against an older, shorter struct has its later fields
    /// ignored, whatever bytes follow. And what a call refuses at once, it refuses with a message.
    @Test func theStructsAreReadByTheirSizeAndRefusalsSayWhy() throws {
        let source = folder.file("layout.c")
        try #"""
            #include <noti-play.h>
            #include <stddef.h>
            #include <string.h>
            int main(void) {
                noti_play_request request = NOTI_PLAY_REQUEST_INIT;
                if (request.size != sizeof request) return 1;
                /* What is refused at once: flags this header does not define, a theme name that is a path. */
                noti_play *player = noti_play_new("null", NULL, 0);
                char *error = NULL;
                if (noti_play_default(player, 1.0f, 0x80u, NULL, NULL, &error) != 0 || !error
                    || strcmp(error, "unknown flags 0x80 (noti-play.h defines NOTI_PLAY_CRITICAL, _RINGTONE, _SUPPRESS, _REQUEST_UPDATE and _REQUEST_HINTS_ONLY)") != 0) return 2;
                noti_play_free_string(error);
                error = NULL;
                request.flags = 0x100u;
                if (noti_play_notify(player, &request, NULL, NULL, &error) != 0 || !error) return 3;
                noti_play_free_string(error);
                error = NULL;
                if (noti_play_theme_sound(player, "../../etc/passwd", 1.0f, 0, NULL, NULL, &error) != 0 || !error) return 4;
                noti_play_free_string(error);
                error = NULL;
                /* A request of an older header's size: its flags field, beyond, is not read. */
                request.size = offsetof(noti_play_request, flags);
                if (noti_play_notify(player, &request, NULL, NULL, &error) == 0) return 5;
                noti_play_free(player);

                /* Options: a backend the header does not define is refused with the reason ... */
                noti_play_options options = NOTI_PLAY_OPTIONS_INIT;
                options.device = "null";
                options.backend = 99;
                if (noti_play_new_with_options(&options, &error) != NULL || !error
                    || strcmp(error, "unknown backend 99 (noti-play.h defines NOTI_PLAY_BACKEND_AUTO, _PIPEWIRE, _PULSEAUDIO and _ALSA)") != 0) return 6;
                noti_play_free_string(error);
                error = NULL;
                /* ... unless the caller's size ends before it; a size that holds no size is refused. */
                options.size = offsetof(noti_play_options, backend);
                if (!(player = noti_play_new_with_options(&options, &error))) return 7;
                noti_play_free(player);
                options.size = 1;
                if (noti_play_new_with_options(&options, &error) != NULL || !error) return 8;
                noti_play_free_string(error);
                /* No options at all: every default. */
                if (!(player = noti_play_new_with_options(NULL, NULL))) return 9;
                noti_play_free(player);
                return 0;
            }
            """#.write(toFile: source, atomically: true, encoding: .utf8)
        let program = try build(source, named: "layout")
        let result = try TestTools.run(program, [])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// A daemon drives the settings from its own configuration (noti_play_configure): its
    /// notification volume applies (the tap holds the chime at half), noti-play.conf is read
    /// or not as it says (the user's do-not-disturb there), its do-not-disturb silences, its
    /// rate limit of 0 lets one app's sounds follow each other and the default one does not,
    /// and settings that can never apply are refused with the reason, nothing changed.
    @Test func aDaemonsOwnSettingsWinOverTheUsersFile() throws {
        let source = folder.file("settings.c")
        try #"""
            #include <noti-play.h>
            #include <pthread.h>
            #include <stdio.h>
            #include <stdlib.h>

            static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
            static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
            static int answered = 0;

            static void on_end(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
                (void)user_data;
                pthread_mutex_lock(&lock);
                printf("%llu %d %s\n", (unsigned long long)id, (int)result, detail);
                answered++;
                pthread_cond_signal(&changed);
                pthread_mutex_unlock(&lock);
            }

            static void wait_for(int count) {
                pthread_mutex_lock(&lock);
                while (answered < count) pthread_cond_wait(&changed, &lock);
                pthread_mutex_unlock(&lock);
            }

            static void configure(noti_play *player, noti_play_settings *settings) {
                char *error = NULL;
                if (noti_play_configure(player, settings, &error) != 0) {
                    printf("refused: %s\n", error);
                    noti_play_free_string(error);
                }
            }

            int main(int argc, char **argv) {
                if (argc != 3) return 64;
                noti_play_options options = NOTI_PLAY_OPTIONS_INIT;
                options.device = argv[1];
                noti_play *player = noti_play_new_with_options(&options, NULL);
                noti_play_request chat = NOTI_PLAY_REQUEST_INIT;
                chat.desktop_entry = "org.example.Chat";
                chat.sound_file = argv[2];

                /* The user's file says do-not-disturb: read, it silences; not read, the chime plays at half. */
                noti_play_settings settings = NOTI_PLAY_SETTINGS_INIT;
                configure(player, &settings);
                noti_play_notify(player, &chat, on_end, NULL, NULL);
                wait_for(1);
                settings.read_user_configuration = 0;
                settings.notification_volume = 0.5f;
                settings.rate_interval = 0;
                configure(player, &settings);
                noti_play_notify(player, &chat, on_end, NULL, NULL);
                wait_for(2);
                /* Rate limit off: the same app again plays (silent here, at volume 0). */
                settings.notification_volume = 0;
                configure(player, &settings);
                noti_play_notify(player, &chat, on_end, NULL, NULL);
                wait_for(3);
                /* The default rate limit again: one sound per app a second. */
                settings.rate_interval = NOTI_PLAY_UNSET;
                configure(player, &settings);
                noti_play_notify(player, &chat, on_end, NULL, NULL);
                noti_play_notify(player, &chat, on_end, NULL, NULL);
                wait_for(5);
                /* The daemon's own do-not-disturb. */
                settings.rate_interval = 0;
                settings.do_not_disturb = 1;
                configure(player, &settings);
                noti_play_notify(player, &chat, on_end, NULL, NULL);
                wait_for(6);
                /* Refused whole: nothing changes (do-not-disturb stays on). */
                noti_play_settings bad = NOTI_PLAY_SETTINGS_INIT;
                bad.notification_volume = 2.0f;
                configure(player, &bad);
                bad.notification_volume = NOTI_PLAY_UNSET;
                bad.theme = "../x";
                configure(player, &bad);
                noti_play_notify(player, &chat, on_end, NULL, NULL);
                wait_for(7);
                noti_play_free(player);
                return 0;
            }
            """#.write(toFile: source, atomically: true, encoding: .utf8)
        let program = try build(source, named: "settings")
        let chime = folder.file("settings-chime.wav")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=880:d=0.2", "-ac", "2", "-c:a", "pcm_s16le", "-y", chime])
        let config = folder.file("settings-config/noti-play")
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "do-not-disturb = true\n".write(toFile: config + "/noti-play.conf", atomically: true, encoding: .utf8)
        let capture = folder.file("settings.raw")
        let result = try TestTools.run(program, ["file:FILE=\(capture),FORMAT=raw", chime],
                                       environment: ["XDG_CONFIG_HOME": folder.file("settings-config")])
        #expect(result.status == 0, "\(result.stderr)")
        let dnd = "2 do not disturb is on"
        #expect(result.stdoutText.split(separator: "\n").map(String.init) == [
            "1 \(dnd)", "2 0 ", "3 0 ",
            // The third played less than a second before: the limit, back on, holds both.
            "4 2 rate limit: this app's last sound started less than 1.0 s ago",
            "5 2 rate limit: this app's last sound started less than 1.0 s ago",
            "6 \(dnd)",
            "refused: settings refused: the notification volume 2.0 is outside 0.0 to 1.0",
            "refused: settings refused: theme '../x' is refused: it contains '/': a theme name names one folder (sounds/NAME), not a path",
            "7 \(dnd)",
        ], "\(result.stdoutText)")
        // The chime at half volume, then (volume 0) silence: nothing else.
        let chimeSamples = try SoundDecoder(path: chime).readAll()
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(written.count == 2 * chimeSamples.count, "\(written.count) samples")
        #expect(Array(written.prefix(chimeSamples.count)) == chimeSamples.map { $0 * 0.5 }, "the first chime is not at half volume")
    }

    /// noti_play_notify_reporting: the end as a noti_play_report, with an error code a host can
    /// act on and the file that played: the WAV named; the path of a sound-file that is not there
    /// (unreadable); none for a suppressed sound; a file that is no sound, its format unsupported. A critical
    /// request right after noti_play_configure plays the critical sound configured (critical
    /// requests are looked up ahead of others, and used to overtake the settings).
    @Test func aReportSaysWhichFilePlayedAndWhyOneDidNot() throws {
        let source = folder.file("report.c")
        try #"""
            #include <noti-play.h>
            #include <pthread.h>
            #include <stdio.h>
            #include <string.h>

            static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
            static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
            static int answered = 0;

            static void on_end(const noti_play_report *report, void *user_data) {
                (void)user_data;
                pthread_mutex_lock(&lock);
                printf("%llu result %d error %d file %s size-ok %d detail %s\n", (unsigned long long)report->id,
                       (int)report->result, (int)report->error, report->file ? report->file : "(none)",
                       report->size >= sizeof *report, report->detail);
                answered++;
                pthread_cond_signal(&changed);
                pthread_mutex_unlock(&lock);
            }

            static void play(noti_play *player, const char *file, int suppress) {
                noti_play_request request = NOTI_PLAY_REQUEST_INIT;
                request.sound_file = file;
                request.suppress_sound = suppress;
                int before = answered;
                if (noti_play_notify_reporting(player, &request, on_end, NULL, NULL) == 0) { printf("refused\n"); return; }
                pthread_mutex_lock(&lock);
                while (answered == before) pthread_cond_wait(&changed, &lock);
                pthread_mutex_unlock(&lock);
            }

            int main(int argc, char **argv) {
                if (argc != 4) return 64;
                noti_play_options options = NOTI_PLAY_OPTIONS_INIT;
                options.device = argv[1];
                noti_play *player = noti_play_new_with_options(&options, NULL);
                noti_play_settings settings = NOTI_PLAY_SETTINGS_INIT;
                settings.rate_interval = settings.burst_limit = 0;
                settings.read_user_configuration = 0;
                settings.critical_sound = argv[2];
                noti_play_configure(player, &settings, NULL);
                /* Critical requests go ahead of the others: not ahead of the settings before them. */
                noti_play_request critical = NOTI_PLAY_REQUEST_INIT;
                critical.urgency = 2;
                int before = answered;
                noti_play_notify_reporting(player, &critical, on_end, NULL, NULL);
                pthread_mutex_lock(&lock);
                while (answered == before) pthread_cond_wait(&changed, &lock);
                pthread_mutex_unlock(&lock);
                play(player, argv[2], 0);
                play(player, "/nonexistent/gone.wav", 0);
                play(player, argv[2], 1);
                play(player, argv[3], 0);
                noti_play_free(player);
                return 0;
            }
            """#.write(toFile: source, atomically: true, encoding: .utf8)
        let program = try build(source, named: "report")
        let chime = folder.file("report-chime.wav")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=880:d=0.1", "-ac", "2", "-c:a", "pcm_s16le", "-y", chime])
        let text = folder.file("report-not-a-sound.wav")
        try "not a sound\n".write(toFile: text, atomically: true, encoding: .utf8)
        let result = try TestTools.run("/bin/sh", ["-c", "cd / && exec \"$0\" \"$1\" \"$2\" \"$3\"", program,
                                                   "file:FILE=\(folder.file("report.raw")),FORMAT=raw", chime, text],
                                       environment: ["XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        try #require(lines.count == 5, "\(lines)")
        #expect(lines[0] == "1 result 0 error 0 file \(chime) size-ok 1 detail ", "the critical default configured: \(lines[0])")
        #expect(lines[1] == "2 result 0 error 0 file \(chime) size-ok 1 detail ", "\(lines[1])")
        #expect(lines[2] == "3 result 3 error 3 file /nonexistent/gone.wav size-ok 1 detail /nonexistent/gone.wav: cannot open: No such file or directory",
                "\(lines[2])")
        #expect(lines[3] == "4 result 2 error 1 file (none) size-ok 1 detail the notification asks for no sound (suppress-sound)", "\(lines[3])")
        #expect(lines[4].hasPrefix("5 result 3 error 7 file \(text) ") && lines[4].contains("detail \(text): "), "\(lines[4])")
    }

    /// noti_play_configure's default sound is opened by its bytes: a file whose name is not UTF-8
    /// (Latin-1's "ÿ", byte 0xFF) plays as the default, with no warning, and the report names it
    /// escaped. A relative path is refused at the call, with the reason: at each sound it would
    /// have been opened from whatever the daemon's working folder was. Before, the name went
    /// through a Swift String (0xFF became U+FFFD, a file that is not there) and the relative path
    /// was taken.
    @Test func aConfiguredDefaultSoundIsOpenedByItsBytesAndMustBeAbsolute() throws {
        let source = folder.file("configured-bytes.c")
        try #"""
            #include <noti-play.h>
            #include <pthread.h>
            #include <stddef.h>
            #include <stdio.h>

            static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
            static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
            static int answered = 0;

            static void on_end(const noti_play_report *report, void *user_data) {
                (void)user_data;
                pthread_mutex_lock(&lock);
                printf("result %d error %d warnings %u file %s detail %s\n", (int)report->result, (int)report->error,
                       report->warnings, report->file ? report->file : "(none)", report->detail);
                answered = 1;
                pthread_cond_signal(&changed);
                pthread_mutex_unlock(&lock);
            }

            int main(int argc, char **argv) {
                if (argc != 3) return 64;
                noti_play_options options = NOTI_PLAY_OPTIONS_INIT;
                options.device = argv[1];
                noti_play *player = noti_play_new_with_options(&options, NULL);
                noti_play_settings settings = NOTI_PLAY_SETTINGS_INIT;
                settings.read_user_configuration = 0;
                settings.default_sound = "sounds/bell.wav";
                char *error = NULL;
                int refused = noti_play_configure(player, &settings, &error);
                printf("relative %d %s\n", refused, error ? error : "(none)");
                noti_play_free_string(error);
                char path[4096];
                snprintf(path, sizeof path, "%s/bell-\xff.wav", argv[2]);
                settings.default_sound = path;
                if (noti_play_configure(player, &settings, NULL) != 0) return 1;
                noti_play_request request = NOTI_PLAY_REQUEST_INIT;
                if (noti_play_notify_reporting(player, &request, on_end, NULL, NULL) == 0) return 1;
                pthread_mutex_lock(&lock);
                while (!answered) pthread_cond_wait(&changed, &lock);
                pthread_mutex_unlock(&lock);
                noti_play_free(player);
                return 0;
            }
            """#.write(toFile: source, atomically: true, encoding: .utf8)
        let program = try build(source, named: "configured-bytes")
        let bell = folder.file("bell.wav")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=660:d=0.2", "-ac", "2", "-c:a", "pcm_s16le", "-y", bell])
        // The name's last byte before ".wav" is 0xFF, which no UTF-8 string holds: made by the shell.
        try TestTools.runChecked("/bin/sh", ["-c", #"cp "$1" "$2/bell-$(printf '\377').wav""#, "sh", bell, folder.path])
        let capture = folder.file("configured-bytes.raw")
        let result = try TestTools.run("/bin/sh", ["-c", "cd / && exec \"$@\"", "sh", program, "file:FILE=\(capture),FORMAT=raw", folder.path],
                                       environment: ["XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines == [
            "relative -1 settings refused: the default sound's path 'sounds/bell.wav' is not absolute: it would be opened from the working folder at each sound",
            "result 0 error 0 warnings 0 file \(folder.path)/bell-\\xFF.wav detail ",
        ], "\(lines)")
        let played = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(played == (try SoundDecoder(path: bell).readAll()), "\(played.count) samples played")
    }

    /// Issue 23's C side. noti_play_new with NULL folders and a huge count returns (NULL folders
    /// are no folders; before, it looped over the count, 10^9 in 0.44 s and 2^62 in years, in a
    /// call that must not block: a watchdog ends it). A flood of play calls, more than a host
    /// makes in a second, is refused at once past the queue's bound, with the reason, and the
    /// peak resident set hardly grows (before, 300,000 calls queued 300,000 requests, over
    /// 100 MB); a critical request asked after it is still taken.
    @Test func aHugeFolderCountAndAFloodOfCallsAreAnsweredAtOnce() throws {
        let source = folder.file("flood.c")
        try #"""
            #include <noti-play.h>
            #include <pthread.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <unistd.h>

            /* A call that never returns fails the test instead of hanging it (a thread: the
               test runner may hand its children SIGALRM ignored). */
            static void *watchdog(void *unused) {
                (void)unused;
                sleep(120);
                printf("watchdog: still running after 120 s\n");
                fflush(stdout);
                _exit(3);
            }

            static long peak_kib(void) {
                FILE *status = fopen("/proc/self/status", "r");
                char line[256];
                long value = -1;
                while (status && fgets(line, sizeof line, status)) {
                    if (strncmp(line, "VmHWM:", 6) == 0) { value = atol(line + 6); break; }
                }
                if (status) fclose(status);
                return value;
            }

            int main(void) {
                pthread_t watching;
                pthread_create(&watching, NULL, watchdog, NULL);
                noti_play *player = noti_play_new("null", NULL, (size_t)1 << 62);
                if (!player) return 1;
                printf("new returned\n");
                long before = peak_kib(), accepted = 0, refused = 0;
                char reason[512] = "";
                for (int call = 0; call < 300000; call++) {
                    char *error = NULL;
                    if (noti_play_default(player, 1.0f, 0, NULL, NULL, &error)) accepted++;
                    else { if (!refused++) snprintf(reason, sizeof reason, "%s", error ? error : "(none)"); noti_play_free_string(error); }
                }
                char *error = NULL;
                uint64_t critical = noti_play_default(player, 1.0f, NOTI_PLAY_CRITICAL, NULL, NULL, &error);
                printf("accepted %ld refused %ld grew %ld KiB critical %s\n", accepted, refused, peak_kib() - before,
                       critical ? "taken" : error);
                printf("reason %s\n", reason);
                noti_play_free(player);
                return 0;
            }
            """#.write(toFile: source, atomically: true, encoding: .utf8)
        let program = try build(source, named: "flood")
        let result = try TestTools.run(program, [], environment: ["XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data")])
        #expect(result.status == 0 && result.signal == nil, "\(result.stdoutText) \(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "new returned", "\(lines)")
        let figures = lines.dropFirst().first?.split(separator: " ").map(String.init) ?? []
        #expect(figures.count == 9 && figures[8] == "taken", "\(lines)")
        if figures.count == 9, let accepted = Int(figures[1]), let refused = Int(figures[3]), let grew = Int(figures[5]) {
            #expect(refused > 0 && accepted + refused == 300_000, "\(lines)")
            #expect(grew < 16 * 1024, "the peak resident set grew \(grew) KiB in the flood: \(lines)")
        }
        #expect(lines.last == "reason too many sounds asked for at once: 256 requests are already waiting to be looked up, so this one is refused",
                "\(lines)")
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

    /// ALSA's error handler is process-wide: it belongs to the host. A C host sets its own (and a
    /// thread-local one on its thread) and uses noti-play on a device that does not exist, which
    /// makes libasound report "Unknown PCM", then on a working one: after every call its handlers
    /// are still the ones in place. What reaches it is libasound's own diagnostics, as the host
    /// asked for every ALSA call in its process; noti-play's error line then gives errno's words.
    /// A host that set no handler gets nothing on stderr, and ALSA's words in the error line.
    @Test(arguments: [true, false]) func alsasErrorHandlerStaysTheHosts(hostSetsOne: Bool) throws {
        let source = folder.file("alsa-host.c")
        try alsaHost.write(toFile: source, atomically: true, encoding: .utf8)
        let host = try build(source, named: "alsa-host", extraPackages: ["alsa"])
        let sound = folder.file("chime.caf")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=880:d=0.1", "-c:a", "adpcm_ima_qt", "-y", sound])
        let capture = folder.file("played.raw")
        let result = try TestTools.run(host, [hostSetsOne ? "own" : "none", "file:FILE=\(capture),FORMAT=raw", sound],
                                       environment: ["XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        let missing = "audio device 'nosuchdevice' (ALSA): cannot open: No such file or directory"
        // The device opens on noti-play's thread: its failure arrives through the callback.
        #expect(result.stdoutText == (hostSetsOne ? """
            ended 3 \(missing)
            finished
            host handler: in place, called 1 time(s), last 'Unknown PCM nosuchdevice'
            host thread-local handler: in place

            """ : """
            ended 3 \(missing) (Unknown PCM nosuchdevice)
            finished
            no handler: in place

            """))
        #expect(try Data(contentsOf: URL(fileURLWithPath: capture)).count > 0)
    }

    /// What a host receives for each way a notification's sound goes wrong, in
    /// noti_play_report's `error` and `warnings` (read past `size`, as a host built against this
    /// header does), with the full path of the file in `file`: an Ogg sound-file outside the
    /// sound-theme folders (a format not allowed there), a WAV whose header is broken, a
    /// sound-file that is not there and one that is a folder (unreadable), a 31-s WAV (played: the
    /// default instead, TOO_LONG), a sound name found in the app's folder (its full path), one
    /// found nowhere (NOT_FOUND), and then with a configured default that is broken as well.
    @Test func aReportsCodesSayWhatIsWrongWithTheFileAndWhatPlayedInstead() throws {
        let source = folder.file("report-codes.c")
        try #"""
            #include <noti-play.h>
            #include <pthread.h>
            #include <stddef.h>
            #include <stdio.h>
            #include <string.h>

            static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
            static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
            static int answered = 0;

            static void on_end(const noti_play_report *report, void *user_data) {
                (void)user_data;
                unsigned warnings = report->size >= offsetof(noti_play_report, warnings) + sizeof report->warnings
                    ? report->warnings : 999u;
                pthread_mutex_lock(&lock);
                printf("result %d error %d warnings %u file %s detail %s\n", (int)report->result, (int)report->error,
                       warnings, report->file ? report->file : "(none)", report->detail);
                answered++;
                pthread_cond_signal(&changed);
                pthread_mutex_unlock(&lock);
            }

            /* Each argument after the device: file:PATH (a sound-file hint), app:NAME (a sound
               name of the app org.example.Chat), name:NAME (a sound name of another app), or
               default:PATH (noti_play_configure's default sound). */
            int main(int argc, char **argv) {
                if (argc < 2) return 64;
                noti_play_options options = NOTI_PLAY_OPTIONS_INIT;
                options.device = argv[1];
                noti_play *player = noti_play_new_with_options(&options, NULL);
                noti_play_settings settings = NOTI_PLAY_SETTINGS_INIT;
                settings.rate_interval = settings.burst_limit = 0;
                settings.read_user_configuration = 0;
                if (noti_play_configure(player, &settings, NULL) != 0) return 1;
                for (int i = 2; i < argc; i++) {
                    const char *value = strchr(argv[i], ':') + 1;
                    if (strncmp(argv[i], "default:", 8) == 0) {
                        settings.default_sound = value;
                        if (noti_play_configure(player, &settings, NULL) != 0) return 1;
                        continue;
                    }
                    noti_play_request request = NOTI_PLAY_REQUEST_INIT;
                    /* old:PATH: a sound-file hint from a host built against 0.3.0's header. */
                    if (strncmp(argv[i], "old:", 4) == 0) request.size = offsetof(noti_play_request, notification_id);
                    if (strncmp(argv[i], "file:", 5) == 0 || strncmp(argv[i], "old:", 4) == 0) request.sound_file = value;
                    else request.sound_name = value;
                    request.desktop_entry = strncmp(argv[i], "app:", 4) == 0 ? "org.example.Chat" : "org.example.Other";
                    int before = answered;
                    if (noti_play_notify_reporting(player, &request, on_end, NULL, NULL) == 0) { printf("refused\n"); continue; }
                    pthread_mutex_lock(&lock);
                    while (answered == before) pthread_cond_wait(&changed, &lock);
                    pthread_mutex_unlock(&lock);
                }
                noti_play_free(player);
                return 0;
            }
            """#.write(toFile: source, atomically: true, encoding: .utf8)
        let program = try build(source, named: "report-codes")
        let tone = { (path: String, seconds: Double, codec: String) in
            try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=880:d=\(seconds):sample_rate=8000",
                                                "-c:a", codec, "-y", path])
        }
        let ogg = folder.file("outside-theme.ogg")
        try tone(ogg, 0.2, "libvorbis")
        // A WAV made by ffmpeg whose fmt chunk then says 0 channels (bytes 22-23).
        let broken = folder.file("broken.wav")
        try tone(broken, 0.2, "pcm_s16le")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: broken))
        try #require(bytes.count > 44 && bytes[12..<16] == Data("fmt ".utf8))
        bytes[22] = 0
        bytes[23] = 0
        try bytes.write(to: URL(fileURLWithPath: broken))
        let missing = folder.file("gone.wav")
        let directory = folder.file("a-folder.wav")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let long = folder.file("long.wav")
        try tone(long, 31, "pcm_s16le")
        let appFolder = folder.file("data/noti-play/apps/org.example.Chat/sounds")
        try FileManager.default.createDirectory(atPath: appFolder, withIntermediateDirectories: true)
        let chime = appFolder + "/chime.wav"
        try tone(chime, 0.1, "pcm_s16le")

        let result = try TestTools.run("/bin/sh", ["-c", "cd / && exec \"$@\"", "sh", program, "file:FILE=\(folder.file("codes.raw")),FORMAT=raw",
                                                   "file:\(ogg)", "file:\(broken)", "file:\(missing)", "file:\(directory)",
                                                   "file:\(long)", "app:chime.wav", "name:no-such-sound",
                                                   "default:\(broken)", "name:no-such-sound", "old:\(ogg)", "old:\(broken)"],
                                       environment: ["XDG_CONFIG_HOME": folder.file("config"), "XDG_DATA_HOME": folder.file("data")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        try #require(lines.count == 10, "\(lines)")
        let bundled = FileManager.default.fileExists(atPath: folder.file("prefix/share/noti-play/sounds/default.caf"))
        #expect(bundled)
        // 7 NOTI_PLAY_ERROR_UNSUPPORTED_FORMAT, 8 _MALFORMED, 3 _UNREADABLE; warnings 1 TOO_LONG,
        // 2 NOT_FOUND, 4 DEFAULT_UNPLAYABLE.
        #expect(lines[0] == "result 3 error 7 warnings 0 file \(ogg) detail \(ogg): not a WAV, AIFF or CAF file (a notification sound is WAV, AIFF/AIFC or CAF)",
                "\(lines[0])")
        #expect(lines[1] == "result 3 error 8 warnings 0 file \(broken) detail \(broken): channel count 0 is out of range (1 to 64)", "\(lines[1])")
        #expect(lines[2] == "result 3 error 3 warnings 0 file \(missing) detail \(missing): cannot open: No such file or directory", "\(lines[2])")
        #expect(lines[3] == "result 3 error 3 warnings 0 file \(directory) detail \(directory): is a directory, not a regular file", "\(lines[3])")
        #expect(lines[4].hasPrefix("result 0 error 0 warnings 1 file /") && lines[4].contains("/share/noti-play/sounds/default.caf detail \(long) lasts 31.0 s;"),
                "\(lines[4])")
        #expect(lines[5] == "result 0 error 0 warnings 0 file \(chime) detail ", "\(lines[5])")
        #expect(lines[6].hasPrefix("result 0 error 0 warnings 2 file /") && lines[6].contains("/share/noti-play/sounds/default.caf detail sound 'no-such-sound' was not found"),
                "\(lines[6])")
        #expect(lines[7].hasPrefix("result 0 error 0 warnings 6 file /") && lines[7].contains("; \(broken): channel count 0 is out of range (1 to 64): the configured sound cannot be played; using noti-play's own"),
                "\(lines[7])")
        // A host built against 0.3.0's header knows codes up to 6: a file's format or damage
        // was UNREADABLE there.
        #expect(lines[8].hasPrefix("result 3 error 3 warnings 0 file \(ogg) detail "), "\(lines[8])")
        #expect(lines[9].hasPrefix("result 3 error 3 warnings 0 file \(broken) detail "), "\(lines[9])")
    }
}

/// A C host with its own ALSA error handlers: `alsa-host own|none DEVICE SOUND`.
private let alsaHost = #"""
#include <alsa/asoundlib.h>
#include <noti-play.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int host_calls;
static char host_last[256];
static snd_lib_error_handler_t expected;

static void host_handler(const char *file, int line, const char *function, int err, const char *format, ...) {
    (void)file; (void)line; (void)function; (void)err;
    va_list arguments;
    va_start(arguments, format);
    host_calls++;
    vsnprintf(host_last, sizeof host_last, format, arguments);
    va_end(arguments);
}

static void host_local_handler(const char *file, int line, const char *function, int err, const char *format, va_list arguments) {
    (void)file; (void)line; (void)function; (void)err; (void)format; (void)arguments;
}

static void check(const char *when) {
    if (snd_lib_error != expected) printf("the process-wide handler was replaced %s\n", when);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ended;
static noti_play_result outcome;
static char detail[512];

static void sound_ended(uint64_t id, noti_play_result result, const char *why, void *user_data) {
    (void)id; (void)user_data;
    pthread_mutex_lock(&lock);
    ended = 1;
    outcome = result;
    snprintf(detail, sizeof detail, "%s", why);
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* Plays `sound` on `device`, then prints "error MESSAGE", "finished", or "ended RESULT DETAIL". */
static void play(const char *device, const char *sound) {
    noti_play *player = noti_play_new(device, NULL, 0);
    check("by noti_play_new");
    ended = 0;
    char *error = NULL;
    uint64_t id = noti_play_file(player, sound, 1.0f, NOTI_PLAY_CRITICAL, sound_ended, NULL, &error);
    check("by noti_play_file");
    if (id == 0) {
        printf("error %s\n", error);
        noti_play_free_string(error);
    } else {
        pthread_mutex_lock(&lock);
        while (!ended) pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
        if (outcome == NOTI_PLAY_FINISHED) printf("finished\n");
        else printf("ended %d %s\n", (int)outcome, detail);
    }
    check("while playing");
    noti_play_free(player);
    check("by noti_play_free");
}

int main(int argc, char **argv) {
    if (argc != 4) return 64;
    int own = strcmp(argv[1], "own") == 0;
    if (own) {
        snd_lib_error_set_handler(host_handler);
        snd_lib_error_set_local(host_local_handler);
    }
    expected = snd_lib_error;
    play("nosuchdevice", argv[3]);
    play(argv[2], argv[3]);
    if (own) {
        printf("host handler: %s, called %d time(s), last '%s'\n",
               snd_lib_error == host_handler ? "in place" : "replaced", host_calls, host_last);
        printf("host thread-local handler: %s\n",
               snd_lib_error_set_local(NULL) == host_local_handler ? "in place" : "replaced");
    } else {
        printf("no handler: %s\n", snd_lib_error == expected ? "in place" : "replaced");
    }
    return 0;
}
"""#
