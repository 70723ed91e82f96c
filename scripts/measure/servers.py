#!/usr/bin/env python3
"""noti-play on each sound server, beside the players people have, in the same run.

A private headless PipeWire (pipewire, wireplumber, pipewire-pulse, a null sink) and a private
PulseAudio (a null sink), each started here; the players take turns, run after run, and the
figures are medians:

  cpu ms      user + system CPU to play a 10 s 48 kHz stereo sound to its end
  first ms    spawn -> the first non-zero sample at the sink's monitor (a 0.1 s click)
  rss MiB     maximum resident set while playing the click (GNU time)
  stop ms     SIGINT 1 s into the 10 s sound -> the last non-zero sample at the monitor
  listen ms   a Notify call (gdbus) -> the first sample of its sound-file, for `noti-play
              listen` and for a `dbus-monitor | pw-play` loop (paplay on PulseAudio)

The monitor is read by parec at 5 ms latency; sample times are when its chunks arrive, so
every figure carries the same few milliseconds of reading delay, for every player alike.

Usage: scripts/measure/servers.py [--runs 11] [--binary .build/release/noti-play]
Needs: pipewire, wireplumber, pipewire-pulse (or pipewire's pulse config), pipewire-bin
(pw-play), pulseaudio, pulseaudio-utils (parec, paplay), alsa-utils (aplay), sox, dbus-daemon,
gdbus, GNU time; a release build: swift build -c release --product noti-play.
"""
import argparse, array, os, shutil, signal, statistics, subprocess, sys, tempfile, threading, time

SINK = "noti_null"


def sox(path, *effects, rate=48000):
    subprocess.run(["sox", "-n", "-r", str(rate), "-c", "2", "-b", "16", path, "synth", *effects], check=True)


class Monitor:
    """parec on the sink's monitor; remembers when each chunk with sound arrived."""

    def __init__(self, env):
        self.process = subprocess.Popen(
            ["parec", "-d", SINK + ".monitor", "--format=s16le", "--rate=48000", "--channels=2",
             "--latency-msec=5", "--raw"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.sounding = []  # arrival times of chunks that held a non-zero sample
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        time.sleep(2.5)  # PulseAudio's null sink plays out the 2 s block it had begun

    def _read(self):
        while True:
            chunk = self.process.stdout.read1(4096) if hasattr(self.process.stdout, "read1") else self.process.stdout.read(4096)
            if not chunk:
                return
            now = time.monotonic()
            samples = array.array("h", chunk[: len(chunk) - len(chunk) % 2])
            if any(samples):
                with self.lock:
                    self.sounding.append(now)

    def first_after(self, moment, wait=3.0):
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            with self.lock:
                later = [t for t in self.sounding if t >= moment]
            if later:
                return later[0]
            time.sleep(0.005)
        return None

    def last_after(self, moment, quiet=0.5):
        time.sleep(quiet)
        with self.lock:
            later = [t for t in self.sounding if t >= moment]
        return later[-1] if later else None

    def stop(self):
        self.process.kill()
        self.process.wait()


class Server:
    def __init__(self, kind, folder):
        self.kind, self.folder, self.processes = kind, folder, []
        run = os.path.join(folder, "run")
        os.makedirs(run, mode=0o700)
        self.env = dict(os.environ, XDG_RUNTIME_DIR=run, HOME=folder)
        self.env.pop("PULSE_SERVER", None)
        bus = subprocess.run(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=2"],
                             capture_output=True, text=True, check=True)
        self.env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.strip()
        self.bus_pid = int(bus.stderr.strip())
        # A notification server on the bus (the tests' own, on sd-bus), so Notify calls are answered.
        fake = os.path.join(folder, "fake-notification-server")
        source = os.path.join(os.path.dirname(__file__), "../../Tests/ListenScenarios/fake-notification-server.c")
        subprocess.run(["cc", "-std=c11", "-O1", "-o", fake, source, "-lsystemd"], check=True)
        self.notifications = subprocess.Popen([fake], env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              stderr=subprocess.DEVNULL)
        self.notifications.stdout.readline()  # "ready"
        if kind == "pipewire":
            self._start_pipewire()
        else:
            self._start_pulseaudio()

    def _spawn(self, command, **extra):
        self.processes.append(subprocess.Popen(command, env=dict(self.env, **extra), stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL))

    def _start_pipewire(self):
        config = os.path.join(self.folder, "config")
        dropins = os.path.join(config, "pipewire", "pipewire.conf.d")
        os.makedirs(dropins)
        with open(os.path.join(dropins, "null-sink.conf"), "w") as f:
            f.write("context.objects = [ { factory = adapter args = { factory.name = support.null-audio-sink "
                    f"node.name = {SINK} media.class = Audio/Sink audio.position = [ FL FR ] object.linger = true "
                    "monitor.channel-volumes = true } } ]\n")
        self.env.update(XDG_CONFIG_HOME=config, PIPEWIRE_RUNTIME_DIR=self.env["XDG_RUNTIME_DIR"])
        self._spawn(["pipewire"])
        time.sleep(0.5)
        self._spawn(["wireplumber"])
        self._spawn(["pipewire", "-c", "pipewire-pulse.conf"])
        self._wait_for("PulseAudio (on PipeWire")
        # ALSA's default through pipewire-alsa is what aplay is measured on.
        self.env["ALSA_CONFIG_PATH"] = self._alsa_config("pipewire")

    def _start_pulseaudio(self):
        script = os.path.join(self.folder, "default.pa")
        socket = os.path.join(self.env["XDG_RUNTIME_DIR"], "pulse", "native")
        with open(script, "w") as f:
            f.write(f"load-module module-native-protocol-unix socket={socket} auth-anonymous=1\n"
                    f"load-module module-null-sink sink_name={SINK} rate=48000 channels=2 norewinds=1\n"
                    f"set-default-sink {SINK}\n")
        self._spawn(["pulseaudio", "-n", "-F", script, "--daemonize=no", "--exit-idle-time=-1"],
                    PULSE_RUNTIME_PATH=os.path.join(self.folder, "pulse-run"), PULSE_STATE_PATH=os.path.join(self.folder, "state"))
        self._wait_for("Server Name: pulseaudio")
        self.env["ALSA_CONFIG_PATH"] = self._alsa_config("pulse")

    def _alsa_config(self, kind):
        path = os.path.join(self.folder, "asound.conf")
        with open(path, "w") as f:
            if kind == "pulse":
                f.write("pcm.!default { type pulse }\nctl.!default { type pulse }\n")
            else:
                plugin = pipewire_alsa_plugin()
                f.write(f'pcm_type.pipewire {{ lib "{plugin}" }}\npcm.!default {{ type pipewire playback_node "-1" }}\n')
        return path

    def _wait_for(self, text):
        for _ in range(100):
            info = subprocess.run(["pactl", "info"], env=self.env, capture_output=True, text=True)
            if text in info.stdout and SINK in info.stdout:
                return
            time.sleep(0.1)
        sys.exit(f"{self.kind} did not start")

    def stop(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait()
        self.notifications.kill()
        self.notifications.wait()
        os.kill(self.bus_pid, signal.SIGTERM)


def pipewire_alsa_plugin():
    """pipewire-alsa's PCM plugin, extracted from Debian's package (installing the package would
    make PipeWire ALSA's default for the whole machine)."""
    cache = os.path.join(tempfile.gettempdir(), "noti-play-pipewire-alsa")
    plugin = os.path.join(cache, "usr/lib/x86_64-linux-gnu/alsa-lib/libasound_module_pcm_pipewire.so")
    if not os.path.exists(plugin):
        os.makedirs(cache, exist_ok=True)
        subprocess.run(["apt-get", "download", "pipewire-alsa"], cwd=cache, check=True, capture_output=True)
        deb = [name for name in os.listdir(cache) if name.endswith(".deb")][0]
        subprocess.run(["dpkg-deb", "-x", os.path.join(cache, deb), cache], check=True)
    return plugin


def cpu_ms(command, env):
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"{command} failed ({status})")
    return (usage.ru_utime + usage.ru_stime) * 1000


def first_ms(command, env, monitor):
    start = time.monotonic()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    heard = monitor.first_after(start)
    child.wait()
    monitor.last_after(start, quiet=0.3)
    return (heard - start) * 1000 if heard else float("nan")


def rss_mib(command, env):
    child = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, env=env, capture_output=True, text=True)
    return int(child.stderr.split()[-1]) / 1024


def stop_ms(command, env, monitor):
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    signalled = time.monotonic()
    child.send_signal(signal.SIGINT)
    child.wait()
    last = monitor.last_after(signalled, quiet=1.0)
    return (last - signalled) * 1000 if last else 0.0


def listen_ms(start_listener, env, monitor, click, runs):
    listener = start_listener()
    time.sleep(1.0)
    figures = []
    for _ in range(runs):
        start = time.monotonic()
        subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                        "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.Notify",
                        "measure", "0", "", "s", "b", "[]", "{'sound-file': <'%s'>}" % click, "5000"],
                       env=env, capture_output=True)
        heard = monitor.first_after(start)
        figures.append((heard - start) * 1000 if heard else float("nan"))
        monitor.last_after(start, quiet=0.4)
    listener.terminate()
    listener.wait()
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--binary", default=".build/release/noti-play")
    parser.add_argument("--servers", default="pipewire,pulseaudio")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    folder = tempfile.mkdtemp(prefix="noti-play-servers-")
    click, long_sound = os.path.join(folder, "click.wav"), os.path.join(folder, "long.wav")
    sox(click, "0.1", "sine", "1000", "vol", "0.5")
    sox(long_sound, "10", "sine", "440", "vol", "0.5")
    rows = []
    for kind in args.servers.split(","):
        server = Server(kind, os.path.join(folder, kind))
        monitor = Monitor(server.env)
        players = {"noti-play": [binary], "paplay": ["paplay"], "aplay": ["aplay", "-q"]}
        if kind == "pipewire":
            players["pw-play"] = ["pw-play"]
        samples = {name: {"cpu": [], "first": [], "rss": [], "stop": []} for name in players}
        for _ in range(args.runs):
            for name, command in players.items():
                samples[name]["cpu"].append(cpu_ms(command + [long_sound], server.env))
                samples[name]["first"].append(first_ms(command + [click], server.env, monitor))
                samples[name]["rss"].append(rss_mib(command + [click], server.env))
                samples[name]["stop"].append(stop_ms(command + [long_sound], server.env, monitor))
        peer = "pw-play" if kind == "pipewire" else "paplay"
        loop = f"dbus-monitor \"interface='org.freedesktop.Notifications',member='Notify'\" | " \
               f"while read -r line; do case \"$line\" in *'member=Notify'*) {peer} {click} & ;; esac; done"
        notify_env = dict(server.env)
        listens = {
            "noti-play listen": listen_ms(lambda: subprocess.Popen([binary, "listen", "--interval", "0", "--always"], env=notify_env,
                                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
                                          notify_env, monitor, click, args.runs),
            f"dbus-monitor + {peer}": listen_ms(lambda: subprocess.Popen(["bash", "-c", loop], env=notify_env, start_new_session=True,
                                                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
                                                notify_env, monitor, click, args.runs),
        }
        monitor.stop()
        server.stop()
        for name, figures in samples.items():
            rows.append((kind, name, *(statistics.median(figures[key]) for key in ("cpu", "first", "rss", "stop")), None))
        for name, figures in listens.items():
            rows.append((kind, name, None, None, None, None, statistics.median(figures)))
    print(f"| server | player | cpu ms (10 s) | first ms | rss MiB | stop ms | Notify -> first ms |  (medians of {args.runs})")
    print("|---|---|---|---|---|---|---|")
    cell = lambda value, digits=1: "" if value is None else f"{value:.{digits}f}"
    for kind, name, cpu, first, rss, stop, listen in rows:
        print(f"| {kind} | {name} | {cell(cpu)} | {cell(first)} | {cell(rss)} | {cell(stop)} | {cell(listen)} |")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
