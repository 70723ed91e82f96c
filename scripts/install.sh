#!/usr/bin/env bash
# Installs noti-play: the command, the C library with its header and pkg-config file, the
# bundled sounds, the man page and the user service of `noti-play listen`.
#
#   scripts/install.sh [--prefix DIR] [--libdir DIR] [--destdir DIR] [--from BUILD_DIR]
#
# --prefix  where to install (default /usr/local): bin/noti-play, lib/libnoti-play.so.X.Y.Z with
#           its SONAME link libnoti-play.so.X and development link libnoti-play.so,
#           include/noti-play.h, lib/pkgconfig/noti-play.pc, share/noti-play/sounds/,
#           share/man/man1/noti-play.1, the shell completions (share/bash-completion/completions,
#           share/zsh/vendor-completions, share/fish/vendor_completions.d; scripts/docs/generate-docs.sh
#           makes them and the man page from the command), and the user unit noti-play-listen.service in
#           lib/systemd/user (for /usr and /usr/local, where systemd looks) or else
#           share/systemd/user (for a prefix such as ~/.local)
# --libdir  where the library and its pkg-config file go (default PREFIX/lib; Debian's packages
#           use /usr/lib/x86_64-linux-gnu). Programs built with `pkg-config --libs noti-play` get
#           an rpath to it unless it is one of the loader's own folders (/usr/lib and its
#           multiarch folder), where an rpath would only be noise.
# --destdir stage the files under DIR as if DIR were / (scripts/make-deb.sh does): the paths
#           written into the files (the unit's ExecStart, the .pc) are still PREFIX's.
# --from    install what an earlier `swift build` left in BUILD_DIR (e.g. .build/debug) instead
#           of building release binaries now (the tests use this). A debug build's library
#           loads the Swift runtime from the toolchain (through its own RUNPATH); only the
#           release build, the one shipped, has the runtime inside.
#
# The version comes from noti-play.h (NOTI_PLAY_VERSION_*), the one place it is written.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
prefix=/usr/local
libdir=""
destdir=""
from=""
usage() { echo "usage: scripts/install.sh [--prefix DIR] [--libdir DIR] [--destdir DIR] [--from BUILD_DIR]" >&2; exit 64; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case "$1" in
        --prefix) prefix=$2; shift 2 ;;
        --libdir) libdir=$2; shift 2 ;;
        --destdir) destdir=$2; shift 2 ;;
        --from) from=$2; shift 2 ;;
        *) usage ;;
    esac
done
# Folders are written into the files (ExecStart, the .pc): absolute, from where the caller stood.
absolute() { case "$1" in /*) printf '%s' "${1%/}" ;; *) printf '%s/%s' "$caller" "${1%/}" ;; esac; }
prefix=$(absolute "$prefix")
libdir=$(absolute "${libdir:-$prefix/lib}")
[ -z "$destdir" ] || destdir=$(absolute "$destdir")
# PREFIX and LIBDIR are written into the .pc (split at blanks by pkg-config's users) and the
# unit's ExecStart (where systemd expands % and $), through sed: plain path characters only.
for folder in "$prefix" "$libdir"; do
    if [[ ! "$folder" =~ ^[A-Za-z0-9._+/@:~-]+$ ]]; then
        echo "install.sh: '$folder' cannot be installed to: use a folder whose path has only letters, digits and . _ + / @ : ~ -" >&2
        exit 64
    fi
done
# An rpath only where the loader looks by itself (/usr/local/lib is in ld.so.conf, but found
# there only after ldconfig runs, which this script does not do).
if [[ "$libdir" =~ ^(/usr)?/lib(/[a-z0-9_]+-linux-[a-z0-9_]+)?$ ]]; then
    rpath=""
else
    rpath="-Wl,-rpath,\${libdir}"
fi

header=Sources/NotiPlayC/noti-play.h
version_part() { sed -n "s/^#define NOTI_PLAY_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$header"; }
major=$(version_part MAJOR) minor=$(version_part MINOR) patch=$(version_part PATCH)
if [ -z "$major" ] || [ -z "$minor" ] || [ -z "$patch" ]; then
    echo "install.sh: no NOTI_PLAY_VERSION_MAJOR/MINOR/PATCH in $header" >&2
    exit 1
fi
version=$major.$minor.$patch
soname=libnoti-play.so.$major

if [ -z "$from" ]; then
    # Both with the Swift runtime linked in: the command starts in 3.5 ms instead of 8, and the
    # library runs in hosts without a Swift toolchain (Package.swift links it statically in
    # release builds). One scratch folder for both, so the targets they share build once; not
    # .build, which a running `swift test` holds locked (CLibraryTests installs this way).
    swift build -c release --static-swift-stdlib --product noti-play --scratch-path .build-static
    swift build -c release --static-swift-stdlib --product NotiPlayC --scratch-path .build-static
    command=.build-static/release/noti-play
    library=.build-static/release/libNotiPlayC.so
else
    command=$from/noti-play
    library=$from/libNotiPlayC.so
fi
# Package.swift writes the SONAME; the header has the version: they must agree.
built_soname=$(readelf -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$built_soname" != "$soname" ]; then
    echo "install.sh: $library has SONAME '$built_soname'; noti-play.h's version $version wants $soname" >&2
    exit 1
fi

# Staged under DESTDIR (empty for a real install).
root=$destdir$prefix
lib=$destdir$libdir
install -D -m 755 "$command" "$root/bin/noti-play"
install -D -m 755 "$library" "$lib/libnoti-play.so.$version"
# The shipped library without its debugging sections: 7 MB instead of 12 (the runtime's share).
[ -n "$from" ] || strip --strip-unneeded "$lib/libnoti-play.so.$version"
ln -sfn "libnoti-play.so.$version" "$lib/$soname"
ln -sfn "$soname" "$lib/libnoti-play.so"
install -D -m 644 "$header" "$root/include/noti-play.h"
mkdir -p "$lib/pkgconfig"
sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$libdir|" -e "s| @RPATH@|${rpath:+ $rpath}|" -e "s|@VERSION@|$version|" \
    Sources/NotiPlayC/noti-play.pc.in > "$lib/pkgconfig/noti-play.pc"
install -D -m 644 -t "$root/share/noti-play/sounds" Sounds/*.caf
# The man page and the bash, zsh and fish completions, generated from the command itself.
docs=$(mktemp -d)
scripts/docs/generate-docs.sh "$command" "$docs"
install -D -m 644 "$docs/noti-play.1" "$root/share/man/man1/noti-play.1"
install -D -m 644 "$docs/noti-play.bash" "$root/share/bash-completion/completions/noti-play"
install -D -m 644 "$docs/_noti-play" "$root/share/zsh/vendor-completions/_noti-play"
install -D -m 644 "$docs/noti-play.fish" "$root/share/fish/vendor_completions.d/noti-play.fish"
rm -rf "$docs"
case "$prefix" in
    /usr | /usr/local) units="$root/lib/systemd/user" ;;
    *) units="$root/share/systemd/user" ;;
esac
mkdir -p "$units"
# The command's absolute path: a user unit has no PATH of the user's shell.
sed -e "s|@BINDIR@|$prefix/bin|" scripts/noti-play-listen.service > "$units/noti-play-listen.service"
chmod 644 "$units/noti-play-listen.service"
echo "installed noti-play $version in $destdir$prefix"
