#!/usr/bin/env bash
# Installs noti-play: the command, the C library with its header and pkg-config file, the
# bundled sounds and the man page.
#
#   scripts/install.sh [--prefix DIR] [--from BUILD_DIR]
#
# --prefix  where to install (default /usr/local): bin/noti-play, lib/libnoti-play.so,
#           include/noti-play.h, lib/pkgconfig/noti-play.pc, share/noti-play/sounds/,
#           share/man/man1/noti-play.1
# --from    install what an earlier `swift build` left in BUILD_DIR (e.g. .build/debug) instead
#           of building release binaries now (the tests use this)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=/usr/local
from=""
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=$2; shift 2 ;;
        --from) from=$2; shift 2 ;;
        *) echo "usage: scripts/install.sh [--prefix DIR] [--from BUILD_DIR]" >&2; exit 64 ;;
    esac
done

if [ -z "$from" ]; then
    # The command with the Swift runtime linked in: it starts in 3.5 ms instead of 8.
    swift build -c release --static-swift-stdlib --product noti-play --scratch-path .build-static
    swift build -c release --product NotiPlayC
    command=.build-static/release/noti-play
    library=.build/release/libNotiPlayC.so
else
    command=$from/noti-play
    library=$from/libNotiPlayC.so
fi
# The library links the Swift runtime dynamically; the pkg-config file adds its folder as rpath.
swift_runtime=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux

install -D -m 755 "$command" "$prefix/bin/noti-play"
install -D -m 755 "$library" "$prefix/lib/libnoti-play.so"
install -D -m 644 Sources/NotiPlayC/noti-play.h "$prefix/include/noti-play.h"
mkdir -p "$prefix/lib/pkgconfig"
sed -e "s|@PREFIX@|$prefix|" -e "s|@SWIFT_RUNTIME@|$(readlink -f "$swift_runtime")|" \
    Sources/NotiPlayC/noti-play.pc.in > "$prefix/lib/pkgconfig/noti-play.pc"
install -D -m 644 -t "$prefix/share/noti-play/sounds" Sounds/*.caf
install -D -m 644 docs/noti-play.1 "$prefix/share/man/man1/noti-play.1"
echo "installed noti-play in $prefix"
