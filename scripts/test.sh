#!/usr/bin/env bash
# Runs every test: installs what the tests need, builds, then `swift test`.
# The real-time playback tests (PulseTests) run on their own afterwards: they time playback
# against a real clock, which other suites' ffmpeg and sox work would disturb on a small machine.
# They get one more try when they fail, because a virtual machine's neighbours can take its CPU
# for a moment; a second failure fails the run.
# Last, scripts/robustness.sh: the load tests under ThreadSanitizer and AddressSanitizer, and
# a short run of each fuzz target (about 5 minutes; NOTI_PLAY_SKIP_ROBUSTNESS=1 leaves it out
# while iterating locally).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
swift build --build-tests
swift test --skip-build --skip PulseTests "$@"
if ! swift test --skip-build --filter PulseTests "$@"; then
    echo "test.sh: the real-time tests failed; running them once more" >&2
    sleep 5
    swift test --skip-build --filter PulseTests "$@"
fi
[ "${NOTI_PLAY_SKIP_ROBUSTNESS:-0}" = 1 ] || scripts/robustness.sh
