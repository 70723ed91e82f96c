#!/usr/bin/env bash
# Long fuzzing, outside CI:  scripts/fuzz/long.sh SECONDS [TARGET...]
# Runs each target (all of them, or the ones named) for SECONDS through scripts/fuzz/fuzz.sh,
# niced, FUZZ_JOBS (default 1) at a time, then minimises what it grew into the committed corpus
# Tests/Fuzz/Corpus/TARGET, so that CI's short runs (scripts/robustness.sh) start from it:
#  - the named seeds there (written by scripts/fuzz/make-corpus.sh) are always kept;
#  - every input named by its SHA-1 (what libFuzzer grew, in this run or an earlier one) is
#    merged afresh (-merge=1): kept only where it reaches code the seeds and the inputs kept
#    before it do not.
# A crash stops that target's run (its input is in .build-fuzz/crashes/) and makes the script
# exit non-zero once every target has run; what grew is merged all the same.
# Each target's log is .build-fuzz/long-TARGET.log; the last lines of each are printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:?usage: scripts/fuzz/long.sh SECONDS [WAV AIFF CAF Race RoundTrip Settings]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(WAV AIFF CAF Race RoundTrip Settings)
jobs=${FUZZ_JOBS:-1}
# libFuzzer's -timeout is wall-clock time: niced on a shared machine, an input that takes 0.1 s
# of CPU can wait seconds for it. fuzz.sh's 5 s holds for CI's runs; these allow FUZZ_TIMEOUT
# (default 60 s), and every timeout they report is run again alone before it is believed.
timeout=${FUZZ_TIMEOUT:-60}
scratch=$PWD/.build-fuzz
mkdir -p "$scratch"

# One build of every target first: the runs then start together and a rebuild cannot race them.
for target in "${targets[@]}"; do
    FUZZ_BUILD_ONLY=1 scripts/fuzz/fuzz.sh "$target" "$seconds"
done

run() {
    local target=$1
    echo "== $target: fuzzing for $seconds s (log in .build-fuzz/long-$target.log)" >&2
    local before
    before=$(du -sb --apparent-size "Tests/Fuzz/Corpus/$target" | cut -f1)
    local failed=0
    rm -f "$scratch/long-$target.failed"
    FUZZ_SKIP_BUILD=1 nice -n 19 scripts/fuzz/fuzz.sh "$target" "$seconds" -timeout="$timeout" \
        >"$scratch/long-$target.log" 2>&1 || failed=1
    merge "$target"
    local after
    after=$(du -sb --apparent-size "Tests/Fuzz/Corpus/$target" | cut -f1)
    {
        grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$scratch/long-$target.log" || true
        echo "$target: committed corpus $before -> $after bytes, $(ls "Tests/Fuzz/Corpus/$target" | wc -l) files"
    } >&2
    if [ $failed = 1 ]; then
        grep -E "==[0-9]+==ERROR|SUMMARY|Precondition|Fatal|crash-|leak-|timeout-|oom-" "$scratch/long-$target.log" >&2 || true
        echo "$target: FAILED; the input is in .build-fuzz/crashes/" >&2
        touch "$scratch/long-$target.failed"
    fi
}

# The name libFuzzer gives what it grows: the input's SHA-1.
grown='.*/[0-9a-f]{40}'

merge() {
    local target=$1
    local committed=Tests/Fuzz/Corpus/$target
    local fresh
    fresh=$(mktemp -d)
    find "$committed" -type f -regextype egrep ! -regex "$grown" -exec cp {} "$fresh/" \;
    if ! SWIFT_BACKTRACE=enable=no nice -n 19 "$scratch/build/debug/Fuzz$target" -merge=1 -max_len=8192 \
        -rss_limit_mb=512 -timeout="$timeout" "$fresh" "$committed" "$scratch/corpus/$target" \
        >>"$scratch/long-$target.log" 2>&1; then
        echo "$target: the merge failed; the committed corpus is left as it was" >&2
        touch "$scratch/long-$target.failed"
        rm -rf "$fresh"
        return
    fi
    find "$committed" -type f -regextype egrep -regex "$grown" -delete
    find "$fresh" -type f -regextype egrep -regex "$grown" -exec cp {} "$committed/" \;
    rm -rf "$fresh"
}

for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    run "$target" &
done
wait
status=0
for target in "${targets[@]}"; do
    [ ! -e "$scratch/long-$target.failed" ] || status=1
done
exit $status
