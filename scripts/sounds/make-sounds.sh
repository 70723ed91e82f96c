#!/usr/bin/env bash
# Rebuilds Sounds/*.caf: synthesizes each sound, then encodes it as IMA4 in CAF with noti-play
# itself, as `afconvert -d ima4 -f caff` would on a Mac.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/sounds/synthesize-sounds.py "$work"
swift build -c release --product noti-play >/dev/null
for wav in "$work"/*.wav; do
    name=$(basename "$wav" .wav)
    .build/release/noti-play convert "$wav" "Sounds/$name.caf" -d ima4 -f caff
    .build/release/noti-play info "Sounds/$name.caf"
done
