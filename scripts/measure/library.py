#!/usr/bin/env python3
"""A C daemon playing notification sounds on libnoti-play beside the same daemon on libcanberra
0.30, measured in the same run: the play call, the first byte at the device, memory, CPU time and
idle wake-ups. Prints a Markdown table of medians.

Both daemons are small C programs written here (the approach of scripts/measure/host-memory.py). Each
creates a context for the same ALSA device, plays the same sound (sox: 0.2 s, 44.1 kHz, 16-bit
mono WAV) --sounds times, one after the other: it takes CLOCK_MONOTONIC just before and just after
the play call, waits for the sound's callback, waits --gap seconds (not after the last), and
prints the times. Then it stays idle, its context alive, until told to free it.

  noti-play    noti_play_new(device, NULL, 0); noti_play_file(ctx, path, 1.0f, 0, callback, ...);
               noti_play_free. The library as shipped: scripts/install.sh --prefix into a
               temporary folder (a release build), or --prefix of an existing install.
  libcanberra  ca_context_create, ca_context_set_driver("alsa"), ca_context_change_device;
               ca_context_play_full with CA_PROP_MEDIA_FILENAME; ca_context_destroy. Debian's
               libcanberra0 0.30 and its ALSA backend. Nothing opens the context before the first
               play, as in most daemons, so libcanberra's first call also loads its ALSA backend
               (ca_context_open is lazy).

The device: ALSA's `file` plugin (slave `null`) writing raw frames into a FIFO that this script
reads, one FIFO per daemon and run: `file:FILE=FIFO,FORMAT=raw`. The reader is opened first
(O_RDONLY|O_NONBLOCK, then blocking again), with a writer of our own held open too, so that the
plugin's open never blocks and the reader never sees end-of-file when a daemon closes its device
(libcanberra closes it after every sound). A reader thread timestamps each read with
CLOCK_MONOTONIC; a sound's first byte is the first read after the "before the call" time the
program printed for it (the sounds are separated by --gap, so the previous one's bytes have all
arrived).

What the figures mean, and what this device does not show:
  play call      wall time of noti_play_file / ca_context_play_full on the caller's thread; the
                 first call (no device open yet) apart from the warm ones (the 2nd to last of a
                 run). Median and max over all runs' calls.
  first byte     from just before the play call to the first bytes in the FIFO, as this
                 script's reader thread sees them (its own lag, measured by writing a byte into
                 each FIFO before the daemon starts, is printed above the table: a few tens of
                 µs, in both columns alike). The null slave has no clock: writes never wait, so
                 sounds play faster than real time, and these are the software path's
                 latencies, not a sound card's. The file plugin also holds back one device
                 buffer: it writes to the file only what exceeds a buffer, the rest at drain.
                 So noti-play's first byte comes once it has written a little over its 30 ms
                 buffer (3 periods of 10 ms, starting at one period); libcanberra sets no buffer
                 size, so ALSA picks the largest, and its first byte is its drain: the whole
                 0.2 s sound at once. On a card both would start after their first write
                 (libcanberra keeps ALSA's default start threshold, one frame). "first" = no
                 device open yet; "warm" = the 2nd to last sounds: noti-play's device is still
                 open (it stays open 5 s after a sound); libcanberra's ALSA backend opens and
                 closes the device for every sound, on the caller's thread (the play call opens
                 the file and the device; a thread of its own writes, drains and closes).
  callback       from just before the play call to the sound's callback (taken in it): with no
                 clock, the time to decode and push 0.2 s through the device and drain it.
  peak RSS       VmHWM (/proc/PID/status), read after the idle windows, just before the daemon
                 frees its context; median of runs.
  CPU time       user+sys of the daemon process (getrusage RUSAGE_SELF in the program: every
                 thread, ended ones included), from exec to the last sound's callback, and to
                 the end of the idle windows ("whole run"); median of runs.
  idle wake-ups  context switches (voluntary + nonvoluntary, summed over /proc/PID/task/*/status,
                 each thread's last value kept when it ends) in two windows after the last
                 sound's callback: 0-5 s (noti-play's device still open) and 6-16 s (it closed
                 at 5 s); per second, median of runs. The daemon's main thread sleeps in
                 fgets meanwhile. The first window opens at the last callback, so it also
                 counts the last sound's threads going back to sleep (the callback thread,
                 noti-play's render thread ending its drain, the daemon's main thread): a few
                 switches in all; a check sampling every second saw none from 1 s to 4.9 s.
  free           wall time of noti_play_free / ca_context_destroy.
The play call is also timed on the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), and its
context switches counted (getrusage RUSAGE_THREAD): a call that took long on the wall clock but
not on the CPU clock waited, either blocked (a voluntary switch: a lock, a syscall that sleeps)
or preempted (an involuntary one: the machine was busy).

Each run starts both daemons one after the other (the order alternates between runs): the
second daemon's sounds play while the first sits in its idle windows (its /proc is then read
only at the window edges, not polled), and the run ends 16 s after the second daemon's last
sound: about 23 s a run with the defaults.

Real-time scheduling: noti-play's render thread asks for SCHED_FIFO, which it gets when the daemon
may (root, or CAP_SYS_NICE, or an RLIMIT_RTPRIO), and a SCHED_FIFO thread preempts any ordinary
one on its CPU. The table's preamble says how many real-time threads each daemon had after its
sounds; --no-realtime starts both daemons through setpriv without CAP_SYS_NICE, as a desktop
session's unprivileged daemon runs.

Usage: scripts/measure/library.py [--runs 5] [--sounds 10] [--gap 0.3] [--prefix DIR] [--no-realtime] [--verbose]
Needs: gcc, pkg-config, libcanberra-dev, libasound2-dev, sox, and a Swift toolchain unless
--prefix names an installed noti-play.
"""
import argparse, os, queue, statistics, subprocess, sys, tempfile, threading, time

from proc_threads import context_switches, realtime_threads  # scripts/measure/proc_threads.py

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IDLE_WINDOWS = ((0.0, 5.0), (6.0, 16.0))  # seconds after the last sound's callback
LINE_TIMEOUT = 30.0  # seconds a daemon may take to print its next line before we give up

# The part both daemons share: times, the wait for a callback, the command loop. Each daemon
# adds play(i) (queues sound i; 0 on success) and free_context(). Commands on stdin:
#   sounds N GAP_MS   play N sounds, GAP_MS between a callback and the next call; prints
#                     "sound I BEFORE AFTER CALLBACK CPU VOLUNTARY INVOLUNTARY" for each: CLOCK_MONOTONIC
#                     ns just before and after the play call and in the callback, the calling
#                     thread's CPU ns in the call, and its context switches in the call (a
#                     voluntary one: the call blocked; involuntary: it was preempted); then
#                     "done USER_US SYS_US" (getrusage, every thread)
#   rusage            prints "rusage USER_US SYS_US"
#   quit              frees the context, prints "freed NS", exits 0
COMMON = r"""
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ended;            /* 0 playing, 1 ended well, -1 failed */
static uint64_t ended_at;
static char ended_detail[512];

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void report_end(int ok, const char *detail) {
    uint64_t at = now_ns();
    pthread_mutex_lock(&lock);
    ended_at = at;
    ended = ok ? 1 : -1;
    snprintf(ended_detail, sizeof ended_detail, "%s", detail ? detail : "");
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void print_rusage(const char *tag) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("%s %lld %lld\n", tag,
           (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec,
           (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec);
}

static int play(int sound);  /* 0: queued */
static void free_context(void);

static int command_loop(void) {
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        int count, gap_ms;
        if (sscanf(line, "sounds %d %d", &count, &gap_ms) == 2) {
            for (int sound = 0; sound < count; sound++) {
                pthread_mutex_lock(&lock);
                ended = 0;
                pthread_mutex_unlock(&lock);
                struct rusage usage_before, usage_after;
                struct timespec cpu_before, cpu_after;
                getrusage(RUSAGE_THREAD, &usage_before);
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_before);
                uint64_t before = now_ns();
                int failed = play(sound);
                uint64_t after = now_ns();
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_after);
                getrusage(RUSAGE_THREAD, &usage_after);
                if (failed) { printf("error play call %d failed\n", sound + 1); fflush(stdout); return 3; }
                pthread_mutex_lock(&lock);
                while (ended == 0) pthread_cond_wait(&changed, &lock);
                int outcome = ended;
                uint64_t at = ended_at;
                pthread_mutex_unlock(&lock);
                if (outcome < 0) { printf("error sound %d: %s\n", sound + 1, ended_detail); fflush(stdout); return 4; }
                long long cpu = (cpu_after.tv_sec - cpu_before.tv_sec) * 1000000000LL + (cpu_after.tv_nsec - cpu_before.tv_nsec);
                printf("sound %d %llu %llu %llu %lld %ld %ld\n", sound + 1, (unsigned long long)before,
                       (unsigned long long)after, (unsigned long long)at, cpu,
                       usage_after.ru_nvcsw - usage_before.ru_nvcsw, usage_after.ru_nivcsw - usage_before.ru_nivcsw);
                fflush(stdout);
                if (sound + 1 < count) {
                    struct timespec pause = { gap_ms / 1000, (long)(gap_ms % 1000) * 1000000L };
                    nanosleep(&pause, NULL);
                }
            }
            print_rusage("done");
        } else if (strcmp(line, "rusage\n") == 0) {
            print_rusage("rusage");
        } else if (strcmp(line, "quit\n") == 0) {
            uint64_t before = now_ns();
            free_context();
            printf("freed %llu\n", (unsigned long long)(now_ns() - before));
            fflush(stdout);
            return 0;
        } else {
            printf("error unknown command\n");
        }
        fflush(stdout);
    }
    return 5;
}
"""

NOTI_PLAY_DAEMON = COMMON + r"""
#include <noti-play.h>

static noti_play *player;
static const char *path;

static void sound_ended(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    (void)id; (void)user_data;
    report_end(result == NOTI_PLAY_FINISHED, detail);
}

static int play(int sound) {
    (void)sound;
    char *error = NULL;
    uint64_t id = noti_play_file(player, path, 1.0f, 0, sound_ended, NULL, &error);
    if (!id) { fprintf(stderr, "noti_play_file: %s\n", error ? error : "?"); noti_play_free_string(error); }
    return id == 0;
}

static void free_context(void) { noti_play_free(player); }

int main(int argc, char **argv) {
    if (argc != 3) return 64;
    path = argv[2];
    player = noti_play_new(argv[1], NULL, 0);
    if (!player) return 1;
    printf("ready\n");
    fflush(stdout);
    return command_loop();
}
"""

CANBERRA_DAEMON = COMMON + r"""
#include <canberra.h>

static ca_context *context;
static const char *path;

static void sound_ended(ca_context *c, uint32_t id, int code, void *user_data) {
    (void)c; (void)id; (void)user_data;
    report_end(code == CA_SUCCESS, ca_strerror(code));
}

static int play(int sound) {
    ca_proplist *properties;
    ca_proplist_create(&properties);
    ca_proplist_sets(properties, CA_PROP_MEDIA_FILENAME, path);
    int code = ca_context_play_full(context, (uint32_t)sound + 1, properties, sound_ended, NULL);
    ca_proplist_destroy(properties);
    if (code < 0) fprintf(stderr, "ca_context_play_full: %s\n", ca_strerror(code));
    return code < 0;
}

static void free_context(void) { ca_context_destroy(context); }

int main(int argc, char **argv) {
    if (argc != 3) return 64;
    path = argv[2];
    if (ca_context_create(&context) < 0) return 1;
    if (ca_context_set_driver(context, "alsa") < 0 || ca_context_change_device(context, argv[1]) < 0) return 2;
    printf("ready\n");
    fflush(stdout);
    return command_loop();
}
"""


def run(command, **options):
    return subprocess.run(command, check=True, **options)


def pkg_config(prefix, *packages):
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib/pkgconfig")) if prefix else None
    return run(["pkg-config", "--cflags", "--libs", *packages], capture_output=True, text=True, env=env).stdout.split()


def monotonic_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class FifoSink:
    """A FIFO for ALSA's file plugin, read by a thread that timestamps every read."""

    def __init__(self, path):
        self.path = path
        os.mkfifo(path)
        # The reader first, without blocking; then a writer of our own, so that the daemon's
        # open never waits and its close (libcanberra's after every sound) is no end-of-file.
        self.reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.keeper = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.set_blocking(self.reader, True)
        self.reads = []  # (CLOCK_MONOTONIC ns, bytes)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def reader_lag(self, count=5):
        """[ns] from writing a byte into the FIFO ourselves to the reader thread's timestamp."""
        lags = []
        for _ in range(count):
            seen = len(self.reads)
            sent = monotonic_ns()
            os.write(self.keeper, b"\0")
            while len(self.reads) == seen:
                time.sleep(0.001)
            lags.append(self.reads[seen][0] - sent)
        del self.reads[:]
        return lags

    def _read(self):
        while True:
            data = os.read(self.reader, 1 << 16)
            at = monotonic_ns()
            if not data:
                return
            self.reads.append((at, len(data)))

    def close(self):
        os.close(self.keeper)  # the daemon has exited: now the reader sees end-of-file
        self.thread.join(5)
        os.close(self.reader)

    def first_byte_after(self, since, until=None):
        """(ns of the first read at or after `since` and before `until`, bytes read in between)."""
        first, total = None, 0
        for at, size in list(self.reads):
            if at >= since and (until is None or at < until):
                first = at if first is None else first
                total += size
        return first, total


class IdleWatch(threading.Thread):
    """Counts a daemon's context switches in IDLE_WINDOWS after `start` (ns). Polls every 100 ms,
    keeping each thread's last value when it ends, except while `busy` is set (the other daemon
    is playing): then it reads /proc only at the window edges."""

    def __init__(self, pid, start, busy):
        super().__init__(daemon=True)
        self.pid, self.start_ns, self.busy = pid, start, busy
        self.last = {}  # tid -> last value seen
        self.marks = {}  # seconds -> cumulative count then
        self.sample()
        self.marks[0.0] = sum(self.last.values())

    def sample(self):
        self.last.update({tid: count for tid, (_, count) in context_switches(self.pid).items()})

    def run(self):
        edges = sorted({edge for window in IDLE_WINDOWS for edge in window} - {0.0})
        for edge in edges:
            due = self.start_ns + int(edge * 1e9)
            while True:
                left = (due - monotonic_ns()) / 1e9
                if left <= 0:
                    break
                time.sleep(min(0.1, left))
                if not self.busy.is_set() and due - monotonic_ns() > 0:
                    self.sample()
            self.sample()
            self.marks[edge] = sum(self.last.values())

    def per_second(self):
        return [(self.marks[b] - self.marks[a]) / (b - a) for a, b in IDLE_WINDOWS]


class Daemon:
    """One daemon process for one run, on its own FIFO."""

    def __init__(self, name, program, folder, sound, env, wrapper):
        self.name = name
        self.sink = FifoSink(os.path.join(folder, f"{name}.fifo"))
        self.reader_lag = self.sink.reader_lag()
        device = f"file:FILE={self.sink.path},FORMAT=raw"
        self.process = subprocess.Popen([*wrapper, program, device, sound], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, env=env)
        self.lines = queue.Queue()
        threading.Thread(target=self._lines, daemon=True).start()
        self.expect("ready")

    def _lines(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, word):
        try:
            line = self.lines.get(timeout=LINE_TIMEOUT)
        except queue.Empty:
            self.fail(f"printed nothing for {LINE_TIMEOUT:.0f} s while we waited for '{word}' (a hang?)")
        if line is None:
            self.fail(f"ended (exit {self.process.wait()}) while we waited for '{word}'")
        fields = line.split()
        if not fields or fields[0] != word:
            self.fail(f"printed '{line}' while we waited for '{word}'")
        return fields[1:]

    def fail(self, message):
        self.process.kill()
        sys.exit(f"{self.name} daemon (pid {self.process.pid}) {message}")

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def play(self, sounds, gap):
        """Plays the sounds; returns [(before, after, callback, call CPU ns, voluntary, involuntary)]
        (see COMMON) and the daemon's CPU µs until the last callback."""
        self.send(f"sounds {sounds} {int(gap * 1000)}")
        times = []
        for _ in range(sounds):
            fields = self.expect("sound")
            times.append(tuple(int(value) for value in fields[1:7]))
        user, system = (int(value) for value in self.expect("done"))
        return times, user + system

    def cpu_us(self):
        self.send("rusage")
        user, system = (int(value) for value in self.expect("rusage"))
        return user + system

    def peak_rss_kib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

    def quit(self):
        self.send("quit")
        freed = int(self.expect("freed")[0])
        self.process.stdin.close()
        if self.process.wait(LINE_TIMEOUT) != 0:
            sys.exit(f"{self.name} daemon exited with {self.process.returncode}")
        self.sink.close()
        return freed


def measure_run(programs, order, folder, sound, env, arguments, wrapper):
    """One run of both daemons; returns {name: figures}."""
    busy = threading.Event()
    daemons, watches, figures = {}, {}, {}
    for name in order:
        busy.set()  # the earlier daemon's idle watch reads /proc only at its window edges now
        daemon = daemons[name] = Daemon(name, programs[name], folder, sound, env, wrapper)
        times, cpu_sounds = daemon.play(arguments.sounds, arguments.gap)
        realtime = realtime_threads(daemon.process.pid)  # noti-play's render thread is still there
        watches[name] = IdleWatch(daemon.process.pid, times[-1][2], busy)
        watches[name].start()
        busy.clear()
        figures[name] = {"times": times, "cpu_sounds": cpu_sounds, "reader_lag": daemon.reader_lag, "realtime": realtime}
    for name in order:
        watches[name].join()
        daemon = daemons[name]
        figures[name]["idle"] = watches[name].per_second()
        figures[name]["cpu_run"] = daemon.cpu_us()
        figures[name]["rss"] = daemon.peak_rss_kib()
        figures[name]["free"] = daemon.quit()
        # Counted once the daemon has exited: a sound's last bytes may reach the FIFO after its
        # callback (noti-play reports the end, then drains).
        times = figures[name].pop("times")
        latencies, sizes = [], []
        for index, (before, *_) in enumerate(times):
            until = times[index + 1][0] if index + 1 < len(times) else None
            first, size = daemon.sink.first_byte_after(before, until)
            latencies.append(None if first is None else first - before)
            sizes.append(size)
        figures[name].update(call=[t[1] - t[0] for t in times], call_cpu=[t[3] for t in times],
                             blocked=[t[4] for t in times], preempted=[t[5] for t in times],
                             first_byte=latencies, bytes=sizes, callback=[t[2] - t[0] for t in times])
    return figures


def median_max(values, scale, digits):
    values = [v for v in values if v is not None]
    if not values:
        return "none"
    return f"{statistics.median(values) / scale:.{digits}f} / {max(values) / scale:.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sounds", type=int, default=10, help="sounds per run (at least 2)")
    parser.add_argument("--gap", type=float, default=0.3, help="seconds between a sound's callback and the next call")
    parser.add_argument("--prefix", help="an installed noti-play (default: install one now)")
    parser.add_argument("--no-realtime", action="store_true",
                        help="run both daemons without CAP_SYS_NICE (setpriv), as an unprivileged daemon runs: "
                             "noti-play's render thread then cannot get SCHED_FIFO")
    parser.add_argument("--verbose", action="store_true", help="print each run's figures too")
    arguments = parser.parse_args()
    if arguments.sounds < 2 or arguments.runs < 1:
        parser.error("--sounds must be at least 2 and --runs at least 1")

    with tempfile.TemporaryDirectory(prefix="measure-library-") as folder:
        prefix = arguments.prefix
        if not prefix:
            prefix = os.path.join(folder, "prefix")
            print("building noti-play (scripts/install.sh, a release build)...", file=sys.stderr)
            run([os.path.join(REPOSITORY, "scripts/install.sh"), "--prefix", prefix], stdout=subprocess.DEVNULL)
        programs = {}
        for name, source, flags in (("noti-play", NOTI_PLAY_DAEMON, pkg_config(prefix, "noti-play")),
                                    ("libcanberra", CANBERRA_DAEMON, pkg_config(None, "libcanberra"))):
            path = os.path.join(folder, f"{name}-daemon")
            with open(path + ".c", "w") as file:
                file.write(source)
            run(["gcc", "-O2", "-Wall", "-pthread", "-o", path, path + ".c", *flags])
            programs[name] = path
        version = subprocess.run(["pkg-config", "--modversion", "libcanberra"], capture_output=True, text=True).stdout.strip()

        sound = os.path.join(folder, "chime.wav")
        run(["sox", "-n", "-r", "44100", "-c", "1", "-b", "16", sound, "synth", "0.2", "sine", "880", "fade", "0", "0.2", "0.05"])
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(folder, "config"), XDG_DATA_HOME=os.path.join(folder, "data"))

        wrapper = ["setpriv", "--bounding-set", "-sys_nice", "--inh-caps", "-sys_nice"] if arguments.no_realtime else []
        results = {"noti-play": [], "libcanberra": []}
        for number in range(arguments.runs):
            order = ["noti-play", "libcanberra"] if number % 2 == 0 else ["libcanberra", "noti-play"]
            run_folder = os.path.join(folder, f"run{number + 1}")
            os.mkdir(run_folder)
            figures = measure_run(programs, order, run_folder, sound, env, arguments, wrapper)
            for name, values in figures.items():
                results[name].append(values)
                missing = [i + 1 for i, latency in enumerate(values["first_byte"]) if latency is None]
                if missing:
                    print(f"run {number + 1}: {name}: no byte reached the device for sound(s) {missing}", file=sys.stderr)
                if arguments.verbose:
                    print(f"run {number + 1} {name}: call µs " + " ".join(
                              f"{v / 1e3:.0f}" + "b" * bool(b) + "p" * bool(p)
                              for v, b, p in zip(values["call"], values["blocked"], values["preempted"]))
                          + " (b: blocked, p: preempted); its CPU µs " + " ".join(f"{v / 1e3:.0f}" for v in values["call_cpu"])
                          + "; first byte ms " + " ".join("-" if v is None else f"{v / 1e6:.2f}" for v in values["first_byte"])
                          + "; callback ms " + " ".join(f"{v / 1e6:.2f}" for v in values["callback"])
                          + "; bytes " + " ".join(str(v) for v in values["bytes"])
                          + f"; cpu ms {values['cpu_sounds'] / 1e3:.1f}/{values['cpu_run'] / 1e3:.1f}"
                          + f"; idle/s {values['idle'][0]:.2f} {values['idle'][1]:.2f}; rss {values['rss']} KiB"
                          + f"; free µs {values['free'] / 1e3:.0f}", file=sys.stderr)

        def pooled(name, key, first):
            return [value for run_figures in results[name]
                    for value in (run_figures[key][:1] if first else run_figures[key][1:])]

        def run_median(name, key, scale, digits, index=None):
            values = [f[key] if index is None else f[key][index] for f in results[name]]
            return f"{statistics.median(values) / scale:.{digits}f}"

        names = ("noti-play", "libcanberra")
        lags = [lag for name in names for run_figures in results[name] for lag in run_figures["reader_lag"]]
        idle = [f"{a:g}–{b:g} s" for a, b in IDLE_WINDOWS]
        rows = [
            ("play call, first (µs, median / max)", lambda n: median_max(pooled(n, "call", True), 1e3, 0)),
            ("play call, warm (µs, median / max)", lambda n: median_max(pooled(n, "call", False), 1e3, 0)),
            ("play call, the calling thread's CPU time, first (µs, median / max)",
             lambda n: median_max(pooled(n, "call_cpu", True), 1e3, 0)),
            ("play call, the calling thread's CPU time, warm (µs, median / max)",
             lambda n: median_max(pooled(n, "call_cpu", False), 1e3, 0)),
            ("play calls that blocked (a voluntary context switch inside) / were preempted, of all",
             lambda n: f"{sum(1 for v in pooled(n, 'blocked', True) + pooled(n, 'blocked', False) if v)} / "
                       f"{sum(1 for v in pooled(n, 'preempted', True) + pooled(n, 'preempted', False) if v)} "
                       f"of {len(pooled(n, 'call', True) + pooled(n, 'call', False))}"),
            ("call to first byte at the device, first sound (ms, median / max)",
             lambda n: median_max(pooled(n, "first_byte", True), 1e6, 2)),
            ("call to first byte at the device, warm (ms, median / max)",
             lambda n: median_max(pooled(n, "first_byte", False), 1e6, 2)),
            ("call to callback, warm (ms, median / max)", lambda n: median_max(pooled(n, "callback", False), 1e6, 2)),
            ("peak RSS, VmHWM (MiB)", lambda n: run_median(n, "rss", 1024, 2)),
            ("CPU time user+sys, exec to last callback (ms)", lambda n: run_median(n, "cpu_sounds", 1e3, 1)),
            ("CPU time user+sys, whole run (ms)", lambda n: run_median(n, "cpu_run", 1e3, 1)),
            (f"idle wake-ups/s, {idle[0]} after the last sound", lambda n: run_median(n, "idle", 1, 2, 0)),
            (f"idle wake-ups/s, {idle[1]} after the last sound", lambda n: run_median(n, "idle", 1, 2, 1)),
            ("free the context (µs, median)", lambda n: run_median(n, "free", 1e3, 0)),
        ]
        print(f"A C daemon playing a 0.2 s 44.1 kHz 16-bit mono WAV {arguments.sounds} times ({arguments.gap:g} s "
              f"between a callback and the next call) on ALSA's file plugin into a FIFO; {arguments.runs} runs. "
              f"\"first\" = no device open yet; \"warm\" = sounds 2–{arguments.sounds}; medians and maxima over all runs' "
              f"calls, other figures medians of runs. This script's FIFO reader adds {statistics.median(lags) / 1e3:.0f} µs "
              f"(median; max {max(lags) / 1e3:.0f} µs) to the first-byte figures. Threads under a real-time policy "
              f"after the sounds: " + ", ".join(f"{n} {statistics.median(f['realtime'] for f in results[n]):g}" for n in names)
              + (" (run without CAP_SYS_NICE)" if arguments.no_realtime else
                 f" ({'as root: ' if os.geteuid() == 0 else ''}noti-play's render thread asks for SCHED_FIFO; "
                 "--no-realtime runs both daemons without CAP_SYS_NICE)") + ".\n")
        print(f"| | noti-play | libcanberra {version} (ALSA backend) |")
        print("|---|---:|---:|")
        for label, cell in rows:
            print(f"| {label} | {cell(names[0])} | {cell(names[1])} |")


if __name__ == "__main__":
    main()
