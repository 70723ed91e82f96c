#!/usr/bin/env python3
"""Decode speed of noti-play beside libsndfile, per format, from the Benchmarks package.

Runs `swift package benchmark` in Benchmarks/ (release build) --runs times. In each run every
format is decoded by noti-play and by libsndfile from the same bytes, one after the other; a
format's figure in a run is the median over its iterations, its ratio is taken within that run,
and the table shows the median over runs of each. CAF ima4 is compared with libsndfile on the same
packets in AIFC, since libsndfile cannot open IMA4 in CAF.

Prints a table (ns per sample, ratio, allocations per decode) and draws it as a PNG chart.

Usage: scripts/benchmarks/decode-report.py [--runs 3] [--chart Benchmarks/decode-speed.png] [--markdown]
Needs: Swift 6.1+, libsndfile1-dev (apt-get install libsndfile1-dev), and for the chart
matplotlib (pip install matplotlib); without it the table is still printed.
"""
import argparse, collections, glob, os, platform, re, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}
# Goals from issue 5: noti-play's speed-up over libsndfile in the same run.
GOALS = {"PCM16": 4, "ulaw": 2, "alaw": 2, "IMA": 4, "ima4": 6}


def run_once(folder):
    """One benchmark run; returns {benchmark name: {metric: median}}."""
    command = ["swift", "package", "--disable-sandbox", "--allow-writing-to-directory", folder,
               "benchmark", "--no-progress", "--format", "histogramPercentiles", "--path", folder]
    subprocess.run(command, cwd=os.path.join(ROOT, "Benchmarks"), check=True, stdout=subprocess.DEVNULL)
    results = collections.defaultdict(dict)
    for path in glob.glob(os.path.join(folder, "*.histogram.percentiles.tsv")):
        # Current_run.DecodeBenchmarks.noti-play_WAV_IMA.samples_s.histogram.percentiles.tsv
        name, metric = os.path.basename(path).split(".")[2:4]
        lines = open(path).read().splitlines()
        unit = re.search(r"\((K|M|G)\)", lines[0])
        percentiles = dict(line.split("\t") for line in lines[1:])
        scale = SCALE[unit.group(1)] if unit else 1
        results[name.replace("_", " ")][metric] = (float(percentiles["50"]) * scale, float(percentiles["100"]) * scale)
    return results


def rows_of(results):
    """Per format: noti-play ns/sample, libsndfile ns/sample (or None), ratio, allocations."""
    rows = {}
    for name, metrics in results.items():
        if not name.startswith("noti-play "):
            continue
        label = name[len("noti-play "):]
        baseline_label = "AIFC ima4" if label == "CAF ima4" else label  # libsndfile can't open CAF ima4
        ours = 1e9 / metrics["samples_s"][0]
        theirs_metrics = results.get("libsndfile " + baseline_label)
        theirs = 1e9 / theirs_metrics["samples_s"][0] if theirs_metrics else None
        rows[label] = (ours, theirs, theirs / ours if theirs else None,
                       metrics["mallocCountTotal"][0], theirs_metrics["mallocCountTotal"][0] if theirs_metrics else None)
    return rows


def order(label):
    container, encoding = label.split(" ")
    return (["WAV", "AIFF", "AIFC", "CAF"].index(container),
            ["PCM16", "PCM24", "float", "ulaw", "alaw", "IMA", "ima4"].index(encoding))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chart", default=os.path.join(ROOT, "Benchmarks", "decode-speed.png"))
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()

    runs = []
    for index in range(args.runs):
        print(f"run {index + 1} of {args.runs} ...", file=sys.stderr)
        with tempfile.TemporaryDirectory() as folder:
            runs.append(rows_of(run_once(folder)))
    labels = sorted(runs[0], key=order)

    def median(label, field):
        values = [run[label][field] for run in runs if run[label][field] is not None]
        return statistics.median(values) if values else None

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    machine = f"{platform.node()}: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"
    print(f"machine: {machine}; median of {args.runs} runs, each the median of its iterations")
    print("decode of 30 s stereo 44.1 kHz from memory to Float32, 4096-frame reads; allocations per whole decode")
    table = []
    for label in labels:
        ours, theirs, ratio = median(label, 0), median(label, 1), median(label, 2)
        encoding = label.split(" ")[1]
        goal = GOALS.get(encoding)
        verdict = "" if goal is None or ratio is None else ("met" if ratio >= goal else "NOT met") + f" (goal {goal}x)"
        table.append((label + (" *" if label == "CAF ima4" else ""), ours, theirs, ratio,
                      int(median(label, 3)), verdict))
    if args.markdown:
        print("| format | noti-play ns/sample | libsndfile ns/sample | speed-up | allocations (noti-play) | goal |")
        print("|---|---:|---:|---:|---:|---|")
        for label, ours, theirs, ratio, allocations, verdict in table:
            print(f"| {label} | {ours:.3f} | {'—' if theirs is None else f'{theirs:.3f}'} | "
                  f"{'—' if ratio is None else f'{ratio:.1f}×'} | {allocations} | {verdict} |")
    else:
        print(f"{'format':12}{'noti-play':>12}{'libsndfile':>12}{'speed-up':>10}{'allocs':>8}  goal")
        for label, ours, theirs, ratio, allocations, verdict in table:
            print(f"{label:12}{ours:9.3f} ns{'—' if theirs is None else f'{theirs:9.3f} ns':>12}"
                  f"{'—' if ratio is None else f'{ratio:8.1f}x':>10}{allocations:8d}  {verdict}")
    print("* CAF ima4: libsndfile cannot open it; compared with libsndfile on the same packets in AIFC")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plot
    except ImportError:
        print("no chart: pip install matplotlib", file=sys.stderr)
        return
    figure, axes = plot.subplots(figsize=(10, 0.34 * len(table) + 1.6))
    positions = range(len(table))
    height = 0.4
    ours = [row[1] for row in table]
    theirs = [row[2] or 0 for row in table]
    axes.barh([p - height / 2 for p in positions], ours, height, label="noti-play", color="#2a7ab0")
    axes.barh([p + height / 2 for p in positions], theirs, height, label="libsndfile 1.2", color="#c8c8c8")
    for position, (_, value, base, ratio, _, _) in zip(positions, table):
        text = f"{value:.2f} ns" + ("" if not ratio else f"  ({ratio:.1f}× faster)" if ratio >= 1.05 else "  (as fast)")
        axes.text(max(value, base or 0) * 1.03, position, text, va="center", fontsize=8)
    axes.set_yticks(list(positions), [row[0] for row in table])
    axes.invert_yaxis()
    axes.set_xlabel("nanoseconds per sample (lower is faster)")
    axes.set_xlim(0, max(theirs + ours) * 1.45)
    axes.set_title("Decoding to Float32 from memory, same bytes, same run", fontsize=11)
    axes.legend(loc="upper right")
    figure.text(0.01, 0.01, f"{machine}; median of {args.runs} runs. * libsndfile cannot open CAF ima4: "
                "its bar is libsndfile on the same packets in AIFC", fontsize=7, color="#555")
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    figure.savefig(args.chart, dpi=110)
    print(f"chart: {os.path.relpath(args.chart, ROOT)}")


if __name__ == "__main__":
    main()
