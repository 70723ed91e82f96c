#!/usr/bin/env python3
"""The floor under issue 13's start-latency and memory goals: the least a Swift program does to
play a 0.1 s click on ALSA (Sources/Floor/main.swift: open `default`, set S16 stereo 44.1 kHz,
write, drain; the Swift standard library linked statically, as noti-play's release build), beside
aplay and noti-play, measured as scripts/measure/playback.py measures them (spawn -> first byte at
ALSA's file plugin on a FIFO, median of --runs; peak RSS by GNU time, median of 5).

  cd scripts/measure/swift-floor && swift build -c release --static-swift-stdlib
  python3 measure.py --noti-play ../../../.build-static/release/noti-play [--runs 21]
"""
import argparse, importlib.util, os, statistics, tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("measure_playback", os.path.join(here, "..", "playback.py"))
playback = importlib.util.module_from_spec(spec)
spec.loader.exec_module(playback)

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--noti-play", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        click = f"{folder}/click.wav"
        playback.sox(click, "0.1", "sine", "1000", "fade", "0.005", "0.1", "0.05")
        fifo = f"{folder}/pcm.fifo"
        os.mkfifo(fifo)
        open(f"{folder}/fifo.conf", "w").write(
            f'pcm.!default {{ type file slave.pcm {{ type null }} file "{fifo}" format "raw" }}\n')
        tap = dict(os.environ, ALSA_CONFIG_PATH=f"{folder}/fifo.conf")
        players = {"aplay": ["aplay", "-q", click], "Swift floor": [os.path.join(here, ".build/release/Floor")],
                   "noti-play": [args.noti_play, click]}
        print(f"load average {os.getloadavg()[0]:.2f}; median of {args.runs} runs")
        for name, command in players.items():
            latencies = [playback.first_byte_latency(command, tap, fifo) for _ in range(args.runs)]
            memories = [playback.peak_memory_kib(command, tap, fifo) for _ in range(5)]
            print(f"{name:12} start latency {statistics.median(latencies) * 1000:5.2f} ms   "
                  f"peak memory {statistics.median(memories) / 1024:5.1f} MiB")

if __name__ == "__main__":
    main()
