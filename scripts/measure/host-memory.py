#!/usr/bin/env python3
"""What a notification daemon's memory becomes with libnoti-play, with libcanberra, with neither.

Three small C hosts, alike but for the sound library, each started, asked for sounds on stdin,
one at a time (each waited for to its end):

  bare        no sound library: "play" only answers (dunst with its sound off)
  noti-play   noti_play_new(DEVICE), noti_play_file per sound (the library as shipped:
              scripts/install.sh into a temporary prefix, or --prefix of an existing install)
  libcanberra ca_context_create + ca_context_set_driver("alsa") + change_device(DEVICE),
              ca_context_play_full with CA_PROP_MEDIA_FILENAME per sound

For each the resident set (VmRSS of /proc/PID/status) is read at three moments: once the
library's context is made, after the first sound, after --sounds sounds; and the peak (VmHWM:
the most it held at once, not wait4's ru_maxrss, which Linux carries from the parent Python
across fork and exec) after the last sound; medians of --runs runs, the hosts taking turns. The device is ALSA's `null` PCM (no card, no server) unless
--device says otherwise; the sound a 0.1 s 16-bit stereo WAV at 44.1 kHz (both libraries read it).
--smaps prints each host's resident memory by mapping at the start, from the last run.

Usage: scripts/measure/host-memory.py [--runs 5] [--sounds 50] [--prefix DIR] [--device null] [--smaps]
Needs: gcc, pkg-config, libasound2-dev, libcanberra-dev (apt-get install libcanberra-dev), a
Swift toolchain unless --prefix names an installed noti-play.
"""
import argparse, collections, os, statistics, subprocess, sys, tempfile, wave

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# One host, three builds: SOUND_LIBRARY_* picks the library. argv: DEVICE SOUND.
HOST = r"""
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#if defined(HOST_NOTI_PLAY)
#include <noti-play.h>
#elif defined(HOST_CANBERRA)
#include <canberra.h>
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ended;

static void finish(int ok) {
    pthread_mutex_lock(&lock);
    ended = ok ? 1 : -1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

#if defined(HOST_NOTI_PLAY)
static void sound_ended(uint64_t id, noti_play_result result, const char *detail, void *data) {
    (void)id; (void)detail; (void)data;
    finish(result == NOTI_PLAY_FINISHED);
}
#elif defined(HOST_CANBERRA)
static void sound_ended(ca_context *context, uint32_t id, int code, void *data) {
    (void)context; (void)id; (void)data;
    finish(code == CA_SUCCESS);
}
#endif

int main(int argc, char **argv) {
    if (argc != 3) return 64;
#if defined(HOST_NOTI_PLAY)
    noti_play *player = noti_play_new(argv[1], NULL, 0);
    if (!player) return 1;
#elif defined(HOST_CANBERRA)
    ca_context *context;
    if (ca_context_create(&context) < 0) return 1;
    if (ca_context_set_driver(context, "alsa") < 0 || ca_context_change_device(context, argv[1]) < 0) return 2;
    /* libcanberra opens its driver at the first play; open it now, as a daemon's context is
       made ready at start. */
    if (ca_context_open(context) < 0) return 2;
#endif
    printf("ready\n");
    fflush(stdout);
    char line[64];
    unsigned sound = 0;
    while (fgets(line, sizeof line, stdin) && strcmp(line, "quit\n") != 0) {
        ended = 0;
        sound++;
#if defined(HOST_NOTI_PLAY)
        char *error = NULL;
        if (!noti_play_file(player, argv[2], 1.0f, 0, sound_ended, NULL, &error)) { fprintf(stderr, "%s\n", error); return 3; }
#elif defined(HOST_CANBERRA)
        ca_proplist *properties;
        ca_proplist_create(&properties);
        ca_proplist_sets(properties, CA_PROP_MEDIA_FILENAME, argv[2]);
        int code = ca_context_play_full(context, sound, properties, sound_ended, NULL);
        ca_proplist_destroy(properties);
        if (code < 0) { fprintf(stderr, "ca_context_play_full: %s\n", ca_strerror(code)); return 3; }
#else
        finish(1);
#endif
        pthread_mutex_lock(&lock);
        while (ended == 0) pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
        if (ended < 0) { fprintf(stderr, "sound %u failed\n", sound); return 4; }
        printf("played\n");
        fflush(stdout);
    }
#if defined(HOST_NOTI_PLAY)
    noti_play_free(player);
#elif defined(HOST_CANBERRA)
    ca_context_destroy(context);
#endif
    return 0;
}
"""

MOMENTS = ["start", "after 1 sound", "after N sounds"]


def run(command, **options):
    return subprocess.run(command, check=True, **options)


def pkg_config(prefix, *packages):
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib/pkgconfig")) if prefix else None
    return run(["pkg-config", "--cflags", "--libs", *packages], capture_output=True, text=True, env=env).stdout.split()


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))


def mappings(pid):
    """Resident KiB of each mapped file (or [heap], [stack], anonymous) of process `pid`."""
    totals = collections.Counter()
    name = None
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if "-" in fields[0] and ":" not in fields[0]:
                name = os.path.basename(fields[5]) if len(fields) > 5 else "[anonymous: thread stacks, malloc arenas]"
            elif fields[0] == "Rss:":
                totals[name] += int(fields[1])
    return totals


def measure(command, sounds, env):
    """VmRSS (KiB) of `command` when ready, after one sound, after `sounds` sounds, and its peak
    (VmHWM) then; its threads at those moments; its mappings when ready."""
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)

    def expect(word):
        line = child.stdout.readline()
        if line != word + "\n":
            child.kill()
            sys.exit(f"{os.path.basename(command[0])}: expected {word!r}, got {line!r} (exit {child.wait()})")

    expect("ready")
    figures = [status_kib(child.pid, "VmRSS")]
    threads = [status_kib(child.pid, "Threads")]
    resident = mappings(child.pid)
    for sound in range(sounds):
        child.stdin.write("play\n")
        child.stdin.flush()
        expect("played")
        for moment in (0, sounds - 1):  # both moments, also when they are the same sound
            if sound != moment:
                continue
            figures.append(status_kib(child.pid, "VmRSS"))
            threads.append(status_kib(child.pid, "Threads"))
    figures.append(status_kib(child.pid, "VmHWM"))  # the peak: what the host ever held at once
    child.stdin.write("quit\n")
    child.stdin.close()
    child.stdout.read()
    if child.wait() != 0:
        sys.exit(f"{command[0]} exited with {child.returncode}")
    return figures, threads, resident


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sounds", type=int, default=50)
    parser.add_argument("--prefix", help="an installed noti-play (default: install one now, a release build)")
    parser.add_argument("--device", default="null", help="the ALSA PCM both libraries play on")
    parser.add_argument("--smaps", action="store_true", help="also print each host's resident memory by mapping at the start")
    arguments = parser.parse_args()
    if arguments.runs < 1 or arguments.sounds < 1:
        parser.error("--runs and --sounds take 1 or more")

    with tempfile.TemporaryDirectory(prefix="host-memory-") as folder:
        prefix = arguments.prefix
        if not prefix:
            prefix = os.path.join(folder, "prefix")
            run([os.path.join(REPOSITORY, "scripts/install.sh"), "--prefix", prefix], stdout=subprocess.DEVNULL)
        source = os.path.join(folder, "host.c")
        with open(source, "w") as file:
            file.write(HOST)
        hosts = {}
        for name, define, flags in [("bare", "HOST_BARE", []), ("noti-play", "HOST_NOTI_PLAY", pkg_config(prefix, "noti-play")),
                                    ("libcanberra", "HOST_CANBERRA", pkg_config(None, "libcanberra"))]:
            hosts[name] = os.path.join(folder, "host-" + name)
            run(["gcc", "-O2", "-Wall", "-Werror", "-pthread", "-D" + define, "-o", hosts[name], source, *flags])

        # The sound: 0.1 s of a 880 Hz tone, 16-bit stereo at 44.1 kHz, by Python's wave module.
        sound = os.path.join(folder, "chime.wav")
        with wave.open(sound, "wb") as out:
            out.setnchannels(2)
            out.setsampwidth(2)
            out.setframerate(44100)
            frames = bytearray()
            for n in range(4410):
                value = int(8000 * ((n * 880 * 2 // 44100) % 2 * 2 - 1))  # a square wave
                frames += value.to_bytes(2, "little", signed=True) * 2
            out.writeframes(bytes(frames))
        # No configuration or sound folders of the user's: the same for every host.
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(folder, "config"), XDG_DATA_HOME=os.path.join(folder, "data"))

        figures = {name: [] for name in hosts}
        threads, resident = {}, {}
        for _ in range(arguments.runs):  # in turns, so every host sees the same machine
            for name, host in hosts.items():
                rss, threads[name], resident[name] = measure([host, arguments.device, sound], arguments.sounds, env)
                figures[name].append(rss)

        print(f"VmRSS of a C host on ALSA '{arguments.device}', median of {arguments.runs} runs (MiB; threads after the last sound):")
        print(f"  {'':12} {'start':>8} {'1 sound':>8} {f'{arguments.sounds} sounds':>10} {'peak':>8}   threads")
        bare = [statistics.median(run[k] for run in figures["bare"]) for k in range(4)]
        for name, runs in figures.items():
            medians = [statistics.median(run[k] for run in runs) for k in range(4)]
            print(f"  {name:12} {medians[0] / 1024:8.1f} {medians[1] / 1024:8.1f} {medians[2] / 1024:10.1f} {medians[3] / 1024:8.1f}   "
                  f"{'/'.join(map(str, threads[name]))}   (start {(medians[0] - bare[0]) / 1024:+.1f} beside bare)")
        if arguments.smaps:
            for name, totals in resident.items():
                print(f"{name} host at start: {sum(totals.values()) / 1024:.2f} MiB resident")
                for mapping, kib in totals.most_common():
                    if kib >= 64:
                        print(f"  {kib:7d} KiB  {mapping}")


if __name__ == "__main__":
    main()
