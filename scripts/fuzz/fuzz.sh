#!/usr/bin/env bash
# Builds the libFuzzer targets (Tests/Fuzz, a package of its own) with AddressSanitizer and runs
# one for a given time:  scripts/fuzz/fuzz.sh TARGET SECONDS [libFuzzer options...]
# TARGET is WAV, AIFF, CAF, Race, RoundTrip or Settings (or FuzzWAV, ...). It starts from the committed
# corpus in Tests/Fuzz/Corpus/TARGET and adds what it finds to .build-fuzz/corpus/TARGET (not committed;
# scripts/fuzz/long.sh minimises it into the committed corpus).
# FUZZ_BUILD_ONLY=1 only builds; FUZZ_SKIP_BUILD=1 runs what was built last (long.sh builds every
# target once first).
# A crash leaves its input in .build-fuzz/crashes/ and the script exits non-zero: fix the bug,
# then add the input as a regression test (Tests/NotiPlayDecoderTests/RegressionTests.swift).
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:?usage: scripts/fuzz/fuzz.sh WAV|AIFF|CAF|Race|RoundTrip|Settings SECONDS [libFuzzer options]}
seconds=${2:?usage: scripts/fuzz/fuzz.sh TARGET SECONDS}
shift 2
target=${target#Fuzz}
root=$PWD
scratch=$root/.build-fuzz
mkdir -p "$scratch/corpus/$target" "$scratch/crashes"

# The fuzz package resolves the root package's dependencies again; give it the root's checkout
# so that no network is needed when the root was already built.
if [ -d .build/repositories ] && [ ! -d "$scratch/build/repositories" ]; then
    mkdir -p "$scratch/build"
    cp -r .build/repositories "$scratch/build/"
fi
if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then
    (cd Tests/Fuzz && swift build --scratch-path "$scratch/build" --product "Fuzz$target" \
        --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address 2>&1 \
        | grep -v "Cannot export local symbol '__asan" >&2)
fi
[ "${FUZZ_BUILD_ONLY:-0}" != 1 ] || exit 0

# -rss_limit_mb and -timeout make "bounded memory and time" part of the contract: an input that
# makes the decoder allocate 512 MB or spend 5 s is a finding like a crash.
# Swift's own backtracer trips AddressSanitizer when it reads the crashed stack: leave the
# report to libFuzzer and ASan.
export SWIFT_BACKTRACE=enable=no
exec "$scratch/build/debug/Fuzz$target" "$scratch/corpus/$target" "$root/Tests/Fuzz/Corpus/$target" \
    -dict="$root/Tests/Fuzz/noti-play.dict" -max_total_time="$seconds" -max_len=8192 \
    -rss_limit_mb=512 -timeout=5 -print_final_stats=1 \
    -artifact_prefix="$scratch/crashes/$target-" "$@"
