#!/usr/bin/env python3
"""libnoti-play under load, as a C daemon meets it (issue 23): many voices of one large file, a
flood of play calls with a critical sound asked in the middle of it, and noti_play_new with a
huge folder count. Prints what each run measured, for the README and the before/after notes.

A small C program written here does each, against the library as shipped (scripts/install.sh
into a temporary prefix, a release build, or --prefix of an existing install), on ALSA's `null`
device unless --device says otherwise:

  voices   noti_play_file of one WAV, --voices times at once (16 notifications naming one large
           file), and waits for every callback. Peak RSS (VmHWM) once they have all ended, then
           the resident set (VmRSS) 1 s after (the device still open) and 7 s after (closed: the
           player keeps only its cache), and after noti_play_free. The WAV is --seconds of
           stereo 16-bit at --rate (192 kHz, 21.8 s: 16.7 MB, 32 MiB decoded). With
           --stream-rate, a 0.1 s sound at that rate plays first, so the stream is open there
           and every voice is converted (176.4 kHz on a 192 kHz stream).
  flood    noti_play_default in a loop for --flood-seconds, a callback that counts; then one
           critical noti_play_default: how many calls were accepted and refused (and the first
           refusal's message), the peak RSS, how long the critical's callback took to come, and
           how long until every accepted call was answered.
  new      noti_play_new(NULL, NULL, --folder-count): how long the call takes (NULL folders are
           no folders, whatever the count says).
  listen   the installed `noti-play listen --interval 0 --burst-limit 100` on a private bus
           (Tests/ListenScenarios' bus configuration and fake notification server), sent
           --voices notifications at once (notify-send) whose sound-file hint names the large
           WAV: its peak RSS once every sound has finished, then its resident set 1 s and 7 s
           later. Not among the default measurements.

Usage: scripts/measure/library-load.py [voices] [flood] [new] [listen] [--prefix DIR] [--device NAME]
           [--voices 16] [--rate 192000] [--seconds 21.8] [--stream-rate HZ]
           [--flood-seconds 0.5] [--folder-count 1000000000]
Needs: gcc, pkg-config, sox, and a Swift toolchain unless --prefix names an installed noti-play;
for listen, dbus-daemon, notify-send and libsystemd-dev.
"""
import argparse, os, subprocess, sys, tempfile, threading, time

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = r"""
#define _GNU_SOURCE
#include <noti-play.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* A line of /proc/self/status, in KiB. */
static long status_kib(const char *field) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long value = -1;
    size_t length = strlen(field);
    while (status && fgets(line, sizeof line, status)) {
        if (strncmp(line, field, length) == 0 && line[length] == ':') { value = atol(line + length + 1); break; }
    }
    if (status) fclose(status);
    return value;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static long answered, failed;
static char failure[512];

static void counted(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    (void)id; (void)user_data;
    pthread_mutex_lock(&lock);
    answered++;
    if (result == NOTI_PLAY_FAILED) { failed++; snprintf(failure, sizeof failure, "%s", detail); }
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static int wait_answered(long count, double seconds) {
    double deadline = now_ms() + seconds * 1e3;
    pthread_mutex_lock(&lock);
    while (answered < count && now_ms() < deadline) {
        pthread_mutex_unlock(&lock);
        usleep(1000);
        pthread_mutex_lock(&lock);
    }
    int all = answered >= count;
    pthread_mutex_unlock(&lock);
    return all;
}

static atomic_int critical_answered;
static double critical_at;
static noti_play_result critical_result;

static void critical_ended(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    (void)id; (void)detail; (void)user_data;
    critical_at = now_ms();
    critical_result = result;
    atomic_store(&critical_answered, 1);
}

static int voices(const char *device, const char *path, int count, const char *opener) {
    noti_play *player = noti_play_new(device, NULL, 0);
    if (!player) return 1;
    if (opener) {
        noti_play_file(player, opener, 1.0f, 0, counted, NULL, NULL);
        if (!wait_answered(1, 60)) return 2;
        answered = 0;
    }
    double start = now_ms();
    for (int voice = 0; voice < count; voice++) {
        char *error = NULL;
        if (!noti_play_file(player, path, 1.0f, 0, counted, NULL, &error)) { printf("refused %s\n", error); return 3; }
    }
    if (!wait_answered(count, 600)) { printf("not all answered\n"); return 4; }
    printf("voices %d answered in %.0f ms, %ld failed%s%s\n", count, now_ms() - start, failed, failed ? ": " : "", failure);
    printf("peak RSS %.1f MiB\n", status_kib("VmHWM") / 1024.0);
    printf("RSS once all ended %.1f MiB\n", status_kib("VmRSS") / 1024.0);
    sleep(1);
    printf("RSS 1 s later %.1f MiB\n", status_kib("VmRSS") / 1024.0);
    sleep(6);
    printf("RSS 7 s later (device closed) %.1f MiB\n", status_kib("VmRSS") / 1024.0);
    noti_play_free(player);
    printf("RSS after noti_play_free %.1f MiB\n", status_kib("VmRSS") / 1024.0);
    return 0;
}

static int flood(const char *device, double seconds) {
    noti_play *player = noti_play_new(device, NULL, 0);
    if (!player) return 1;
    long rss_before = status_kib("VmHWM");
    long calls = 0, accepted = 0, refused = 0;
    char refusal[512] = "";
    double start = now_ms(), end = start + seconds * 1e3;
    while (now_ms() < end) {
        char *error = NULL;
        uint64_t id = noti_play_default(player, 1.0f, 0, counted, NULL, &error);
        calls++;
        if (id) accepted++;
        else { if (!refused++) snprintf(refusal, sizeof refusal, "%s", error ? error : "?"); noti_play_free_string(error); }
    }
    double asked = now_ms();
    char *error = NULL;
    uint64_t critical = noti_play_default(player, 1.0f, NOTI_PLAY_CRITICAL, critical_ended, NULL, &error);
    printf("flood %.1f s: %ld calls, %ld accepted, %ld refused%s%s\n", seconds, calls, accepted, refused,
           refused ? ": " : "", refusal);
    if (!critical) { printf("critical refused: %s\n", error); return 2; }
    while (!atomic_load(&critical_answered)) usleep(200);
    printf("critical answered %.1f ms after it was asked (%s)\n", critical_at - asked,
           critical_result == NOTI_PLAY_FINISHED ? "finished" : "not finished");
    int all = wait_answered(accepted, 600);
    printf("every accepted call answered %.0f ms after the flood%s\n", now_ms() - asked, all ? "" : " (gave up at 600 s)");
    printf("peak RSS %.1f MiB (%.1f MiB before the flood)\n", status_kib("VmHWM") / 1024.0, rss_before / 1024.0);
    noti_play_free(player);
    return 0;
}

static int new_context(size_t count) {
    double start = now_ms();
    noti_play *player = noti_play_new("null", NULL, count);
    double took = now_ms() - start;
    if (!player) return 1;
    printf("noti_play_new(\"null\", NULL, %zu) took %.3f ms\n", count, took);
    noti_play_free(player);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 6 && strcmp(argv[1], "voices") == 0) return voices(argv[2], argv[3], atoi(argv[4]), argc > 5 && *argv[5] ? argv[5] : NULL);
    if (argc == 4 && strcmp(argv[1], "flood") == 0) return flood(argv[2], atof(argv[3]));
    if (argc == 3 && strcmp(argv[1], "new") == 0) return new_context((size_t)strtoull(argv[2], NULL, 10));
    return 64;
}
"""


def run(command, **options):
    return subprocess.run(command, check=True, **options)


def status_mib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":")) / 1024


def measure_listen(noti_play, sound, voices, device, folder):
    """Peak and later resident set of `noti-play listen` playing `voices` notifications' sound-file."""
    scenarios = os.path.join(REPOSITORY, "Tests/ListenScenarios")
    socket = os.path.join(folder, "bus")
    with open(os.path.join(scenarios, "private-session-bus.conf")) as template, open(os.path.join(folder, "bus.conf"), "w") as conf:
        conf.write(template.read().replace("@SOCKET@", socket))
    server = os.path.join(folder, "fake-notification-server")
    run(["cc", "-std=c11", "-O1", "-o", server, os.path.join(scenarios, "fake-notification-server.c"), "-lsystemd"])
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS="unix:path=" + socket, XDG_CONFIG_HOME=os.path.join(folder, "config"),
               XDG_DATA_HOME=os.path.join(folder, "data"))
    children = []
    try:
        children.append(subprocess.Popen(["dbus-daemon", "--config-file=" + os.path.join(folder, "bus.conf"), "--nofork", "--nopidfile"],
                                         stderr=subprocess.DEVNULL))
        while not os.path.exists(socket):
            time.sleep(0.01)
        children.append(subprocess.Popen([server, "--capabilities", "body"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True))
        if not children[-1].stdout.readline().startswith("ready"):
            sys.exit("the fake notification server did not start")
        listener = subprocess.Popen([noti_play, "listen", "--verbose", "--interval", "0", "--burst-limit", "100", "--device", device],
                                    stderr=subprocess.PIPE, env=env, text=True)
        children.append(listener)
        lines, changed = [], threading.Condition()

        def read():
            for line in listener.stderr:
                with changed:
                    lines.append(line)
                    changed.notify_all()
        threading.Thread(target=read, daemon=True).start()

        def wait_for(what, count, seconds):
            with changed:
                if not changed.wait_for(lambda: sum(what(line) for line in lines) >= count, seconds):
                    sys.exit(f"listen did not get there: {''.join(lines[-5:])}")
        wait_for(lambda line: "the notification server plays" in line, 1, 10)
        for _ in range(voices):
            run(["notify-send", "-h", "string:sound-file:" + sound, "summary"], env=env)
        wait_for(lambda line: line.rstrip().endswith(": finished") or ": no sound:" in line, voices, 600)
        failed = [line for line in lines if ": no sound:" in line]
        print(f"listen: {voices} notifications naming {os.path.getsize(sound)} bytes answered, {len(failed)} failed"
              + (f": {failed[0].strip()}" if failed else ""))
        print(f"peak RSS {status_mib(listener.pid, 'VmHWM'):.1f} MiB")
        time.sleep(1)
        print(f"RSS 1 s later {status_mib(listener.pid, 'VmRSS'):.1f} MiB")
        time.sleep(6)
        print(f"RSS 7 s later (device closed) {status_mib(listener.pid, 'VmRSS'):.1f} MiB")
    finally:
        for child in reversed(children):
            child.terminate()
            child.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="*", help="voices, flood, new, listen (default: the first three)")
    parser.add_argument("--prefix", help="an installed noti-play (default: install one now)")
    parser.add_argument("--device", default="null")
    parser.add_argument("--voices", type=int, default=16)
    parser.add_argument("--rate", type=int, default=192000)
    parser.add_argument("--seconds", type=float, default=21.8)
    parser.add_argument("--stream-rate", type=int, help="open the stream at this rate first (every voice is converted)")
    parser.add_argument("--flood-seconds", type=float, default=0.5)
    parser.add_argument("--folder-count", type=int, default=1_000_000_000)
    arguments = parser.parse_args()
    arguments.what = arguments.what or ["voices", "flood", "new"]
    if not set(arguments.what) <= {"voices", "flood", "new", "listen"}:
        parser.error("measure voices, flood, new or listen")

    with tempfile.TemporaryDirectory(prefix="library-load-") as folder:
        prefix = arguments.prefix
        if not prefix:
            prefix = os.path.join(folder, "prefix")
            run([os.path.join(REPOSITORY, "scripts/install.sh"), "--prefix", prefix], stdout=subprocess.DEVNULL)
        prefix = os.path.abspath(prefix)
        source = os.path.join(folder, "load.c")
        with open(source, "w") as file:
            file.write(PROGRAM)
        program = os.path.join(folder, "load")
        flags = run(["pkg-config", "--cflags", "--libs", "noti-play"], capture_output=True, text=True,
                    env=dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib/pkgconfig"))).stdout.split()
        run(["gcc", "-O2", "-pthread", "-o", program, source, *flags])
        # The user's settings must not interfere.
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(folder, "config"), XDG_DATA_HOME=os.path.join(folder, "data"))

        def measure(*command):
            print("$ load " + " ".join(command[1:]), flush=True)
            result = subprocess.run([program, *command[1:]], env=env, capture_output=True, text=True)
            sys.stdout.write(result.stdout)
            if result.returncode != 0:
                print(f"  exited {result.returncode}: {result.stderr.strip()}")

        sound = os.path.join(folder, "large.wav")
        if "voices" in arguments.what or "listen" in arguments.what:
            run(["sox", "-n", "-r", str(arguments.rate), "-c", "2", "-b", "16", sound, "synth", str(arguments.seconds), "sine", "440"])
        if "voices" in arguments.what:
            opener = ""
            if arguments.stream_rate:
                opener = os.path.join(folder, "opener.wav")
                run(["sox", "-n", "-r", str(arguments.stream_rate), "-c", "2", "-b", "16", opener, "synth", "0.1", "sine", "880"])
            print(f"{arguments.voices} voices of {os.path.getsize(sound)} bytes ({arguments.rate} Hz stereo, {arguments.seconds} s)"
                  + (f" on a stream at {arguments.stream_rate} Hz" if opener else ""))
            measure("load", "voices", arguments.device, sound, str(arguments.voices), opener)
        if "flood" in arguments.what:
            measure("load", "flood", arguments.device, str(arguments.flood_seconds))
        if "new" in arguments.what:
            measure("load", "new", str(arguments.folder_count))
        if "listen" in arguments.what:
            measure_listen(os.path.join(prefix, "bin/noti-play"), sound, arguments.voices, arguments.device, folder)


if __name__ == "__main__":
    main()
