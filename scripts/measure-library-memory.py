#!/usr/bin/env python3
"""Peak memory of a C daemon playing notification sounds: libnoti-play beside libcanberra 0.30.

Both daemons do the same, in the same run, on the same sound and the same ALSA device (the
`file:` plugin writing into a file; libcanberra's ALSA backend, the one Debian's libcanberra0
ships, opens any ALSA PCM name): create a context, play the sound --sounds times one after the
other, waiting for each to end, free the context, exit.

  noti-play   docs/examples/noti-play-daemon.c against the library as shipped
              (scripts/install.sh into a temporary prefix, or --prefix of an existing install)
  libcanberra a tiny C daemon written here: ca_context_create, ca_context_set_driver("alsa"),
              ca_context_change_device, ca_context_play_full with CA_PROP_MEDIA_FILENAME

Peak memory is the daemon's VmHWM (/proc/PID/status: the high-water mark of its resident set),
read once every sound has ended, before it frees its context: median of --runs runs. Not wait4's
ru_maxrss, nor /usr/bin/time's: Linux carries the parent's mark across fork and exec into it
(about 15 MiB from this Python), which would hide both daemons under the same number.
--smaps also prints each daemon's resident memory by mapping (/proc/PID/smaps) at that moment,
from the last run. (The file plugin has no clock: both daemons play faster than real time.)

Usage: scripts/measure-library-memory.py [--runs 5] [--sounds 3] [--prefix DIR] [--smaps]
Needs: gcc, pkg-config, libcanberra-dev, libasound2-dev, sox (writes the sound), a Swift
toolchain unless --prefix names an installed noti-play.
"""
import argparse, collections, os, statistics, subprocess, sys, tempfile

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CANBERRA_DAEMON = r"""
#include <canberra.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ended;

static void sound_ended(ca_context *context, uint32_t id, int code, void *user_data) {
    (void)context; (void)id; (void)user_data;
    pthread_mutex_lock(&lock);
    ended = code == CA_SUCCESS ? 1 : -1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv) {
    if (argc != 4) return 64;
    ca_context *context;
    if (ca_context_create(&context) < 0) return 1;
    if (ca_context_set_driver(context, "alsa") < 0 || ca_context_change_device(context, argv[1]) < 0) return 2;
    for (int sound = 0; sound < atoi(argv[3]); sound++) {
        ca_proplist *properties;
        ca_proplist_create(&properties);
        ca_proplist_sets(properties, CA_PROP_MEDIA_FILENAME, argv[2]);
        ended = 0;
        int code = ca_context_play_full(context, (uint32_t)sound + 1, properties, sound_ended, NULL);
        ca_proplist_destroy(properties);
        if (code < 0) { fprintf(stderr, "ca_context_play_full: %s\n", ca_strerror(code)); return 3; }
        pthread_mutex_lock(&lock);
        while (ended == 0) pthread_cond_wait(&changed, &lock);
        pthread_mutex_unlock(&lock);
        if (ended < 0) { fprintf(stderr, "the sound failed\n"); return 4; }
        printf("ended %d\n", sound + 1);
    }
    /* Like noti-play-daemon's "wait": tell the measuring script, then wait for "quit". */
    printf("idle\n");
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) return 5;
    ca_context_destroy(context);
    return 0;
}
"""


def run(command, **options):
    return subprocess.run(command, check=True, **options)


def pkg_config(prefix, *packages):
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib/pkgconfig")) if prefix else None
    return run(["pkg-config", "--cflags", "--libs", *packages], capture_output=True, text=True, env=env).stdout.split()


def peak_rss_kib(command, requests, idle_lines, env):
    """Runs `command`, sends it `requests`, and once it has printed `idle_lines` "idle" lines
    (every sound ended), reads its VmHWM and its resident KiB by mapping; then sends "quit" and
    checks that it exits with 0."""
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
    child.stdin.write(requests)
    child.stdin.flush()
    seen = 0
    while seen < idle_lines:
        line = child.stdout.readline()
        if not line:
            sys.exit(f"{command[0]} ended early (exit {child.wait()})")
        seen += line == "idle\n"
    with open(f"/proc/{child.pid}/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    resident = mappings(child.pid)
    child.stdin.write("quit\n")
    child.stdin.close()
    child.stdout.read()
    if child.wait() != 0:
        sys.exit(f"{command[0]} exited with {child.returncode}")
    return peak, resident


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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sounds", type=int, default=3)
    parser.add_argument("--prefix", help="an installed noti-play (default: install one now)")
    parser.add_argument("--smaps", action="store_true", help="also print each daemon's resident memory by mapping")
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="library-memory-") as folder:
        prefix = arguments.prefix
        if not prefix:
            prefix = os.path.join(folder, "prefix")
            run([os.path.join(REPOSITORY, "scripts/install.sh"), "--prefix", prefix], stdout=subprocess.DEVNULL)
        noti_play = os.path.join(folder, "noti-play-daemon")
        run(["gcc", "-O2", "-o", noti_play, os.path.join(REPOSITORY, "docs/examples/noti-play-daemon.c"), *pkg_config(prefix, "noti-play")])
        canberra_source = os.path.join(folder, "canberra-daemon.c")
        with open(canberra_source, "w") as file:
            file.write(CANBERRA_DAEMON)
        canberra = os.path.join(folder, "canberra-daemon")
        run(["gcc", "-O2", "-pthread", "-o", canberra, canberra_source, *pkg_config(None, "libcanberra")])

        # One sound both read: 16-bit WAV (libcanberra reads WAV and Vorbis), 0.5 s, stereo 44.1 kHz.
        sound = os.path.join(folder, "chime.wav")
        run(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", sound, "synth", "0.5", "sine", "880", "fade", "0", "0.5", "0.1"])
        device = f"file:FILE={os.path.join(folder, 'played.raw')},FORMAT=raw"
        env = dict(os.environ, NOTI_PLAY_DEVICE=device, XDG_CONFIG_HOME=os.path.join(folder, "config"),
                   XDG_DATA_HOME=os.path.join(folder, "data"))
        requests = f"file {sound}\nwait\n" * arguments.sounds

        figures = {"noti-play": [], "libcanberra": []}
        resident = {}
        for _ in range(arguments.runs):  # alternated, so both see the same machine
            peak, resident["noti-play"] = peak_rss_kib([noti_play], requests, arguments.sounds, env)
            figures["noti-play"].append(peak)
            peak, resident["libcanberra"] = peak_rss_kib([canberra, device, sound, str(arguments.sounds)], "", 1, env)
            figures["libcanberra"].append(peak)
        print(f"peak RSS of a C daemon playing {arguments.sounds} sound(s), median of {arguments.runs} (MiB):")
        for name, values in figures.items():
            print(f"  {name:12} {statistics.median(values) / 1024:6.2f}   runs: " + " ".join(f"{v / 1024:.2f}" for v in values))

        if arguments.smaps:
            for name, totals in resident.items():
                print(f"{name} daemon, its sounds played: {sum(totals.values()) / 1024:.2f} MiB resident")
                for mapping, kib in totals.most_common():
                    if kib >= 64:
                        print(f"  {kib:7d} KiB  {mapping}")

if __name__ == "__main__":
    main()
