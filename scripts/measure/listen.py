#!/usr/bin/env python3
"""`noti-play listen` beside the loops users paste today (dbus-monitor + paplay, dbus-monitor +
canberra-gtk-play), measured in the same run on the same bus and the same sound device: the time
from a Notify call on the bus to the first sample of its sound at the device; then the listener's
memory, CPU time and idle wake-ups. Prints Markdown tables.

Build the command first (a release build, as a user installs it), then point this script at it:

  swift build -c release --static-swift-stdlib --product noti-play --scratch-path /tmp/measure-build
  scripts/measure/listen.py --noti-play /tmp/measure-build/release/noti-play

(The default --noti-play is .build/release/noti-play, the README's build.) The binary runs as
scripts/install.sh lays it out: a hard link (or copy) in PREFIX/bin beside
PREFIX/share/noti-play/sounds (the checkout's Sounds/*.caf), in the temporary folder. noti-play
finds its bundled sounds from where its executable lies, and a build under --scratch-path outside
the checkout finds none: every notification would be "sound 'default.caf' was not found".

What runs, all private to this script (a temporary folder; nothing of the user's session is used):
  bus        a dbus-daemon with a config of its own (EXTERNAL auth, a policy that allows
             eavesdropping and monitors, a session bus's limits), and
             Tests/ListenScenarios/fake-notification-server.c on it (compiled here) owning
             org.freedesktop.Notifications, so every Notify is answered as a real server would
             (its capabilities have no "sound": listen plays).
  sender     a small C program (sd-bus, compiled here) that stays connected to the bus and sends
             a Notify (app "measure-listen", no sound hint: the default sound; urgency 1) for each
             line it reads. It prints CLOCK_MONOTONIC just before sd_bus_call_async, which writes
             the message to the bus socket at once (and just after: a few µs later). No process
             is spawned per notification, so the timestamp is the call entering the bus, not a
             gdbus or notify-send start-up.
  device     a PulseAudio server (pulseaudio -n: only a native-protocol socket and a
             module-null-sink, s16le 44.1 kHz stereo) and `parec --latency-msec=1` recording the
             sink's monitor into a pipe that a thread of this script reads, timestamping each read
             with CLOCK_MONOTONIC (the sender's clock). A sound's first sample is the first read
             holding a non-zero byte after the Notify's timestamp (the script waits for silence
             before each Notify, so it is that notification's sound; the sound's second sample
             is already non-zero). parec delivers ~1 ms pieces (172 bytes); a sound written to a
             connected stream is seen ~0.3 ms later (the "device path alone" reference), the
             same for every contender.
             Not module-pipe-sink into a FIFO, as first planned: it writes nothing while no stream
             is connected and then, unclocked, as fast as its reader reads (faster than real time,
             a core spinning for as long as a stream stays connected: 5 s after every noti-play
             sound, on a 2-core machine), or with use_system_clock_for_timing=yes silence and
             sound alike in 4 KiB blocks every 23 ms: too coarse for a 5 ms goal. The null sink
             is clocked, and rewinds to mix a new stream's first samples at once.
  contenders, one after the other, each alone on the bus, each playing the same sound:
    noti-play listen   `noti-play listen --interval 0 --burst-limit 100 --verbose` (no rate
             limit), started once, playing the bundled Sounds/default.caf (the notification names
             no sound) on ALSA's `default`, which an ALSA_CONFIG_PATH file of ours makes the ALSA
             pulse plugin (`pcm.!default { type pulse }`, libasound2-plugins), with PULSE_SERVER
             pointing at our server: the path a PulseAudio or PipeWire desktop gives it.
    dbus-monitor + paplay, dbus-monitor + canberra-gtk-play   bash running the loop users paste:
               dbus-monitor "interface='org.freedesktop.Notifications',member='Notify'" |
               while read -r line; do case "$line" in *member=Notify*) PLAYER & ;; esac; done
             with PLAYER `paplay SOUND.wav` or `canberra-gtk-play -f SOUND.wav` (libcanberra's
             pulse backend; GTK needs a display: an Xvfb of ours; with no accessibility bus on our
             bus, GTK's AT-SPI bridge gives up at once). SOUND.wav is default.caf converted by
             ffmpeg to 16-bit PCM WAV (paplay and libcanberra cannot read IMA4 CAF; sox cannot
             either); it starts with the same samples.
  references, without the bus (--reference-count each; 0: none): the device path alone (a
             connected `pacat --latency-msec=1` written the sound's first 0.2 s by this script),
             and the paplay loop without dbus-monitor (the same bash `while read` loop, told by
             this script to start `paplay SOUND.wav &`): the loop's cost that is paplay's own.

What the latency figures mean:
  Each contender gets one notification right after it started ("first after start", shown
  apart: for noti-play the first sound opens ALSA and loads its pulse plugin and libpulse), then
  --count notifications, each sent --gap s (+ up to half of it, random, so that nothing
  periodic lines up with them) after the previous sound ended (150 ms of silence at the sink).
  The sound lasts 0.9 s, so a notification comes every ~1.3 s: noti-play's ALSA device, which
  stays open 5 s after a sound, stays open: its warm figures. Then --cold notifications, each
  once its device has closed (the script waits until our PulseAudio has no stream from it, >5 s
  after the last sound): "cold" opens the device again (a pulse connection and stream). Median,
  p90 (statistics.quantiles, 10 parts, inclusive) and max, and each median's ratio to
  noti-play's warm median.
  A figure covers everything from the call entering the bus socket to the sample leaving the
  sound server: dbus-daemon routing the call to the monitor, the contender's reaction (for the
  loops dbus-monitor printing, bash reading, a fork and exec; paplay connecting to PulseAudio and
  reading the file; canberra-gtk-play also starting GTK and connecting to the X server), the
  client library's buffering (PulseAudio starts a stream once its prebuffer is full) and the
  null sink's mixing. It is not the time to the ear: a sound card adds its own buffer
  (PulseAudio's on real hardware: tens of ms, the same for every contender), which this device
  has none of. The machine is otherwise idle; PulseAudio runs with Debian's daemon.conf
  (real-time scheduling when it may: as root, yes); noti-play's render thread asks for
  SCHED_FIFO (the table says how many real-time threads it had).
  "Notify → its log line" (below the table) is when this script read listen's --verbose
  "plays" line from its stderr pipe: an upper bound of the time to its decision.

What the listener figures mean (a second `noti-play listen`, default options, no --verbose, as
a user's service runs; the default rules: one sound per app per second, at most 3 a second):
  RSS           VmRSS (and RssAnon, its anonymous part) from /proc/PID/status: connected and idle
                (fresh); after --burst notifications once their sounds ended; once its device
                closed. VmHWM is the peak. The first sound maps ALSA's pulse plugin, libpulse and
                their libraries (file-backed pages, shared with other processes on a desktop),
                which stay mapped when the device closes.
  CPU time      utime+stime from /proc/PID/stat (every thread, ended ones too; 10 ms ticks), and
                the sum of its threads' run times from /proc/PID/task/*/schedstat (ns; polled
                every 0.1 s, a thread's last value kept if it ends), from just before the burst
                to once the sounds ended and its CPU time stopped growing for 1 s: the bus
                messages, the rules and the few sounds that play; per notification; and by
                thread: the listener's own (the main thread, "noti-play": the bus and the
                rules) apart from the player's (noti-play-ctl, noti-play-cb) and the pulse
                plugin's (threaded-ml). The burst: the sender writes --burst Notify calls (apps cycling
                through --burst-apps names) as fast as it can, then waits for every reply; most
                are rate-limited (no sound), as in a flood.
  idle wake-ups context switches (voluntary + nonvoluntary, /proc/PID/task/*/status, summed over
                threads, a thread's last value kept if it ends) per second over --idle-seconds of
                nothing happening: fresh (before any notification), and after the burst once its
                device closed (our PulseAudio has no stream from it, then 1 s more); the threads
                that woke, by name. 0: it sleeps in poll until something arrives.
  For the latency listener (interval 0) the same counts are taken while it waits for the cold
  notifications: with its device open and no sound (1 s to 4.5 s after a sound ended: the pulse
  plugin's libpulse thread, "threaded-ml", is the one that wakes), and after it closed.
What these figures do not show: a real desktop's bus traffic (a busier bus wakes a monitor only
for the messages its match rules select), PipeWire (whose pulse and ALSA layers differ), a sound
card's own latency, a loaded machine, a notification that names a sound file.

Takes about 5 minutes with the defaults. Every process it starts runs in a process group of its
own and is stopped at the end, on failure, on Ctrl-C and on SIGTERM; a missing tool ends it at
once with one line naming the Debian packages.

Usage: scripts/measure/listen.py [--noti-play PATH] [--count 50] [--cold 3] [--burst 1000]
           [--burst-apps 10] [--idle-seconds 10] [--gap 0.25] [--reference-count 20] [--verbose]
Needs (Debian 12): dbus-daemon dbus-bin gcc libsystemd-dev pulseaudio pulseaudio-utils
libasound2-plugins gnome-session-canberra libcanberra-pulse xvfb ffmpeg bash.
"""
import argparse, bisect, glob, os, queue, random, shlex, shutil, signal, statistics, subprocess, sys, tempfile, threading, time, wave

from proc_threads import context_switches, realtime_threads, thread_runtimes  # scripts/measure/proc_threads.py

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_NOTI_PLAY = os.path.join(REPOSITORY, ".build", "release", "noti-play")
BUILD_COMMAND = "swift build -c release --static-swift-stdlib --product noti-play --scratch-path /tmp/measure-build"
FAKE_SERVER = os.path.join(REPOSITORY, "Tests", "ListenScenarios", "fake-notification-server.c")
BUNDLED_SOUND = os.path.join(REPOSITORY, "Sounds", "default.caf")
SINK = "measure"
QUIET_BEFORE_SEND = 0.15  # seconds of silence at the sink that end a sound
SOUND_TIMEOUT = 5.0  # seconds a sound may take to reach the sink before it counts as missing
FIRST_TIMEOUT = 15.0  # the same for the first notification after a contender starts
DEVICE_CLOSE_WAIT = 15.0  # seconds after a sound that listen's device must have closed by
LINE_TIMEOUT = 15.0
LOOP = ("dbus-monitor \"interface='org.freedesktop.Notifications',member='Notify'\" | "
        "while read -r line; do case \"$line\" in *member=Notify*) {player} & ;; esac; done")

# Sends Notify calls on the session bus ($DBUS_SESSION_BUS_ADDRESS) and stays connected.
# stdin: "notify APP"          one Notify; prints "sent BEFORE AFTER" (CLOCK_MONOTONIC ns just
#                              before and after sd_bus_call_async, which writes it to the socket)
#        "burst COUNT APPS"    COUNT Notify calls at once, apps "burst-app-I % APPS"; prints
#                              "burst FIRST LAST" (before the first, after the last call)
#        "wait"                until every call is answered; prints "replied TOTAL ERRORS LAST_NS"
#        "quit"
SENDER = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

static sd_bus *bus;
static unsigned long pending, replied, errors;
static uint64_t last_reply;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int answered(sd_bus_message *m, void *userdata, sd_bus_error *unused) {
    (void)userdata; (void)unused;
    last_reply = now_ns();
    if (sd_bus_message_is_method_error(m, NULL)) {
        const sd_bus_error *e = sd_bus_message_get_error(m);
        if (errors++ < 5) fprintf(stderr, "sender: Notify failed: %s\n", e && e->message ? e->message : "?");
    }
    replied++;
    pending--;
    return 0;
}

static int notify(const char *app, uint64_t *before, uint64_t *after) {
    sd_bus_message *m = NULL;
    int r = sd_bus_message_new_method_call(bus, &m, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                           "org.freedesktop.Notifications", "Notify");
    if (r >= 0) r = sd_bus_message_append(m, "susssas", app, (uint32_t)0, "", "measure-listen", "a notification", 0);
    if (r >= 0) r = sd_bus_message_append(m, "a{sv}", 1, "urgency", "y", (uint8_t)1);
    if (r >= 0) r = sd_bus_message_append(m, "i", (int32_t)-1);
    *before = now_ns();
    if (r >= 0) r = sd_bus_call_async(bus, NULL, m, answered, NULL, 60 * 1000000ULL);
    *after = now_ns();
    sd_bus_message_unref(m);
    if (r < 0) { fprintf(stderr, "sender: cannot send Notify: %s\n", strerror(-r)); return r; }
    pending++;
    return 0;
}

static int pump(int timeout_ms) {
    for (;;) {
        int r = sd_bus_process(bus, NULL);
        if (r < 0) { fprintf(stderr, "sender: bus failed: %s\n", strerror(-r)); return r; }
        if (r == 0) break;
    }
    if (timeout_ms == 0) return 0;
    struct pollfd fd = { .fd = sd_bus_get_fd(bus), .events = (short)sd_bus_get_events(bus) };
    if (poll(&fd, 1, timeout_ms) < 0 && errno != EINTR) return -errno;
    return 0;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int r = sd_bus_open_user(&bus);
    if (r < 0) { fprintf(stderr, "sender: cannot connect to the bus: %s\n", strerror(-r)); return 1; }
    printf("ready\n");
    char line[256];
    for (;;) {
        struct pollfd fds[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
                                 { .fd = sd_bus_get_fd(bus), .events = (short)sd_bus_get_events(bus) } };
        if (poll(fds, 2, -1) < 0 && errno != EINTR) return 1;
        if (pump(0) < 0) return 1;
        if (!(fds[0].revents & (POLLIN | POLLHUP))) continue;
        if (!fgets(line, sizeof line, stdin)) return 0;
        char app[128];
        unsigned long count, apps;
        uint64_t before, after, first = 0;
        if (sscanf(line, "notify %127s", app) == 1) {
            if (notify(app, &before, &after) < 0) return 1;
            printf("sent %llu %llu\n", (unsigned long long)before, (unsigned long long)after);
        } else if (sscanf(line, "burst %lu %lu", &count, &apps) == 2 && apps > 0) {
            for (unsigned long i = 0; i < count; i++) {
                snprintf(app, sizeof app, "burst-app-%lu", i % apps);
                if (notify(app, &before, &after) < 0) return 1;
                if (i == 0) first = before;
            }
            printf("burst %llu %llu\n", (unsigned long long)first, (unsigned long long)after);
        } else if (strcmp(line, "wait\n") == 0) {
            while (pending > 0)
                if (pump(1000) < 0) return 1;
            printf("replied %lu %lu %llu\n", replied, errors, (unsigned long long)last_reply);
        } else if (strcmp(line, "quit\n") == 0) {
            break;
        } else {
            printf("error unknown command\n");
        }
    }
    sd_bus_flush_close_unref(bus);
    return 0;
}
"""

# The private bus, as the tests have it: monitoring allowed, a session bus's limits.
BUS_CONFIG = os.path.join(REPOSITORY, "Tests/ListenScenarios/private-session-bus.conf")

# The sink first: once the socket exists, clients may connect.
PULSE_SCRIPT = """load-module module-null-sink sink_name={sink} format=s16le rate=44100 channels=2
set-default-sink {sink}
load-module module-native-protocol-unix socket={socket} auth-anonymous=1
"""

# (tool, Debian package) the script cannot work without
TOOLS = (("dbus-daemon", "dbus-daemon"), ("dbus-monitor", "dbus-bin"), ("cc", "gcc"), ("pulseaudio", "pulseaudio"),
         ("parec", "pulseaudio-utils"), ("pacat", "pulseaudio-utils"), ("paplay", "pulseaudio-utils"), ("pactl", "pulseaudio-utils"),
         ("canberra-gtk-play", "gnome-session-canberra"), ("Xvfb", "xvfb"), ("ffmpeg", "ffmpeg"), ("bash", "bash"))
LIBRARIES = (("/usr/include/systemd/sd-bus.h", "libsystemd-dev"),
             ("/usr/lib/*/alsa-lib/libasound_module_pcm_pulse.so", "libasound2-plugins"),
             ("/usr/lib/*/libcanberra-0.30/libcanberra-pulse.so", "libcanberra-pulse"))


class Failure(Exception):
    """One line for the user; the script ends with status 1."""


def monotonic_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def log(message):
    print(f"measure-listen: {message}", file=sys.stderr, flush=True)


class Children:
    """Every process this script starts, each in a session (and process group) of its own, so
    that stopping one also stops what it started (the loops' players) and Ctrl-C in the terminal
    reaches only this script, which then stops them all."""

    def __init__(self):
        self.processes = []

    def start(self, name, argv, **options):
        try:
            process = subprocess.Popen(argv, start_new_session=True, **options)
        except OSError as error:
            raise Failure(f"cannot start {name} ({argv[0]}): {error.strerror}")
        process.name = name
        self.processes.append(process)
        return process

    @staticmethod
    def alive(process):
        """Without reaping it: a process not reaped keeps its id, so its group stays ours to signal."""
        if process.returncode is not None:
            return False
        try:
            info = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return False
        return info is None

    def stop(self, process, first_signal=signal.SIGTERM, timeout=3.0):
        """Signals the process's group, then kills it if it has not ended in `timeout`; the exit status."""
        if process.returncode is None:
            try:
                os.killpg(process.pid, first_signal)  # the group leader is not reaped yet: still ours
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(process.pid, signal.SIGKILL)  # what is left of the group (a player still running)
            except (ProcessLookupError, PermissionError):
                pass
            process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream:
                try:
                    stream.close()
                except OSError:
                    pass
        return process.returncode

    def stop_all(self):
        for process in reversed(self.processes):
            try:
                self.stop(process, timeout=2.0)
            except Exception as error:  # cleaning up: go on with the others
                log(f"could not stop {process.name} (pid {process.pid}): {error}")
        self.processes.clear()


class Lines:
    """A thread reading a child's text stream line by line, each line with its CLOCK_MONOTONIC."""

    def __init__(self, name, stream, echo=False):
        self.name, self.echo = name, echo
        self.queue = queue.Queue()
        self.all = []  # (ns, line)
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for raw in iter(stream.readline, b""):
            at = monotonic_ns()
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.all.append((at, line))
            self.queue.put(line)
            if self.echo:
                log(f"{self.name}: {line}")
        self.queue.put(None)

    def expect(self, word, timeout=LINE_TIMEOUT):
        """The fields after `word` of the next line, which must start with it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise Failure(f"{self.name} printed nothing for {timeout:.0f} s while we waited for '{word}'")
            if line is None:
                raise Failure(f"{self.name} ended while we waited for '{word}'")
            fields = line.split()
            if fields and fields[0] == word:
                return fields[1:]
            raise Failure(f"{self.name} printed '{line}' while we waited for '{word}'")

    def wait_for(self, text, since=0, timeout=LINE_TIMEOUT):
        """The time of the first line at or after `since` containing `text`, None after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            for at, line in list(self.all):
                if at >= since and text in line:
                    return at
            if time.monotonic() > deadline:
                return None
            time.sleep(0.01)


class Sink:
    """parec on the null sink's monitor; a thread timestamps each read and keeps the times of the
    reads holding a non-zero byte."""

    def __init__(self, children, env, stderr):
        self.process = children.start("parec", ["parec", f"--device={SINK}.monitor", "--latency-msec=1", "--raw",
                                                "--format=s16le", "--rate=44100", "--channels=2"],
                                      stdout=subprocess.PIPE, stderr=stderr, env=env)
        self.loud = []  # ns of every read holding a non-zero sample, in order
        self.read_times = []  # ns of the reads while `recording_reads`
        self.recording_reads = True
        self.reads = 0
        self.ended = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        fd = self.process.stdout.fileno()
        while True:
            data = os.read(fd, 1 << 16)
            at = monotonic_ns()
            if not data:
                self.ended = True
                return
            self.reads += 1
            if self.recording_reads:
                self.read_times.append(at)
            if data.lstrip(b"\0"):
                self.loud.append(at)

    def check(self):
        if self.ended:
            raise Failure("parec (the device's recorder) ended; see the log above")

    def wait_running(self, timeout=10.0):
        """Until parec delivers in small pieces (the null sink takes ~1 s to adopt its 1 ms latency)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check()
            start = self.reads
            time.sleep(0.2)
            if self.reads - start >= 100:  # ≥ 500 reads a second: 1-2 ms pieces
                break
        else:
            raise Failure("parec does not deliver the sink's samples in ~1 ms pieces (is the null sink running?)")
        self.read_times.clear()
        time.sleep(1.0)
        self.recording_reads = False
        gaps = [b - a for a, b in zip(self.read_times, self.read_times[1:])]
        self.read_gap = (statistics.median(gaps), sorted(gaps)[int(len(gaps) * 0.99)]) if len(gaps) > 10 else (0, 0)

    def first_loud_after(self, since):
        index = bisect.bisect_left(self.loud, since)
        return self.loud[index] if index < len(self.loud) else None

    def wait_loud(self, since, timeout):
        deadline = since + int(timeout * 1e9)
        while monotonic_ns() < deadline:
            first = self.first_loud_after(since)
            if first is not None:
                return first
            self.check()
            time.sleep(0.002)
        return self.first_loud_after(since)

    def last_loud(self):
        return self.loud[-1] if self.loud else 0

    def wait_quiet(self, quiet, timeout=30.0):
        """Until the sink has been silent for `quiet` seconds; the time of its last loud read."""
        deadline = time.monotonic() + timeout
        while True:
            self.check()
            last = self.last_loud()
            silent_for = (monotonic_ns() - last) / 1e9
            if silent_for >= quiet:
                return last
            if time.monotonic() > deadline:
                raise Failure(f"the sink did not fall silent for {quiet} s within {timeout:.0f} s (a sound that never ends?)")
            time.sleep(min(0.01, quiet - silent_for + 0.001))


class Sender:
    def __init__(self, children, program, env):
        self.process = children.start("sender", [program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.lines = Lines("the Notify sender", self.process.stdout)
        self.lines.expect("ready")

    def send(self, line):
        try:
            self.process.stdin.write((line + "\n").encode())
            self.process.stdin.flush()
        except BrokenPipeError:
            raise Failure("the Notify sender ended")

    def notify(self, app="measure-listen"):
        self.send(f"notify {app}")
        before, after = (int(v) for v in self.lines.expect("sent"))
        return before, after

    def burst(self, count, apps):
        self.send(f"burst {count} {apps}")
        return tuple(int(v) for v in self.lines.expect("burst", timeout=60))

    def wait(self):
        self.send("wait")
        total, errors, last = (int(v) for v in self.lines.expect("replied", timeout=120))
        return total, errors, last


def count_wakeups(pid, seconds):
    """Context switches per second of all threads of `pid` over `seconds` from now (polled every
    0.25 s, reading /proc only, so that a thread's last value is kept if it ends), the number of
    threads at the end, and {thread name: switches} of the threads that switched."""
    start = context_switches(pid)
    last = dict(start)
    end_at = time.monotonic() + seconds
    while True:
        left = end_at - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(0.25, left))
        last.update(context_switches(pid))
    final = context_switches(pid)
    last.update(final)
    by_name = {}
    for tid, (name, count) in last.items():
        switched = count - start.get(tid, (name, 0))[1]
        if switched:
            by_name[name] = by_name.get(name, 0) + switched
    return sum(by_name.values()) / seconds, len(final), by_name


def who(by_name):
    """'name N, ...' of the threads that woke, for the table."""
    return ", ".join(f"{name} {count}" for name, count in sorted(by_name.items(), key=lambda item: -item[1])) or "none"


def proc_status(pid, key):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return None


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime (fields 14, 15)


def sink_inputs(env):
    """How many streams the sound server is playing now (pactl)."""
    done = subprocess.run(["pactl", "list", "short", "sink-inputs"], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise Failure(f"pactl cannot reach our PulseAudio: {done.stderr.strip()}")
    return len([line for line in done.stdout.splitlines() if line.strip()])


def wait_device_closed(env, since_ns, timeout=DEVICE_CLOSE_WAIT):
    """Until no stream is connected to the sound server; seconds from `since_ns` (None: timeout)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sink_inputs(env) == 0:
            return (monotonic_ns() - since_ns) / 1e9
        time.sleep(0.25)
    return None


def check_tools(binary):
    missing = [f"{tool} ({package})" for tool, package in TOOLS if not shutil.which(tool)]
    missing += [f"{pattern.rsplit('/', 1)[1]} ({package})" for pattern, package in LIBRARIES if not glob.glob(pattern)]
    if missing:
        packages = " ".join(sorted({item.split("(")[1].rstrip(")") for item in missing}))
        raise Failure(f"missing: {', '.join(missing)}; on Debian: apt-get install {packages}")
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise Failure(f"no noti-play binary at {binary}; build it first: cd {REPOSITORY} && {BUILD_COMMAND}, "
                      f"then pass --noti-play /tmp/measure-build/release/noti-play")
    probe = subprocess.run([binary, "listen", "--help"], capture_output=True, text=True)
    if probe.returncode != 0 or "--burst-limit" not in probe.stdout:
        raise Failure(f"{binary} has no 'listen' command (an older build?); rebuild: {BUILD_COMMAND}")
    for path in (FAKE_SERVER, BUNDLED_SOUND):
        if not os.path.isfile(path):
            raise Failure(f"{path} is missing (run this from a noti-play checkout)")


def stage(binary, folder):
    """The binary as scripts/install.sh lays it out: PREFIX/bin/noti-play beside
    PREFIX/share/noti-play/sounds. noti-play finds its bundled sounds from where its executable
    lies (/proc/self/exe): PREFIX/share beside an install, or Sounds/ up to five folders above a
    build in a checkout; a build with --scratch-path outside the checkout finds neither, and
    every notification would fail with "sound 'default.caf' was not found". A hard link (or a
    copy) of the same file, with the checkout's Sounds/*.caf."""
    prefix = os.path.join(folder, "prefix")
    os.makedirs(os.path.join(prefix, "bin"))
    sounds = os.path.join(prefix, "share", "noti-play", "sounds")
    os.makedirs(sounds)
    for path in glob.glob(os.path.join(REPOSITORY, "Sounds", "*.caf")):
        shutil.copy(path, sounds)
    staged = os.path.join(prefix, "bin", "noti-play")
    try:
        os.link(binary, staged)
    except OSError:
        shutil.copy2(binary, staged)
    return staged


def run_quietly(argv, what):
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise Failure(f"{what} failed: {lines[-1] if lines else f'status {done.returncode}'}")


def series(name, sender, sink, count, gap, first_timeout, arguments_verbose=False):
    """One notification ("first after start") and then `count`, each after the previous sound;
    returns (first latency ns or None, [latency ns or None], [send times])."""
    sink.wait_quiet(QUIET_BEFORE_SEND)
    before, _ = sender.notify()
    heard = sink.wait_loud(before, first_timeout)
    first = None if heard is None else heard - before
    if first is None:
        log(f"{name}: the first notification made no sound within {first_timeout:.0f} s")
    latencies, sent = [], []
    for index in range(count):
        sink.wait_quiet(QUIET_BEFORE_SEND)
        time.sleep(gap + random.uniform(0, gap / 2))
        before, _ = sender.notify()
        heard = sink.wait_loud(before, SOUND_TIMEOUT)
        latencies.append(None if heard is None else heard - before)
        sent.append(before)
        if heard is None:
            log(f"{name}: notification {index + 1} made no sound within {SOUND_TIMEOUT:.0f} s")
        elif arguments_verbose:
            log(f"{name}: {(heard - before) / 1e6:.2f} ms")
    sink.wait_quiet(QUIET_BEFORE_SEND)
    return first, latencies, sent


def summary(values):
    """(median, p90, max, heard) in ms of the latencies that were heard."""
    heard = [v / 1e6 for v in values if v is not None]
    if not heard:
        return None
    p90 = statistics.quantiles(heard, n=10, method="inclusive")[8] if len(heard) >= 2 else heard[0]
    return statistics.median(heard), p90, max(heard), len(heard)


def measure(arguments, folder, children):
    binary = os.path.abspath(arguments.noti_play)
    check_tools(binary)
    load_start = os.getloadavg()[0]
    logs = open(os.path.join(folder, "children.log"), "wb")

    # Programs and the sound.
    log("compiling the fake notification server and the Notify sender...")
    server_program, sender_program = os.path.join(folder, "fake-notification-server"), os.path.join(folder, "sender")
    run_quietly(["cc", "-std=c11", "-O1", "-o", server_program, FAKE_SERVER, "-lsystemd"], "compiling the fake server")
    with open(sender_program + ".c", "w") as file:
        file.write(SENDER)
    run_quietly(["cc", "-std=c11", "-O2", "-Wall", "-o", sender_program, sender_program + ".c", "-lsystemd"], "compiling the sender")
    wav = os.path.join(folder, "default.wav")
    run_quietly(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", BUNDLED_SOUND, "-c:a", "pcm_s16le", wav], "ffmpeg (default.caf to WAV)")

    # A private home for everyone: nothing of the user's configuration applies.
    home, runtime = os.path.join(folder, "home"), os.path.join(folder, "runtime")
    os.makedirs(os.path.join(home, ".config"))
    os.mkdir(runtime, 0o700)
    base = {key: value for key, value in os.environ.items()
            if key not in ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "PULSE_SERVER", "PULSE_SINK",
                           "ALSA_CONFIG_PATH", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "HOME")}
    base.update(HOME=home, XDG_RUNTIME_DIR=runtime, XDG_CONFIG_HOME=os.path.join(home, ".config"),
                XDG_DATA_HOME=os.path.join(home, ".local", "share"), LC_ALL="C.UTF-8")

    # The bus and the notification server.
    with open(os.path.join(folder, "bus.conf"), "w") as file:
        with open(BUS_CONFIG) as template:
            file.write(template.read().replace("@SOCKET@", os.path.join(folder, "bus")))
    bus = children.start("dbus-daemon", ["dbus-daemon", f"--config-file={os.path.join(folder, 'bus.conf')}", "--nofork",
                                         "--print-address=1"], stdout=subprocess.PIPE, stderr=logs, env=base)
    address = Lines("dbus-daemon", bus.stdout)
    try:
        address = address.queue.get(timeout=LINE_TIMEOUT)
    except queue.Empty:
        address = None
    if not address:
        raise Failure("dbus-daemon did not start (see its log with --verbose)")
    with open(os.path.join(home, ".config", "client.conf"), "w") as file:
        file.write("autospawn = no\n")
    pulse_socket = os.path.join(folder, "pulse.socket")
    clients = dict(base, DBUS_SESSION_BUS_ADDRESS=address, PULSE_SERVER=f"unix:{pulse_socket}",
                   PULSE_CLIENTCONFIG=os.path.join(home, ".config", "client.conf"))
    server = children.start("fake-notification-server", [server_program], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=logs, env=clients)
    Lines("the fake notification server", server.stdout).expect("ready")
    sender = Sender(children, sender_program, clients)

    # The device.
    with open(os.path.join(folder, "pulse.pa"), "w") as file:
        file.write(PULSE_SCRIPT.format(socket=pulse_socket, sink=SINK))
    pulse_env = dict(base, PULSE_RUNTIME_PATH=runtime, PULSE_STATE_PATH=os.path.join(home, "pulse-state"))
    pulse = children.start("pulseaudio", ["pulseaudio", "-n", "-F", os.path.join(folder, "pulse.pa"), "--daemonize=no",
                                          "--exit-idle-time=-1", "--use-pid-file=no", "--log-target=stderr", "--log-level=error"],
                           stdout=logs, stderr=logs, env=pulse_env)
    deadline = time.monotonic() + LINE_TIMEOUT
    while not os.path.exists(pulse_socket):
        if not Children.alive(pulse) or time.monotonic() > deadline:
            raise Failure("PulseAudio did not start (see its log with --verbose)")
        time.sleep(0.05)
    sink = Sink(children, clients, logs)
    sink.wait_running()
    alsa_config = os.path.join(folder, "asound.conf")
    with open(alsa_config, "w") as file:
        file.write("pcm.!default { type pulse }\nctl.!default { type pulse }\n")
    # XDG_DATA_DIRS empty of sounds: the bundled default.caf, not a system-wide one, plays.
    os.makedirs(os.path.join(folder, "data-dirs"))
    listen_env = dict(clients, ALSA_CONFIG_PATH=alsa_config, XDG_DATA_DIRS=os.path.join(folder, "data-dirs"))
    binary = stage(binary, folder)

    # The display canberra-gtk-play needs.
    xvfb = children.start("Xvfb", ["Xvfb", "-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "320x240x24"],
                          stdout=subprocess.PIPE, stderr=logs, env=base)
    try:
        display = Lines("Xvfb", xvfb.stdout).queue.get(timeout=LINE_TIMEOUT)
    except queue.Empty:
        display = None
    if not display:
        raise Failure("Xvfb did not start")
    loop_env = dict(clients, DISPLAY=f":{display.strip()}")

    results = {}
    # (a) noti-play listen, no rate limit.
    log(f"noti-play listen: 1 + {arguments.count} warm + {arguments.cold} cold notifications...")
    listener = children.start("noti-play listen", [binary, "listen", "--interval", "0", "--burst-limit", "100", "--verbose"],
                              stdout=logs, stderr=subprocess.PIPE, env=listen_env)
    said = Lines("noti-play listen", listener.stderr, echo=arguments.verbose)
    if said.wait_for("plays no sounds: listen plays them") is None:
        raise Failure("noti-play listen did not report the notification server's capabilities within "
                      f"{LINE_TIMEOUT:.0f} s: " + "; ".join(line for _, line in said.all[-3:]))
    cpu_start = cpu_seconds(listener.pid)
    first, warm, sent = series("noti-play listen", sender, sink, arguments.count, arguments.gap, FIRST_TIMEOUT, arguments.verbose)
    decisions = [said.wait_for(": plays ", since=at, timeout=1.0) for at in sent]
    decisions = [d - at for d, at in zip(decisions, sent) if d is not None]
    cold, open_rates, closed_rates, close_after, open_threads = [], [], [], [], {}
    for _ in range(arguments.cold):
        ended = sink.wait_quiet(1.0) or monotonic_ns()
        open_rate, _, open_who = count_wakeups(listener.pid, 3.5)  # 1 s to 4.5 s after the sound: device open, idle
        open_rates.append(open_rate)
        for name, count in open_who.items():
            open_threads[name] = open_threads.get(name, 0) + count
        closed = wait_device_closed(listen_env, ended)
        if closed is None:
            raise Failure(f"noti-play listen's device was still open {DEVICE_CLOSE_WAIT:.0f} s after its last sound")
        close_after.append(closed)
        closed_rate, _, _ = count_wakeups(listener.pid, 1.5)
        closed_rates.append(closed_rate)
        time.sleep(random.uniform(0, 0.1))
        before, _ = sender.notify()
        heard = sink.wait_loud(before, SOUND_TIMEOUT)
        cold.append(None if heard is None else heard - before)
    sink.wait_quiet(QUIET_BEFORE_SEND)
    cpu_latency_run = cpu_seconds(listener.pid) - cpu_start
    rss_latency_run = proc_status(listener.pid, "VmRSS")
    realtime = realtime_threads(listener.pid)
    expected = (": plays ", ": finished", "listening to notifications", "the notification server plays no sounds")
    unexpected = [line for _, line in said.all if not any(text in line for text in expected)]
    status = children.stop(listener)
    if status != 0:
        log(f"noti-play listen ended with status {status} on SIGTERM (expected 0)")
    results["noti-play listen (warm)"] = (first, warm)
    results["noti-play listen (cold: device closed, >5 s idle)"] = (None, cold)

    # (b), (c) the loops.
    for name, player in (("dbus-monitor + paplay", f"paplay {shlex.quote(wav)}"),
                         ("dbus-monitor + canberra-gtk-play", f"canberra-gtk-play -f {shlex.quote(wav)}")):
        log(f"{name}: 1 + {arguments.count} notifications...")
        loop = children.start(name, ["bash", "-c", LOOP.format(player=player)], stdout=logs, stderr=logs, env=loop_env)
        time.sleep(1.0)  # dbus-monitor connects and becomes a monitor; the first notification is apart anyway
        if not Children.alive(loop):
            raise Failure(f"the {name} loop ended at once (see the log with --verbose)")
        results[name] = series(name, sender, sink, arguments.count, arguments.gap, FIRST_TIMEOUT, arguments.verbose)[:2]
        children.stop(loop)

    # References, no bus: what the device path alone takes, and paplay alone.
    references = {}
    if arguments.reference_count:
        log(f"references: {arguments.reference_count} sounds written to a connected pacat, {arguments.reference_count} paplay runs...")
        with wave.open(wav) as file:
            opening = file.readframes(int(file.getframerate() * 0.2))  # the sound's first 0.2 s: fits in a pipe
        pacat = children.start("pacat", ["pacat", "--playback", "--latency-msec=1", "--raw", "--format=s16le", "--rate=44100",
                                         "--channels=1"], stdin=subprocess.PIPE, stdout=logs, stderr=logs, env=clients)
        deadline = time.monotonic() + LINE_TIMEOUT
        while sink_inputs(clients) == 0:
            if time.monotonic() > deadline:
                raise Failure("pacat did not connect to our PulseAudio")
            time.sleep(0.1)
        floor = []
        for _ in range(arguments.reference_count):
            sink.wait_quiet(QUIET_BEFORE_SEND)
            time.sleep(arguments.gap + random.uniform(0, arguments.gap / 2))
            before = monotonic_ns()
            pacat.stdin.write(opening)
            pacat.stdin.flush()
            heard = sink.wait_loud(before, SOUND_TIMEOUT)
            floor.append(None if heard is None else heard - before)
        sink.wait_quiet(QUIET_BEFORE_SEND)
        children.stop(pacat)
        # The loop without dbus-monitor: the same bash, told by this script when to start paplay.
        shell = children.start("bash (paplay on a line)",
                               ["bash", "-c", f"while read -r line; do case \"$line\" in go) paplay {shlex.quote(wav)} & ;; esac; done"],
                               stdin=subprocess.PIPE, stdout=logs, stderr=logs, env=clients)
        alone = []
        for _ in range(arguments.reference_count):
            sink.wait_quiet(QUIET_BEFORE_SEND)
            time.sleep(arguments.gap + random.uniform(0, arguments.gap / 2))
            before = monotonic_ns()
            shell.stdin.write(b"go\n")
            shell.stdin.flush()
            heard = sink.wait_loud(before, SOUND_TIMEOUT)
            alone.append(None if heard is None else heard - before)
        sink.wait_quiet(QUIET_BEFORE_SEND)
        children.stop(shell)
        references["the device path alone: a connected `pacat --latency-msec=1` is written the sound's start"] = (None, floor)
        references["the paplay loop without dbus-monitor: bash starts `paplay SOUND.wav &` on a line from this script"] = (None, alone)

    # The listener as a user runs it: default options.
    log(f"noti-play listen, default options: idle {arguments.idle_seconds:g} s, {arguments.burst} notifications, "
        f"idle {arguments.idle_seconds:g} s...")
    service = children.start("noti-play listen (default options)", [binary, "listen"], stdout=logs, stderr=subprocess.PIPE,
                             env=listen_env)
    service_said = Lines("noti-play listen (default options)", service.stderr, echo=True)
    time.sleep(2.0)  # connects and asks the server its capabilities: well under a second
    if not Children.alive(service):
        raise Failure("noti-play listen (default options) ended at once: "
                      + "; ".join(line for _, line in service_said.all[-3:]))
    rss_fresh, anon_fresh = proc_status(service.pid, "VmRSS"), proc_status(service.pid, "RssAnon")
    idle_fresh, threads_fresh, fresh_who = count_wakeups(service.pid, arguments.idle_seconds)
    sink.wait_quiet(QUIET_BEFORE_SEND)
    loud_before = len(sink.loud)
    replied_before, errors_before, _ = sender.wait()
    cpu_before = cpu_seconds(service.pid)
    runtimes_before = thread_runtimes(service.pid)
    runtimes_last = dict(runtimes_before)
    burst_first, burst_last = sender.burst(arguments.burst, arguments.burst_apps)
    replied, errors, last_reply = sender.wait()
    replied, errors = replied - replied_before, errors - errors_before
    # Until the sounds have ended and the listener's CPU time no longer grows.
    stable_since, cpu_seen = time.monotonic(), cpu_seconds(service.pid)
    while True:
        time.sleep(0.1)
        runtimes_last.update(thread_runtimes(service.pid))  # a thread that ends keeps its last value
        cpu_now = cpu_seconds(service.pid)
        if cpu_now != cpu_seen:
            cpu_seen, stable_since = cpu_now, time.monotonic()
        if time.monotonic() - stable_since >= 1.0 and (monotonic_ns() - sink.last_loud()) / 1e9 >= 0.5:
            break
    cpu_burst = cpu_seconds(service.pid) - cpu_before
    runtimes_last.update(thread_runtimes(service.pid))
    runtime_by_name = {}
    for tid, (name, ns) in runtimes_last.items():
        runtime_by_name[name] = runtime_by_name.get(name, 0) + ns - runtimes_before.get(tid, (name, 0))[1]
    runtime_burst = sum(runtime_by_name.values()) / 1e9
    # The listener's own thread (the bus, the rules) is the process's main thread: its name is the command's.
    runtime_main = runtimes_last.get(service.pid, ("", 0))[1] - runtimes_before.get(service.pid, ("", 0))[1]
    loud_burst = (len(sink.loud) - loud_before) * sink.read_gap[0] / 1e9
    rss_burst = proc_status(service.pid, "VmRSS")
    closed = wait_device_closed(listen_env, sink.last_loud())
    if closed is None:
        raise Failure(f"noti-play listen's device was still open {DEVICE_CLOSE_WAIT:.0f} s after the burst's sounds")
    time.sleep(1.0)
    rss_closed, anon_closed = proc_status(service.pid, "VmRSS"), proc_status(service.pid, "RssAnon")
    idle_after, threads_after, after_who = count_wakeups(service.pid, arguments.idle_seconds)
    hwm = proc_status(service.pid, "VmHWM")
    status_service = children.stop(service)
    if status_service != 0:
        log(f"noti-play listen (default options) ended with status {status_service} on SIGTERM (expected 0)")

    # The tables.
    def milliseconds(value):
        return "–" if value is None else f"{value / 1e6:.2f}"

    reference = summary(warm)
    print(f"{os.cpu_count()} CPUs; load average (1 min) {load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end "
          f"(other work on the machine shows in the figures).\n")
    print(f"Notify → first sample at the sink (a PulseAudio null sink, read through `parec --latency-msec=1`: "
          f"a read every {sink.read_gap[0] / 1e6:.2f} ms, 99 % within {sink.read_gap[1] / 1e6:.2f} ms); "
          f"{arguments.count} notifications per contender, one after another's sound, in one run; the sound: "
          f"Sounds/default.caf (noti-play) and ffmpeg's WAV of it (the loops). noti-play listen: "
          f"`--interval 0 --burst-limit 100 --verbose`, {realtime} real-time thread(s) after its sounds.\n")
    print("| contender | first after start (ms) | median (ms) | p90 (ms) | max (ms) | heard | × noti-play's median |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (first_value, values) in results.items():
        figures = summary(values)
        if figures is None:
            print(f"| {name} | {milliseconds(first_value)} | – | – | – | 0/{len(values)} | – |")
            continue
        median, p90, maximum, heard = figures
        ratio = f"{median / reference[0]:.1f}×" if reference else "–"
        print(f"| {name} | {milliseconds(first_value)} | {median:.2f} | {p90:.2f} | {maximum:.2f} | {heard}/{len(values)} | {ratio} |")
    if references:
        print("\nReferences, without the bus (the time from this script's write or spawn):\n")
        print("| reference | median (ms) | p90 (ms) | max (ms) | heard |")
        print("|---|---:|---:|---:|---:|")
        for name, (_, values) in references.items():
            figures = summary(values)
            if figures:
                print(f"| {name} | {figures[0]:.2f} | {figures[1]:.2f} | {figures[2]:.2f} | {figures[3]}/{len(values)} |")
            else:
                print(f"| {name} | – | – | – | 0/{len(values)} |")
    if decisions:
        print(f"\nnoti-play listen (warm): Notify → its \"plays\" log line read from its stderr: median "
              f"{statistics.median(decisions) / 1e6:.2f} ms, max {max(decisions) / 1e6:.2f} ms."
              + (f" Its device closed {statistics.median(close_after):.1f} s after a sound ended (median of {len(close_after)})."
                 if close_after else ""))
    if reference:
        loops = [summary(results[name][1]) for name in ("dbus-monitor + paplay", "dbus-monitor + canberra-gtk-play")]
        fastest = min((figures[0] for figures in loops if figures), default=None)
        print(f"Goal: warm median under 5 ms: {'yes' if reference[0] < 5 else 'no'} ({reference[0]:.2f} ms); "
              f"at least 10× faster than the loops: "
              + ("–" if fastest is None else f"{'yes' if fastest >= 10 * reference[0] else 'no'} ({fastest / reference[0]:.1f}× the fastest loop)")
              + ".")

    print(f"\nThe listener as a user's service runs it (`noti-play listen`, default options: one sound per app per "
          f"second, at most 3 a second); {arguments.burst} notifications sent at once ({arguments.burst_apps} app names), "
          f"all {replied} answered ({errors} errors) {(last_reply - burst_first) / 1e6:.0f} ms after the first was sent; "
          f"the sink then had sound for about {loud_burst:.1f} s.\n")
    print("| | noti-play listen |")
    print("|---|---:|")
    print(f"| RSS idle, fresh (VmRSS, MiB; of which anonymous, RssAnon) | {rss_fresh / 1024:.2f}; {anon_fresh / 1024:.2f} |")
    print(f"| RSS after {arguments.burst} notifications, its sounds just ended (VmRSS, MiB) | {rss_burst / 1024:.2f} |")
    print(f"| RSS once its device closed (VmRSS, MiB; of which anonymous) | {rss_closed / 1024:.2f}; {anon_closed / 1024:.2f} |")
    print(f"| peak RSS over the whole run (VmHWM, MiB) | {hwm / 1024:.2f} |")
    print(f"| CPU time over the {arguments.burst} notifications (ms: utime+stime in 10 ms ticks; its threads' schedstat) | "
          f"{cpu_burst * 1e3:.0f}; {runtime_burst * 1e3:.1f} |")
    print(f"| CPU time per notification (µs, from schedstat) | {runtime_burst * 1e6 / max(1, arguments.burst):.1f} |")
    print(f"| of which the listener's thread: the bus and the rules (ms; µs per notification) | {runtime_main / 1e6:.1f}; "
          f"{runtime_main / 1e3 / max(1, arguments.burst):.1f} |")
    print(f"| CPU time by thread (ms) | " + ", ".join(f"{name} {ns / 1e6:.1f}" for name, ns in
                                                     sorted(runtime_by_name.items(), key=lambda item: -item[1]) if ns) + " |")
    print(f"| idle wake-ups/s, fresh ({arguments.idle_seconds:g} s; threads; who woke) | {idle_fresh:.2f} ({threads_fresh}; {who(fresh_who)}) |")
    print(f"| idle wake-ups/s after the burst, device closed ({arguments.idle_seconds:g} s; threads; who woke) | {idle_after:.2f} ({threads_after}; {who(after_who)}) |")
    print(f"| latency listener: RSS after its {1 + arguments.count + arguments.cold} sounds (MiB) | {rss_latency_run / 1024:.2f} |")
    print(f"| latency listener: CPU time over those sounds (ms; per sound) | {cpu_latency_run * 1e3:.0f}; "
          f"{cpu_latency_run * 1e3 / (1 + arguments.count + arguments.cold):.1f} |")
    if open_rates:
        print(f"| latency listener: wake-ups/s with the device open, no sound (1–4.5 s after one; median; who woke, all windows) | "
              f"{statistics.median(open_rates):.1f} ({who(open_threads)}) |")
        print(f"| latency listener: wake-ups/s once the device closed (1.5 s; median) | {statistics.median(closed_rates):.2f} |")
    if unexpected:
        print(f"\nnoti-play listen said ({len(unexpected)} lines besides its decisions and sounds' ends): "
              + " / ".join(sorted(set(unexpected))[:5]))
    if any(line for _, line in service_said.all):
        print(f"\nnoti-play listen (default options) said: " + " / ".join(line for _, line in service_said.all[:5]))

    try:
        server.stdin.write(b"quit\n")
        server.stdin.flush()
    except BrokenPipeError:
        pass
    sender.send("quit")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--noti-play", default=DEFAULT_NOTI_PLAY,
                        help=f"the noti-play binary (default: {DEFAULT_NOTI_PLAY}); build: {BUILD_COMMAND}")
    parser.add_argument("--count", type=int, default=50, help="timed notifications per contender (default 50)")
    parser.add_argument("--cold", type=int, default=3, help="notifications to noti-play listen after its device closed (default 3)")
    parser.add_argument("--burst", type=int, default=1000, help="notifications sent at once to the default-options listener")
    parser.add_argument("--burst-apps", type=int, default=10, help="app names the burst's notifications cycle through")
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="length of each idle wake-up window")
    parser.add_argument("--gap", type=float, default=0.25, help="seconds after a sound ends before the next Notify (+ up to half)")
    parser.add_argument("--reference-count", type=int, default=20,
                        help="sounds for each reference without the bus (a connected pacat, paplay alone); 0: none")
    parser.add_argument("--verbose", action="store_true", help="echo noti-play listen's log; keep the children's log")
    arguments = parser.parse_args()
    if arguments.count < 2 or arguments.cold < 0 or arguments.burst < 1 or arguments.burst_apps < 1 or arguments.idle_seconds <= 0 or arguments.gap < 0 \
            or arguments.reference_count < 0:
        parser.error("--count must be at least 2, --burst and --burst-apps at least 1, --idle-seconds positive, --cold and --gap not negative")

    def terminate(number, frame):
        print(f"measure-listen: stopped by {signal.Signals(number).name}", file=sys.stderr)
        raise SystemExit(128 + number)
    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGHUP, terminate)

    children = Children()
    folder = tempfile.mkdtemp(prefix="measure-listen-")
    status = 0
    try:
        measure(arguments, folder, children)
    except Failure as failure:
        print(f"measure-listen: {failure}", file=sys.stderr)
        status = 1
    except KeyboardInterrupt:
        print("measure-listen: interrupted", file=sys.stderr)
        status = 130
    finally:
        children.stop_all()
        if arguments.verbose and os.path.exists(os.path.join(folder, "children.log")):
            with open(os.path.join(folder, "children.log"), errors="replace") as file:
                text = file.read().strip()
            if text:
                print("measure-listen: the children's log:\n" + text, file=sys.stderr)
        shutil.rmtree(folder, ignore_errors=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
