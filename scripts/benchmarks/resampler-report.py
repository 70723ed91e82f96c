#!/usr/bin/env python3
"""Resampling speed of noti-play beside libsoxr (HQ, VHQ) and speexdsp (quality 3, 10).

Runs `swift package benchmark --target ResamplerBenchmarks` in Benchmarks/ (release build): in one
run every contender converts the same 10 s of stereo for each conversion (setup not timed). Prints
ns per output sample (one channel's value; a stereo frame costs twice that), medians over iterations, and
noti-play's cost as a ratio of each other contender's in the same run.

Usage: scripts/benchmarks/resampler-report.py
Needs: Swift 6.1+, libsoxr-dev and libspeexdsp-dev (scripts/install-dependencies.sh).
"""
import collections, glob, os, re, subprocess, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}
CONTENDERS = ["noti-play", "soxr HQ", "soxr VHQ", "speexdsp 3", "speexdsp 10"]


def run(folder):
    command = ["swift", "package", "--disable-sandbox", "--allow-writing-to-directory", folder,
               "benchmark", "--target", "ResamplerBenchmarks", "--no-progress",
               "--format", "histogramPercentiles", "--path", folder]
    subprocess.run(command, cwd=os.path.join(ROOT, "Benchmarks"), check=True, stdout=subprocess.DEVNULL)
    results = collections.defaultdict(dict)
    for path in glob.glob(os.path.join(folder, "*ps_per_output_sample*.tsv")):
        # Current_run.ResamplerBenchmarks.noti-play_44100→48000.ps_per_output_sample.histogram.percentiles.tsv
        name = os.path.basename(path).split(".")[2].replace("_", " ")
        lines = open(path).read().splitlines()
        unit = re.search(r"\((K|M|G)\)", lines[0])
        percentiles = dict(line.split("\t") for line in lines[1:])
        picoseconds = float(percentiles["50"]) * (SCALE[unit.group(1)] if unit else 1)
        contender, conversion = name.rsplit(" ", 1)
        results[conversion][contender] = picoseconds / 1000
    return results


def main():
    with tempfile.TemporaryDirectory() as folder:
        results = run(folder)
    print("| conversion | " + " | ".join(f"{c} ns" for c in CONTENDERS) + " | noti-play ÷ soxr HQ | noti-play ÷ speexdsp 10 |")
    print("|---|" + "---:|" * (len(CONTENDERS) + 2))
    for conversion in sorted(results, key=lambda c: [int(x) for x in c.split("→")]):
        row = results[conversion]
        cells = [f"{row[c]:.2f}" for c in CONTENDERS]
        ours = row["noti-play"]
        print(f"| {conversion.replace('→', ' → ')} | " + " | ".join(cells)
              + f" | {ours / row['soxr HQ']:.2f}× | {ours / row['speexdsp 10']:.2f}× |")


if __name__ == "__main__":
    main()
