#!/usr/bin/env python3
"""Playback figures for noti-play beside aplay, in the same run, on this machine.

  start latency  spawning the command -> its first audio byte reaching ALSA. ALSA's `file`
                 plugin writes the PCM into a FIFO; this script times the first byte it reads.
  peak memory    maximum resident set (GNU time), playing through the FIFO.
  CPU time       user + system seconds to play a 0.1 s click and a 10 s sound in real time,
                 through a private PulseAudio null sink (started here, with a low-latency
                 monitor reader so the sink keeps real time). noti-play reaches it directly
                 (libpulse); "noti-play --through-alsa" through ALSA's pulse plugin, as aplay.
  stop time      SIGINT, 1 s into the 10 s sound, to the player's exit, through the same sink
                 (noti-play fades and lets the fade be heard; aplay drops what it buffered).
  underruns      scripts/measure/underruns.py --stress-all: an 8 s sound beside aplay with its
                 default buffer, under stress-ng CPU, memory and I/O hogs (--underrun-rounds).

Medians of --runs runs. Usage:
  scripts/measure/playback.py [--runs 21] [--binary PATH] [--noti-play-args '--period-ms 10']
                              [--underrun-rounds 5] [--aplay-like-noti-play]
Needs: a release build (swift build -c release --static-swift-stdlib --product noti-play), sox,
aplay (alsa-utils), pulseaudio, parec, GNU time, stress-ng.
"""
import argparse, os, platform, shlex, signal, statistics, subprocess, sys, tempfile, time

import pulse_rig  # scripts/measure/pulse_rig.py

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

def stop_seconds(command, env, after=1.0):
    """Seconds from SIGINT, sent `after` seconds into a long sound, to the player's exit."""
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(after)
    signalled = time.perf_counter()
    child.send_signal(signal.SIGINT)
    child.wait()
    return time.perf_counter() - signalled

def start_pulse(folder):
    client = pulse_rig.start_pulse(folder, exit_idle_seconds=5)
    monitor = subprocess.Popen(["parec", "-d", "measure.monitor", "--latency-msec=5", "--raw", "/dev/null"], env=client)
    time.sleep(2.2)  # the null sink renders 2 s blocks until a low-latency reader is connected
    return client, monitor

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--binary", default=".build/release/noti-play")
    parser.add_argument("--noti-play-args", default="", help="extra noti-play arguments, e.g. '--period-ms 10 --periods 4'")
    parser.add_argument("--underrun-rounds", type=int, default=5, help="rounds of the underrun comparison (0: skip it)")
    parser.add_argument("--aplay-like-noti-play", action="store_true",
                        help="also run aplay with noti-play's default 20 ms period and 60 ms buffer")
    args = parser.parse_args()
    extra = shlex.split(args.noti_play_args)
    with tempfile.TemporaryDirectory() as folder:
        click, tone = f"{folder}/click.wav", f"{folder}/ten.wav"
        sox(click, "0.1", "sine", "1000", "fade", "0.005", "0.1", "0.05")
        sox(tone, "10", "sine", "440")
        fifo = f"{folder}/pcm.fifo"
        os.mkfifo(fifo)
        open(f"{folder}/fifo.conf", "w").write(
            f'pcm.!default {{ type file slave.pcm {{ type null }} file "{fifo}" format "raw" }}\n')
        tap = dict(os.environ, ALSA_CONFIG_PATH=f"{folder}/fifo.conf")
        # Each player as a function of the sound it plays.
        players = {"noti-play": lambda sound: [args.binary, sound] + extra,
                   "noti-play --through-alsa": lambda sound: [args.binary, sound, "--through-alsa"] + extra,
                   "aplay": lambda sound: ["aplay", "-q", sound]}
        if args.aplay_like_noti_play:
            # aplay with noti-play's own period and buffer: the cost of the low latency itself.
            players["aplay 20/60 ms"] = lambda sound: ["aplay", "-q", "--period-time=20000", "--buffer-time=60000", sound]

        print(f"machine: {platform.node()}, {os.cpu_count()} cores, {platform.platform()}; "
              f"load average {os.getloadavg()[0]:.2f}; median of {args.runs} runs")
        results = {}
        for name, command in players.items():
            latencies = [first_byte_latency(command(click), tap, fifo) for _ in range(args.runs)]
            memories = [peak_memory_kib(command(click), tap, fifo) for _ in range(5)]
            results[name] = [statistics.median(latencies) * 1000, statistics.median(memories) / 1024]
        client, monitor = start_pulse(folder)
        try:
            for name, command in players.items():
                short = [cpu_seconds(command(click), client) for _ in range(args.runs)]
                long = [cpu_seconds(command(tone), client) for _ in range(3)]
                stops = [stop_seconds(command(tone), client) for _ in range(7)]
                results[name] += [statistics.median(short) * 1000, statistics.median(long) * 1000,
                                  statistics.median(stops) * 1000, max(stops) * 1000]
        finally:
            monitor.kill()
        print(f"{'':26}{'start latency':>14}{'peak memory':>13}{'CPU 0.1 s click':>17}{'CPU 10 s sound':>16}"
              f"{'SIGINT stop (median/max)':>27}")
        for name, (latency, memory, short, long, stop, slowest) in results.items():
            print(f"{name:26}{latency:11.2f} ms{memory:9.1f} MiB{short:14.1f} ms{long:13.1f} ms"
                  f"{stop:15.1f} / {slowest:5.1f} ms")
        if args.underrun_rounds > 0:
            # Last, and in a process of its own: its stress-ng must not load the figures above.
            print(f"load average {os.getloadavg()[0]:.2f}; underruns, 8 s sound under stress-ng CPU, memory and I/O:", flush=True)
            underruns = subprocess.run(
                [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "underruns.py"),
                 "--stress-all", "--variants", "aplay-default", "--rounds", str(args.underrun_rounds),
                 "--binary", args.binary, "--noti-play-args", args.noti_play_args],
                capture_output=True, text=True)
            lines = underruns.stdout.splitlines()
            print("\n".join(line for line in lines if not line.startswith("round")) or underruns.stderr)

if __name__ == "__main__":
    main()
