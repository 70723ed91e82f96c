#!/usr/bin/env bash
# Builds noti-play's Debian packages from this checkout:
#
#   scripts/make-deb.sh [--out DIR]        (default DIR: .build-deb)
#
#   noti-play_VERSION_ARCH.deb        the command, the bundled sounds, the man page, the bash, zsh
#                                     and fish completions, the user unit of `noti-play listen`
#   libnoti-play0_VERSION_ARCH.deb    libnoti-play.so.0, with the Swift runtime inside
#   libnoti-play-dev_VERSION_ARCH.deb noti-play.h, the libnoti-play.so link, noti-play.pc
#
# Install them with `sudo apt install ./DIR/*.deb`; nothing in them needs a Swift toolchain.
# Everything comes from scripts/install.sh (release build, staged with --destdir), so a package
# holds exactly what an install does. Depends come from dpkg-shlibdeps; check the result with
# `lintian DIR/*.deb`. Maintainer: $DEBFULLNAME <$DEBEMAIL> when set.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
out=.build-deb
usage() { echo "usage: scripts/make-deb.sh [--out DIR]" >&2; exit 64; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case "$1" in
        --out) out=$2; shift 2 ;;
        *) usage ;;
    esac
done
# A relative --out is the caller's; the default, .build-deb, is the repository's.
[ "$out" = .build-deb ] || case "$out" in /*) ;; *) out=$caller/$out ;; esac
for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture; do
    command -v "$tool" >/dev/null || { echo "make-deb.sh: $tool is missing (apt install dpkg-dev)" >&2; exit 1; }
done

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
maintainer="${DEBFULLNAME:-noti-play developers} <${DEBEMAIL:-noti-play@users.noreply.github.com}>"
# One line of the control file: a line break in it would add fields of its own.
if [[ "$maintainer" == *$'\n'* || "$maintainer" == *$'\r'* ]]; then
    echo "make-deb.sh: DEBFULLNAME and DEBEMAIL must be one line each" >&2
    exit 64
fi
# The commit's date, so that the same commit gives the same changelog and man page.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
date=$(date -R -u -d "@$SOURCE_DATE_EPOCH")

mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/make-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/stage
scripts/install.sh --prefix /usr --libdir "/usr/lib/$multiarch" --destdir "$stage" >/dev/null
libdir=usr/lib/$multiarch
version=$(sed -n 's/^Version: //p' "$stage/$libdir/pkgconfig/noti-play.pc")

# The staged install, split: each path goes to one package.
tree() { printf '%s/%s' "$work" "$1"; }
take() {  # take PACKAGE PATH...: moves staged paths into PACKAGE's tree
    local package=$1; shift
    for path in "$@"; do
        mkdir -p "$(tree "$package")/$(dirname "$path")"
        mv "$stage/$path" "$(tree "$package")/$path"
    done
}
take noti-play usr/bin/noti-play usr/share/noti-play usr/share/man usr/lib/systemd
take libnoti-play0 "$libdir/libnoti-play.so.$version" "$libdir/libnoti-play.so.0"
take libnoti-play-dev usr/include "$libdir/libnoti-play.so" "$libdir/pkgconfig"
# The completions, when install.sh installs them.
for folder in usr/share/bash-completion usr/share/zsh usr/share/fish; do
    [ ! -e "$stage/$folder" ] || take noti-play "$folder"
done
left=$(find "$stage" -not -type d)
if [ -n "$left" ]; then
    echo "make-deb.sh: install.sh installed files no package takes:" >&2
    echo "$left" >&2
    exit 1
fi

# The code of others linked into a binary, each known by a string of its own that stripping
# keeps (a Swift module's name, libdispatch's root queue's): what each package's copyright names
# is what its binary holds.
components=(
    'Swift|the Swift standard library and runtime (swift.org; Apache-2.0 with the Runtime Library Exception)'
    'com.apple.root.default-qos|libdispatch and its BlocksRuntime (swift-corelibs-libdispatch; libdispatch Apache-2.0, BlocksRuntime Apache-2.0 with the Runtime Library Exception)'
    'ArgumentParser|swift-argument-parser (Apache-2.0 with the Runtime Library Exception)'
    'FoundationEssentials|FoundationEssentials of swift-foundation (Apache-2.0 with the Runtime Library Exception)'
    'N9__gnu_cxx20recursive_init_errorE|the parts of GCC'"'"'s libstdc++ the Swift runtime uses (GPL-3+ with the GCC Runtime Library Exception 3.1)'
)
bundled() {  # bundled ELF: the components linked into ELF, one line each, as a field's lines
    local found; found=$(strings -a "$1" | sort -u)
    for component in "${components[@]}"; do
        if grep -qxF -- "${component%%|*}" <<<"$found"; then echo "  - ${component#*|}"; fi
    done
}
declare -A binary=([noti-play]=usr/bin/noti-play [libnoti-play0]=$libdir/libnoti-play.so.$version) linked=()
for package in "${!binary[@]}"; do
    linked[$package]=$(bundled "$(tree "$package")/${binary[$package]}")
    [ -n "${linked[$package]}" ] || { echo "make-deb.sh: no Swift runtime found in ${binary[$package]} (is strings there?)" >&2; exit 1; }
done

# The command carries no debugging sections and no rpath of the build folder's; man pages are
# compressed (Debian policy 12.1).
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$(tree noti-play)/usr/bin/noti-play"
strip --remove-section=.comment --remove-section=.note "$(tree libnoti-play0)/$libdir/libnoti-play.so.$version"
chmod 644 "$(tree libnoti-play0)/$libdir/libnoti-play.so.$version"  # a library is not run (policy 8.1)
find "$(tree noti-play)/usr/share/man" -type f -name '*.[0-9]' -exec gzip -9n {} +

# Per package: copyright and changelog in usr/share/doc/PACKAGE (policy 12.5 and 12.7).
for package in noti-play libnoti-play0 libnoti-play-dev; do
    doc=$(tree "$package")/usr/share/doc/$package
    mkdir -p "$doc"
    # The licence's text from LICENSE, the one place it is written, as the format's indented lines.
    {
        echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
        echo "Upstream-Name: noti-play"
        echo "Comment: Built from the noti-play repository by scripts/make-deb.sh."
        if [ -n "${binary[$package]:-}" ]; then
            cat <<EOF
 Linked into ${binary[$package]}, each under its own licence:
${linked[$package]}
 The Apache License 2.0 is /usr/share/common-licenses/Apache-2.0. Its Runtime Library
 Exception waives the attribution it asks for in code compiled with Swift; libdispatch's
 C code has none: Copyright Apple Inc. and the Swift project authors, licensed under the
 Apache License, Version 2.0. libstdc++ is Copyright the Free Software Foundation, under the
 GNU General Public License 3 or later (/usr/share/common-licenses/GPL-3) with the GCC Runtime
 Library Exception 3.1, which allows it to be linked into a program under any licence.
EOF
        fi
        cat <<EOF

Files: *
Copyright: 2026 the noti-play authors
License: Expat

License: Expat
EOF
        sed -n '/^Permission is hereby granted/,$p' LICENSE | sed -e 's/^$/./' -e 's/^/ /'
    } > "$doc/copyright"
    printf '%s (%s) unstable; urgency=medium\n\n  * Built from the noti-play repository by scripts/make-deb.sh.\n\n -- %s  %s\n' \
        "$package" "$version" "$maintainer" "$date" | gzip -9n > "$doc/changelog.gz"
done

# libnoti-play0: what other packages' dpkg-shlibdeps need to depend on it, and ldconfig's trigger.
lib0=$(tree libnoti-play0)
mkdir -p "$lib0/DEBIAN"
echo "libnoti-play 0 libnoti-play0 (>= $version)" > "$lib0/DEBIAN/shlibs"
{
    echo "libnoti-play.so.0 libnoti-play0 #MINVER#"
    echo "* Build-Depends-Package: libnoti-play-dev"
    nm -D --defined-only "$lib0/$libdir/libnoti-play.so.$version" | awk -v version="$version" '$2 == "T" { print " " $3 "@Base " version }' | sort
} > "$lib0/DEBIAN/symbols"
echo "activate-noawait ldconfig" > "$lib0/DEBIAN/triggers"

# dpkg-shlibdeps reads debian/control from the folder it runs in; only the names matter to it.
mkdir -p "$work/debian"
printf 'Source: noti-play\n\nPackage: noti-play\nArchitecture: any\n\nPackage: libnoti-play0\nArchitecture: any\n\nPackage: libnoti-play-dev\nArchitecture: any\n' \
    > "$work/debian/control"
shlib_depends() {  # the Depends of the ELF files given, as dpkg-shlibdeps computes them
    (cd "$work" && dpkg-shlibdeps -O -e"$1" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
}

control() {  # control PACKAGE SECTION DEPENDS RECOMMENDS SUMMARY DESCRIPTION
    local package=$1 section=$2 depends=$3 recommends=$4 summary=$5 description=$6
    local root; root=$(tree "$package")
    mkdir -p "$root/DEBIAN"
    {
        echo "Package: $package"
        echo "Source: noti-play"
        echo "Version: $version"
        echo "Architecture: $arch"
        [ "$package" != libnoti-play0 ] || echo "Multi-Arch: same"
        echo "Maintainer: $maintainer"
        echo "Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)"
        echo "Depends: $depends"
        [ -z "$recommends" ] || echo "Recommends: $recommends"
        echo "Section: $section"
        echo "Priority: optional"
        echo "Description: $summary"
        printf '%s\n' "$description" | fold -s -w 78 | sed -e 's/ *$//' -e 's/^/ /'
    } > "$root/DEBIAN/control"
    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0r md5sum) > "$root/DEBIAN/md5sums"
}

# Loaded with dlopen, so dpkg-shlibdeps cannot see them: libpipewire-0.3-0 and libpulse0 for
# the desktop's sound server, libsndfile1 and libflac12 for theme sounds in Ogg/FLAC, libsystemd0
# for `noti-play listen`, the freedesktop theme for --sound-name.
control noti-play sound "$(shlib_depends "$(tree noti-play)/usr/bin/noti-play")" \
    "libpipewire-0.3-0, libpulse0, libsndfile1, libflac12, libsystemd0, sound-theme-freedesktop" \
    "notification sounds for Linux, the way Apple's UNNotificationSound plays them" \
    "noti-play plays, checks and converts notification sounds (Linear PCM, IMA ADPCM, u-law and A-law in WAV, AIFF/AIFC and CAF) on PipeWire, PulseAudio or ALSA, with critical sounds at an exact volume, ringtones, the freedesktop sound theme and quiet hours. 'noti-play listen' gives desktops whose notification server plays no sound the sound of every notification, from its hints."
control libnoti-play0 libs "$(shlib_depends "$lib0/$libdir/libnoti-play.so.$version")" \
    "noti-play, libpipewire-0.3-0, libpulse0, libsndfile1, libflac12, sound-theme-freedesktop" \
    "notification sounds for Linux daemons (shared library)" \
    "libnoti-play gives a notification daemon the sound of each notification from its hints (sound-file, sound-name, urgency, category, suppress-sound) with the semantics of Apple's UNNotificationSound: allowed folders only, the 30-second rule, critical sounds, ringtones, quiet hours. Calls never block; results arrive on one callback thread. The Swift runtime is linked in; the bundled default sounds come with the noti-play package."
control libnoti-play-dev libdevel "libnoti-play0 (= $version)" "" \
    "notification sounds for Linux daemons (development files)" \
    "The header noti-play.h, the libnoti-play.so link and the pkg-config file noti-play.pc for building notification daemons on libnoti-play: gcc daemon.c \$(pkg-config --cflags --libs noti-play)."

for package in noti-play libnoti-play0 libnoti-play-dev; do
    # Every file dated SOURCE_DATE_EPOCH: the same commit gives the same packages.
    find "$(tree "$package")" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
    dpkg-deb --root-owner-group -Zxz --build "$(tree "$package")" "$out/${package}_${version}_${arch}.deb" >/dev/null
    echo "$out/${package}_${version}_${arch}.deb"
done
