#!/usr/bin/env bash
# Runs every test: installs what the tests need, builds, then `swift test`.
# The real-time playback tests (PulseTests, PipeWireTests, then DeviceFaultTests) run on their own afterwards:
# they time playback against a real clock, which other suites' ffmpeg and sox work would disturb
# on a small machine. They run once: what depends on the machine's load is compared with aplay
# in the same run (or measured by scripts/measure/), so a failure is noti-play's.
# Last, scripts/robustness.sh: the load tests under ThreadSanitizer and AddressSanitizer, and
# a short run of each fuzz target (about 5 minutes; NOTI_PLAY_SKIP_ROBUSTNESS=1 leaves it out
# while iterating locally).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
swift build --build-tests
swift test --skip-build --skip 'PulseTests|PipeWireTests|DeviceFaultTests' "$@"
swift test --skip-build --filter PulseTests "$@"
# Run by the test binary itself: under `swift test` this suite's output was cut short in some
# runs while `swift test` still exited 0, which would hide a failure; run directly, it always ends
# with its own closing line and status.
.build/debug/noti-playPackageTests.xctest --testing-library swift-testing --filter PipeWireTests
swift test --skip-build --filter DeviceFaultTests "$@"
[ "${NOTI_PLAY_SKIP_ROBUSTNESS:-0}" = 1 ] || scripts/robustness.sh
