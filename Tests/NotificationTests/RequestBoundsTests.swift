import Foundation
import NotiPlay
import NotiPlayDecoder
import NotiPlayTestSupport
import Synchronization
import Testing

/// What a host cannot make the library do, whatever it asks: hold answers without end, stay
/// closed for a moment without threads, ring a call twice.
@Suite struct RequestBoundsTests {
    let folder = TemporaryDirectory("request-bounds")

    /// A C host's resident memory, in KiB (VmRSS); needs stdio.h, stdlib.h and string.h.
    static let residentKiB = #"""
        static long resident_kib(void) {
            FILE *status = fopen("/proc/self/status", "r");
            char line[256];
            long kib = -1;
            while (status && fgets(line, sizeof line, status))
                if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
            if (status) fclose(status);
            return kib;
        }
        """#

    /// Compiles a C host against the installed library.
    func build(_ source: String, named name: String) throws -> String {
        let path = folder.file(name + ".c")
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        let program = folder.file(name)
        try InstalledLibrary(in: folder).compile(path, into: program)
        return program
    }

    /// 1,000,000 rate-limited noti_play_notify calls while the host's callback is blocked: each
    /// one answered at the call (silenced) used to queue its callback, and the host grew by
    /// 606 MB. Now past 1024 ids not yet answered a call is refused at once, with the reason,
    /// and the host's memory stays where it was; once the callback lets go, every id accepted
    /// is answered exactly once, and calls are taken again.
    @Test func aFloodWhileTheCallbackIsBlockedIsRefusedAndEveryAcceptedIDIsAnsweredOnce() throws {
        let program = try build(#"""
            #include <noti-play.h>
            #include <pthread.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <time.h>

            #define CALLS 1000000
            static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
            static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
            static int released;
            static unsigned char answers[CALLS + 2];
            static long answered;

            static void ended(uint64_t id, noti_play_result result, const char *detail, void *data) {
                (void)result; (void)detail; (void)data;
                pthread_mutex_lock(&lock);
                while (!released) pthread_cond_wait(&changed, &lock);  /* a host's callback, stuck */
                if (id < sizeof answers) answers[id]++;
                answered++;
                pthread_cond_broadcast(&changed);
                pthread_mutex_unlock(&lock);
            }

            \#(Self.residentKiB)

            /* Waits (at most 30 s) until `count` callbacks have come. */
            static int wait_for(long count) {
                struct timespec deadline;
                clock_gettime(CLOCK_REALTIME, &deadline);
                deadline.tv_sec += 30;
                pthread_mutex_lock(&lock);
                while (answered < count && pthread_cond_timedwait(&changed, &lock, &deadline) == 0) {}
                int reached = answered >= count;
                pthread_mutex_unlock(&lock);
                return reached;
            }

            int main(void) {
                noti_play *player = noti_play_new("null", NULL, 0);
                noti_play_settings settings = NOTI_PLAY_SETTINGS_INIT;
                settings.read_user_configuration = 0;
                settings.rate_interval = 3600;  /* the first sound plays; every later one is rate limited */
                if (!player || noti_play_configure(player, &settings, NULL) != 0) return 2;
                noti_play_request request = NOTI_PLAY_REQUEST_INIT;
                request.app_name = "flood";
                long accepted = 0, refused = 0, other_reasons = 0, before = 0;
                char first_reason[512] = "";
                for (long call = 0; call < CALLS; call++) {
                    if (call == 10000) before = resident_kib();  /* the bound is reached long before */
                    char *error = NULL;
                    uint64_t id = noti_play_notify(player, &request, ended, NULL, &error);
                    if (id != 0) {
                        if (id != (uint64_t)accepted + 1) return 3;  /* a refused call spends no id */
                        accepted++;
                    } else {
                        refused++;
                        if (!first_reason[0] && error) snprintf(first_reason, sizeof first_reason, "%s", error);
                        else if (!error || strcmp(error, first_reason) != 0) other_reasons++;
                    }
                    noti_play_free_string(error);
                }
                long after = resident_kib();
                pthread_mutex_lock(&lock);
                released = 1;
                pthread_cond_broadcast(&changed);
                pthread_mutex_unlock(&lock);
                if (!wait_for(accepted)) return 4;
                /* Taken again, and answered. */
                if (noti_play_notify(player, &request, ended, NULL, NULL) != (uint64_t)accepted + 1) return 5;
                if (!wait_for(accepted + 1)) return 6;
                noti_play_free(player);
                long once = 0, other = 0;
                for (long id = 0; id < (long)sizeof answers; id++) {
                    if (id >= 1 && id <= accepted + 1 && answers[id] == 1) once++;
                    else if (answers[id] != 0) other++;
                }
                printf("accepted %ld refused %ld other-reasons %ld\n", accepted, refused, other_reasons);
                printf("reason %s\n", first_reason);
                printf("answered-once %ld answered-otherwise %ld\n", once, other);
                printf("grew-kib %ld\n", after - before);
                return 0;
            }
            """#, named: "flood")
        let result = try TestTools.run(program, [], environment: ["XDG_CONFIG_HOME": folder.file("config")])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        guard lines.count == 4 else { return }
        let numbers = { (line: String) in line.split(separator: " ").compactMap { Int($0) } }
        let (counts, answers, grew) = (numbers(lines[0]), numbers(lines[2]), numbers(lines[3]))
        // 1024 waiting for the callback thread, and the one it is stuck in.
        #expect(counts.count == 3 && (1024...1025).contains(counts[0]) && counts[0] + counts[1] == 1_000_000 && counts[2] == 0, "\(lines[0])")
        #expect(lines[1] == "reason too many sounds not yet answered: 1024 requests wait for their callbacks (a callback is slow or blocked), so this one is refused")
        #expect(answers.count == 2 && answers[0] == counts.first.map { $0 + 1 } && answers[1] == 0, "\(lines[2])")
        // A million answers held cost 606 MB; refused, they cost nothing that stays.
        #expect(grew.count == 1 && grew[0] < 8 * 1024, "the host grew by \(grew.first ?? -1) KiB over the flood")
    }

    /// A host (or a notification client it obeys) that cancels, pauses, resumes and switches
    /// quiet in a loop queues at most one command per sound and one quiet change, whatever it
    /// repeats: 2,000,000 pause/resume pairs and 2,000,000 quiet switches grow the host by no
    /// more than a few MiB, the ring still answers its last wish (resumed, then cancelled), and
    /// a cancel of an id answered long ago is ignored.
    @Test func repeatedControlsQueueOneCommandPerSound() throws {
        let program = try build(#"""
            #include <noti-play.h>
            #include <pthread.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <time.h>

            static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
            static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
            static noti_play_result result = (noti_play_result)-1;

            static void ended(uint64_t id, noti_play_result ending, const char *detail, void *data) {
                (void)id; (void)detail; (void)data;
                pthread_mutex_lock(&lock);
                result = ending;
                pthread_cond_broadcast(&changed);
                pthread_mutex_unlock(&lock);
            }

            \#(Self.residentKiB)

            int main(void) {
                noti_play *player = noti_play_new("null", NULL, 0);
                if (!player) return 2;
                uint64_t ring = noti_play_default(player, 1.0f, NOTI_PLAY_RINGTONE | NOTI_PLAY_CRITICAL, ended, NULL, NULL);  /* quiet lets it ring */
                if (!ring) return 3;
                for (long call = 0; call < 100000; call++) {  /* warmed up: the bound is reached by now */
                    noti_play_pause(player, ring);
                    noti_play_resume(player, ring);
                    noti_play_set_quiet(player, (int)(call & 1));
                }
                long before = resident_kib();
                for (long call = 0; call < 2000000; call++) {
                    noti_play_pause(player, ring);
                    noti_play_resume(player, ring);
                    noti_play_set_quiet(player, (int)(call & 1));
                    noti_play_cancel(player, 12345);  /* never given */
                }
                long after = resident_kib();
                noti_play_set_quiet(player, 0);
                noti_play_cancel(player, ring);
                struct timespec deadline;
                clock_gettime(CLOCK_REALTIME, &deadline);
                deadline.tv_sec += 30;
                pthread_mutex_lock(&lock);
                while ((int)result == -1 && pthread_cond_timedwait(&changed, &lock, &deadline) == 0) {}
                noti_play_result ending = result;
                pthread_mutex_unlock(&lock);
                noti_play_free(player);
                printf("ended %s\n", ending == NOTI_PLAY_CANCELLED ? "cancelled" : "otherwise");
                printf("grew-kib %ld\n", after - before);
                return 0;
            }
            """#, named: "controls")
        let result = try TestTools.run(program, [], environment: ["XDG_CONFIG_HOME": folder.file("config")])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "ended cancelled", "\(lines)")
        let grew = lines.count == 2 ? Int(lines[1].split(separator: " ").last ?? "") : nil
        #expect(grew.map { $0 < 4 * 1024 } == true, "\(lines)")
    }

    /// A host whose first sound meets the system's limit on threads (RLIMIT_NPROC, lowered by
    /// the host itself to what it has) gets 0 and the reason, not a player closed for ever; once
    /// the limit is lifted the next call plays. Run as another user than root (root passes the
    /// limit); the host checks that the lowered limit binds before it plays.
    @Test func aPlayWithoutThreadsFailsWithTheReasonAndTheNextOneStartsThem() throws {
        let program = try build(#"""
            #include <noti-play.h>
            #include <pthread.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <sys/resource.h>
            #include <time.h>

            static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
            static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
            static int result = -1;

            static void ended(uint64_t id, noti_play_result ended_with, const char *detail, void *data) {
                (void)data;
                pthread_mutex_lock(&lock);
                printf("ended %llu %d %s\n", (unsigned long long)id, (int)ended_with, detail);
                result = ended_with;
                pthread_cond_broadcast(&changed);
                pthread_mutex_unlock(&lock);
            }

            static void *nothing(void *argument) { return argument; }

            int main(void) {
                setvbuf(stdout, NULL, _IOLBF, 0);
                noti_play_options options = NOTI_PLAY_OPTIONS_INIT;
                options.device = getenv("CAPTURE_DEVICE");
                options.backend = NOTI_PLAY_BACKEND_ALSA;
                noti_play *player = noti_play_new_with_options(&options, NULL);  /* no thread yet */
                if (!player) return 2;
                struct rlimit lifted, low;
                if (getrlimit(RLIMIT_NPROC, &lifted) != 0) return 3;
                low = lifted;
                low.rlim_cur = 1;  /* this process's one thread: no more */
                if (setrlimit(RLIMIT_NPROC, &low) != 0) return 4;
                pthread_t thread;
                if (pthread_create(&thread, NULL, nothing, NULL) == 0) { fprintf(stderr, "the limit does not bind\n"); return 5; }
                char *error = NULL;
                uint64_t id = noti_play_default(player, 1.0f, 0, ended, NULL, &error);
                printf("limited %llu %s\n", (unsigned long long)id, error ? error : "(none)");
                noti_play_free_string(error);
                error = NULL;
                if (setrlimit(RLIMIT_NPROC, &lifted) != 0) return 6;
                id = noti_play_default(player, 1.0f, 0, ended, NULL, &error);
                printf("lifted %llu %s\n", (unsigned long long)id, error ? error : "(none)");
                noti_play_free_string(error);
                struct timespec deadline;
                clock_gettime(CLOCK_REALTIME, &deadline);
                deadline.tv_sec += 30;
                pthread_mutex_lock(&lock);
                while (result < 0 && pthread_cond_timedwait(&changed, &lock, &deadline) == 0) {}
                pthread_mutex_unlock(&lock);
                noti_play_free(player);
                return 0;
            }
            """#, named: "thread-limit")
        try TestTools.runChecked("chmod", ["-R", "a+rwX", folder.path])
        let capture = folder.file("thread-limit.raw")
        // Root passes RLIMIT_NPROC: the host runs as nobody. Other processes of nobody's only
        // make the lowered limit bind the more; lifted, it is the hard limit again.
        let result = try TestTools.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "env",
                                                   "XDG_CONFIG_HOME=/nonexistent", "CAPTURE_DEVICE=file:FILE=\(capture),FORMAT=raw", program])
        #expect(result.status == 0, "exit \(result.status): \(result.stderr)")
        #expect(result.stdoutText.split(separator: "\n") == [
            "limited 0 no thread could be started to play the sound (the system's limit on threads was reached)",
            "lifted 1 (none)",
            "ended 1 0 ",
        ], "\(result.stdoutText)")
        // The default sound reached the device.
        let bundled = try SoundDecoder(path: folder.file("prefix/share/noti-play/sounds/default.caf")).readAll()
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(written == bundled.flatMap { [$0, $0] }, "\(written.count) samples written, \(bundled.count * 2) expected")
    }

    typealias Reports = PlayerTests.Reports

    func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// A call's notification updated while it rings (the same notification id, still a call)
    /// keeps the one ring going, unbroken: what reached the device up to the cancel is the ring
    /// looped, sample for sample, with no second ring on top of it nor a restart; the update is
    /// answered silenced with the ring's id, and cancelling that id ends the ring. ALSA's `file`
    /// device records what was written.
    @Test func anUpdateOfARingingCallKeepsOneRing() throws {
        let ring = folder.file("ring.caf")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=660:d=0.05:r=44100", "-ac", "2",
                                            "-c:a", "adpcm_ima_qt", "-y", ring])
        let capture = folder.file("ring.raw")
        let player = NotificationSoundPlayer(configuration: .init(
            appFolders: [folder.path], device: "file:FILE=\(capture),FORMAT=raw", policy: SoundPolicy(), limits: .none))
        let reports = Reports()
        var call = NotificationRequest(appName: "phone", soundName: "ring.caf", category: "call.incoming", notificationID: 7)
        let first = try player.play(call) { reports.add($0) }
        let loop = try SoundDecoder(path: ring).readAll()
        // It rings, then its notification's text changes.
        let deadline = Date().addingTimeInterval(10)
        while fileSize(capture) < 2 * loop.count * 4 && Date() < deadline { usleep(1000) }
        call.isUpdate = true
        let update = try player.play(call) { reports.add($0) }
        let updateReport = reports.wait(1).first
        let sizeAtUpdate = fileSize(capture)
        // Rung on a while past the update.
        while fileSize(capture) < sizeAtUpdate + 4 * loop.count * 4 && Date() < deadline { usleep(1000) }
        let beforeCancel = fileSize(capture) / 4
        player.cancel(first)
        player.cancel(update)  // ended already: ignored
        let reported = reports.wait(1)
        player.close()
        #expect(updateReport?.id == update && updateReport?.result == .silenced("its notification's ringtone rings on (sound \(first.rawValue))"),
                "\(updateReport.map(String.init(describing:)) ?? "no report for the update")")
        #expect(reported.map(\.id) == [update, first] && reported.last?.result == .cancelled, "\(reported)")
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(beforeCancel > sizeAtUpdate / 4 + loop.count && written.count >= beforeCancel)
        let prefix = written.prefix(beforeCancel)
        let oneRing = prefix.indices.allSatisfy { prefix[$0] == loop[$0 % loop.count] }  // a Bool: not a million samples in a message
        #expect(oneRing, "what was written up to the cancel is not one ring looped")
    }

    /// A call answered: its notification is updated to ask for no ringtone, and the library
    /// ends the ring itself (the host need not know which sound rings), within the rate rule's
    /// second too; the same notification ringing again later rings again.
    @Test func anUpdateThatAsksForNoRingtoneEndsTheRing() throws {
        let ring = folder.file("ring.caf")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=660:d=0.05:r=44100", "-ac", "2",
                                            "-c:a", "adpcm_ima_qt", "-y", ring])
        let capture = folder.file("answered.raw")
        let player = NotificationSoundPlayer(configuration: .init(
            appFolders: [folder.path], device: "file:FILE=\(capture),FORMAT=raw", policy: SoundPolicy()))  // the rate rule on
        let reports = Reports()
        let call = NotificationRequest(appName: "phone", soundName: "ring.caf", category: "call.incoming", notificationID: 9)
        let first = try player.play(call) { reports.add($0) }
        let deadline = Date().addingTimeInterval(10)
        while fileSize(capture) < 8 * 2205 * 4 && Date() < deadline { usleep(1000) }
        var answered = NotificationRequest(appName: "phone", notificationID: 9)
        answered.isUpdate = true
        let update = try player.play(answered) { reports.add($0) }
        let ended = reports.wait(2)
        let sizeAtEnd = fileSize(capture)
        #expect(Set(ended.map(\.id)) == [first, update], "\(ended)")
        #expect(ended.first { $0.id == first }?.result == .cancelled, "\(ended)")
        #expect(ended.first { $0.id == update }.map { if case .silenced = $0.result { true } else { false } } == true, "\(ended)")
        // Nothing rings on: past the period that may still hold the fade's end, the stream
        // writes silence or nothing, never the ring again.
        usleep(300_000)
        let written = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(written[min(sizeAtEnd / 4 + 2 * 4410, written.count)...].allSatisfy { $0 == 0 }, "the ring went on after it was answered")
        // The same notification rings again later (its earlier ring is forgotten, not "rings on").
        usleep(1_100_000)  // past the rate rule's second
        let again = try player.play(call) { reports.add($0) }
        player.cancel(again)
        let last = reports.wait(3).last
        player.close()
        #expect(last?.id == again && last?.result == .cancelled, "\(String(describing: last))")
    }

    /// The user silences a ringing call's ringer: its app updates the notification with
    /// suppress-sound, the call category still there. That asks for no sound, so the ring ends
    /// (`cancelled`) and the update is silenced for suppress-sound, not "rings on" for 30 s.
    @Test func aSuppressSoundUpdateOfARingingCallEndsTheRing() throws {
        let ring = folder.file("ring.caf")
        try TestTools.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=660:d=0.05:r=44100", "-ac", "2",
                                            "-c:a", "adpcm_ima_qt", "-y", ring])
        let capture = folder.file("silenced.raw")
        let player = NotificationSoundPlayer(configuration: .init(
            appFolders: [folder.path], device: "file:FILE=\(capture),FORMAT=raw", policy: SoundPolicy(), limits: .none))
        let reports = Reports()
        var call = NotificationRequest(appName: "phone", soundName: "ring.caf", category: "call.incoming", notificationID: 5)
        let first = try player.play(call) { reports.add($0) }
        let deadline = Date().addingTimeInterval(10)
        while fileSize(capture) < 4 * 2205 * 4 && Date() < deadline { usleep(1000) }
        call.isUpdate = true
        call.suppressSound = true
        let update = try player.play(call) { reports.add($0) }
        let ended = reports.wait(2)
        player.close()
        #expect(ended.first { $0.id == first }?.result == .cancelled, "\(ended)")
        #expect(ended.first { $0.id == update }?.result == .silenced("the notification asks for no sound (suppress-sound)"), "\(ended)")
    }
}
