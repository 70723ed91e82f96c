#!/usr/bin/env bash
# Runs every test: installs what the tests need, builds, then `swift test`.
# The real-time playback tests (PulseTests) run on their own afterwards: they time playback
# against a real clock, which other suites' ffmpeg and sox work would disturb on a small machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
swift build --build-tests
swift test --skip-build --skip PulseTests "$@"
swift test --skip-build --filter PulseTests "$@"
