#!/usr/bin/env python3
"""Underruns and wall time of noti-play beside aplay, in the same run, through a private
PulseAudio null sink, with or without stress-ng keeping every core busy.

Each round plays one 8 s sound with noti-play and, at the same moment, with aplay on the same
server (same device, same period and buffer as noti-play negotiated), so that both meet the same
load. It prints one line per round and a summary. These are figures of this machine and its load,
not pass/fail: the unit test (PulseUnderStress.swift) only asserts that noti-play does no worse
than aplay in the same round.

Variants (--variants, comma-separated):
  aplay        aplay (normal priority) with noti-play's period and buffer
  aplay-default  aplay as a user starts it: its own period and buffer (the issue's goal:
               noti-play underruns no more than this)
  aplay-early  aplay that starts the device after one period, as noti-play does (aplay waits
               for a full buffer by default)
  aplay-fifo   aplay under `chrt -f 20` (every thread SCHED_FIFO 20, also libpulse's)
  notiplay-fifo  noti-play under `chrt -f 20` (then libpulse's thread inherits SCHED_FIFO too)
  notiplay-again  a second noti-play, started last (is the first stream treated differently?)
  notiplay-s16  noti-play forced to S16 samples (as aplay plays this file) instead of FLOAT
  notiplay-nofifo  noti-play without CAP_SYS_NICE: its render thread is refused SCHED_FIFO
  notiplay-alsa  noti-play through ALSA's pulse plugin (--through-alsa) instead of libpulse directly
noti-play itself asks SCHED_FIFO for its render thread only. Directly, that thread also talks to
the server; through ALSA's pulse plugin the samples travel on libpulse's own thread, which stays
at normal priority unless started under chrt.

Usage: scripts/measure/underruns.py [--rounds 10] [--stress | --stress-all] [--seconds 8] [--binary PATH]
                                    [--variants aplay,aplay-default,aplay-fifo,notiplay-fifo]
  --stress      one CPU hog per core (as PulseUnderStress)
  --stress-all  CPU, memory (--vm) and I/O (--hdd, --io) hogs, one of each per core
Needs: sox, aplay (alsa-utils), pulseaudio, stress-ng (with --stress or --stress-all), a built noti-play.
"""
import argparse, os, re, shlex, shutil, statistics, subprocess, sys, tempfile, time

from pulse_rig import start_pulse, stop_pulse  # scripts/measure/pulse_rig.py


class Player:
    def __init__(self, name, command, env):
        self.name = name
        self.start = time.monotonic()
        self.child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def finish(self):
        _, errors = self.child.communicate()
        self.wall = time.monotonic() - self.start
        self.status = self.child.returncode
        self.stderr = errors
        if self.name.startswith("noti-play"):
            found = re.search(r"underruns:\s+(\d+) device", errors)
            self.underruns = int(found.group(1)) if found else None
        else:
            self.underruns = errors.count("underrun!!!")
        return self


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--stress", action="store_true", help="stress-ng --cpu N (N = online cores) during each round")
    parser.add_argument("--stress-all", action="store_true", help="stress-ng CPU, memory and I/O hogs during each round")
    parser.add_argument("--variants", default="aplay")
    parser.add_argument("--binary", default=None)
    parser.add_argument("--noti-play-args", default="", help="extra noti-play arguments, e.g. '--period-ms 10 --periods 4'")
    options = parser.parse_args()
    binary = options.binary or next((p for p in [".build/release/noti-play", ".build/debug/noti-play"] if os.path.exists(p)), None)
    if binary is None:
        sys.exit("no noti-play build: swift build first, or pass --binary")
    stressed = options.stress or options.stress_all
    tools = ["sox", "aplay", "pulseaudio"] + (["stress-ng"] if stressed else [])
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        sys.exit(f"not installed: {', '.join(missing)} (scripts/install-dependencies.sh installs them)")
    variants = [v for v in options.variants.split(",") if v]
    extra = shlex.split(options.noti_play_args)

    folder = tempfile.mkdtemp(prefix="measure-underruns-")
    try:
        env = start_pulse(folder, exit_idle_seconds=30)
        sound = f"{folder}/tone.wav"
        subprocess.run(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", sound, "synth", str(options.seconds),
                        "sine", "440", "sine", "660", "vol", "0.5"], check=True)
        # noti-play's period and buffer, as it negotiates them with this server.
        probe = subprocess.run([binary, sound, "--verbose"] + extra, env=env, capture_output=True, text=True)
        shape = re.search(r"period:\s+(\d+) frames .*; buffer (\d+) frames", probe.stderr)
        if not shape:
            sys.exit(f"noti-play reported no period: {probe.stderr}")
        period, buffer = shape.group(1), shape.group(2)
        print(f"noti-play: {binary}; period {period} frames, buffer {buffer} frames; "
              f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}; stress: {'CPU, memory, I/O' if options.stress_all else 'CPU' if options.stress else 'no'}")
        aplay = ["aplay", "-q", "-D", "default", f"--period-size={period}", f"--buffer-size={buffer}", sound]
        commands = {
            "aplay": aplay,
            "aplay-default": ["aplay", "-q", "-D", "default", sound],
            "aplay-fifo": ["chrt", "-f", "20"] + aplay,
            "aplay-early": aplay[:-1] + [f"--start-delay={int(int(period) * 1_000_000 / 44100)}", sound],
            "notiplay-fifo": ["chrt", "-f", "20", binary, sound, "--verbose"] + extra,
            "notiplay-again": [binary, sound, "--verbose"] + extra,
            "notiplay-s16": [binary, sound, "--verbose", "--sample-format", "S16"] + extra,
            "notiplay-nofifo": ["setpriv", "--bounding-set", "-sys_nice", binary, sound, "--verbose"] + extra,
            "notiplay-alsa": [binary, sound, "--verbose", "--through-alsa"] + extra,
        }
        totals = {name: [] for name in ["noti-play"] + variants}
        for round in range(options.rounds):
            stress = None
            if stressed:
                cores = str(os.cpu_count())
                hogs = ["--cpu", cores, "--cpu-method", "matrixprod"]
                if options.stress_all:
                    hogs += ["--vm", cores, "--vm-bytes", "256M", "--hdd", cores, "--hdd-bytes", "64M",
                             "--io", cores, "--temp-path", folder]
                stress = subprocess.Popen(["stress-ng"] + hogs + ["--timeout", str(int(options.seconds + 6)) + "s", "--quiet"])
                time.sleep(0.5)
            players = [Player("noti-play", [binary, sound, "--verbose"] + extra, env)]
            players += [Player(name.replace("notiplay", "noti-play"), commands[name], env) for name in variants]
            results = [player.finish() for player in players]
            if stress:
                stress.terminate()  # SIGTERM: stress-ng stops its hogs too (SIGKILL would leave them running)
                stress.wait()
            line = []
            for name, result in zip(["noti-play"] + variants, results):
                if result.status != 0:
                    line.append(f"{name}: FAILED {result.status} {result.stderr.strip()}")
                    continue
                totals[name].append((result.underruns, result.wall))
                line.append(f"{name}: {result.underruns} underruns, {result.wall:.2f} s")
            print(f"round {round + 1:2}: " + " | ".join(line), flush=True)
        print("summary (underruns: min/median/max; wall: median/max):")
        for name, values in totals.items():
            if not values:
                continue
            underruns = [u for u, _ in values]
            walls = [w for _, w in values]
            print(f"  {name:14} underruns {min(underruns)}/{statistics.median(underruns)}/{max(underruns)}; "
                  f"wall {statistics.median(walls):.2f}/{max(walls):.2f} s over {len(values)} rounds")
    finally:
        stop_pulse(folder)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
