#!/usr/bin/env python3
"""Playback figures for noti-play beside aplay, in the same run, on this machine.

  start latency  spawning the command -> its first audio byte reaching ALSA. ALSA's `file`
                 plugin writes the PCM into a FIFO; this script times the first byte it reads.
  peak memory    maximum resident set (getrusage of the child), playing through the FIFO.
  CPU time       user + system seconds to play a 0.1 s click and a 10 s sound in real time,
                 through a private PulseAudio null sink (started here, with a low-latency
                 monitor reader so the sink keeps real time).

Medians of --runs runs. Usage: scripts/measure-playback.py [--runs 15] [--binary PATH]
Needs: a release build (swift build -c release), sox, aplay (alsa-utils), pulseaudio, parec.
"""
import argparse, os, platform, resource, statistics, subprocess, sys, tempfile, time

def sox(path, *effects, rate=44100, channels=2):
    subprocess.run(["sox", "-n", "-r", str(rate), "-c", str(channels), "-b", "16", path, "synth", *effects], check=True)

def first_byte_latency(command, env, fifo):
    """Seconds from spawning `command` to the first byte arriving in the FIFO."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(fifo, "rb", buffering=0) as reader:
        first = reader.read(1)
        latency = time.perf_counter() - start
        while reader.read(65536):  # drain so the player never blocks on the FIFO
            pass
    if child.wait() != 0 or not first:
        sys.exit(f"{command[0]} failed")
    return latency

def peak_memory_kib(command, env, fifo):
    """Maximum resident set, as GNU time reports it (Python's own fork image would count otherwise)."""
    child = subprocess.Popen(["/usr/bin/time", "-f", "%M"] + command, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open(fifo, "rb", buffering=0) as reader:
        while reader.read(65536):
            pass
    _, errors = child.communicate()
    return int(errors.split()[-1])

def cpu_seconds(command, env):
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"{command[0]} failed (status {status})")
    return usage.ru_utime + usage.ru_stime

def start_pulse(folder):
    script = f"""load-module module-native-protocol-unix socket={folder}/native auth-anonymous=1
load-module module-null-sink sink_name=measure rate=44100 channels=2 norewinds=1
set-default-sink measure
"""
    open(f"{folder}/default.pa", "w").write(script)
    open(f"{folder}/asound.conf", "w").write("pcm.!default { type pulse }\nctl.!default { type pulse }\n")
    env = dict(os.environ, HOME=folder, PULSE_RUNTIME_PATH=f"{folder}/run", PULSE_STATE_PATH=f"{folder}/state",
               DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent")
    subprocess.run(["pulseaudio", "-n", "-F", f"{folder}/default.pa", "--daemonize=yes", "--exit-idle-time=5",
                    f"--log-target=file:{folder}/pulse.log", "--use-pid-file=no"], env=env, check=True)
    client = dict(os.environ, PULSE_SERVER=f"unix:{folder}/native", ALSA_CONFIG_PATH=f"{folder}/asound.conf",
                  DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent", PULSE_RUNTIME_PATH=f"{folder}/client")
    monitor = subprocess.Popen(["parec", "-d", "measure.monitor", "--latency-msec=5", "--raw", "/dev/null"], env=client)
    time.sleep(2.2)  # the null sink renders 2 s blocks until a low-latency reader is connected
    return client, monitor

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--binary", default=".build/release/noti-play")
    parser.add_argument("--aplay-like-noti-play", action="store_true",
                        help="also run aplay with noti-play's 5 ms period and 20 ms buffer")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        click, tone = f"{folder}/click.wav", f"{folder}/ten.wav"
        sox(click, "0.1", "sine", "1000", "fade", "0.005", "0.1", "0.05")
        sox(tone, "10", "sine", "440")
        fifo = f"{folder}/pcm.fifo"
        os.mkfifo(fifo)
        open(f"{folder}/fifo.conf", "w").write(
            f'pcm.!default {{ type file slave.pcm {{ type null }} file "{fifo}" format "raw" }}\n')
        tap = dict(os.environ, ALSA_CONFIG_PATH=f"{folder}/fifo.conf")
        players = {"noti-play": [args.binary, click], "aplay": ["aplay", "-q", click]}
        if args.aplay_like_noti_play:
            # aplay with noti-play's own period and buffer: the cost of the low latency itself.
            players["aplay 5/20 ms"] = ["aplay", "-q", "--period-time=5000", "--buffer-time=20000", click]

        print(f"machine: {platform.node()}, {os.cpu_count()} cores, {platform.platform()}; median of {args.runs} runs")
        print(f"{'':12}{'start latency':>16}{'peak memory':>14}{'CPU 0.1 s click':>18}{'CPU 10 s sound':>17}")
        results = {}
        for name, command in players.items():
            latencies = [first_byte_latency(command, tap, fifo) for _ in range(args.runs)]
            memories = [peak_memory_kib(command, tap, fifo) for _ in range(5)]
            results[name] = [statistics.median(latencies) * 1000, statistics.median(memories) / 1024]
        client, monitor = start_pulse(folder)
        try:
            for name in players:
                short = [cpu_seconds(players[name][:-1] + [click], client) for _ in range(args.runs)]
                long = [cpu_seconds(players[name][:-1] + [tone], client) for _ in range(3)]
                results[name] += [statistics.median(short) * 1000, statistics.median(long) * 1000]
        finally:
            monitor.kill()
        for name, (latency, memory, short, long) in results.items():
            print(f"{name:12}{latency:13.2f} ms{memory:11.1f} MiB{short:15.1f} ms{long:14.1f} ms")

if __name__ == "__main__":
    main()
