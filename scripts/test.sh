#!/usr/bin/env bash
# Runs every test: installs what the tests need, builds, then `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
swift build --build-tests
swift test --skip-build "$@"
