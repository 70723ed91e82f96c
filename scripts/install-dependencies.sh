#!/usr/bin/env bash
# Installs the Debian packages noti-play builds and tests with. Safe to run again: it installs
# only what is missing. Runs apt-get as root, or through sudo.
set -euo pipefail

packages=(
    pkg-config
    libasound2-dev       # ALSA: the output (system library target CALSA)
    libpulse-dev         # libpulse's header: the command plays a PulseAudio server directly (libpulse.so.0, loaded when it does)
    libpipewire-0.3-dev  # libpipewire's and SPA's headers: noti-play plays a PipeWire server natively (libpipewire-0.3.so.0, loaded when it does)
    libsndfile1-dev      # reference decoder in the tests (system library target CSndFile)
    libflac-dev          # libFLAC's header: Ogg FLAC theme sounds are decoded by libFLAC.so.12, loaded when one plays (COggFLAC)
    libsoxr-dev          # reference resampler in the tests (CSoxr) and a contender in Benchmarks/ (CSoxrBench)
    libspeexdsp-dev      # speexdsp's resampler (PulseAudio's), a contender in Benchmarks/ (CSpeexDSPBench)
    sndfile-programs     # sndfile-info: another reader of chunk headers, for the tests
    ffmpeg               # writes fixtures, and is a reference decoder
    sox libsox-fmt-all   # writes fixtures (WAV IMA ADPCM, RIFX, AIFF, CAF through libsndfile)
    python3              # its wave and aifc modules write fixtures; synthesizes Sounds/
    libasound2-plugins   # ALSA's pulse plugin: the playback tests' route to PulseAudio; its jack plugin (and libjack)
    pulseaudio           # a private server with a null sink gives the tests a real clock
    pulseaudio-utils     # parec records what the null sink played
    pipewire wireplumber pipewire-pulse  # the PipeWire tests' private server, its session manager (links streams) and PulseAudio service (parec, pactl)
    pipewire-bin         # pw-play (the peer the PipeWire backend is measured beside), pw-dump, pw-metadata
    # Not pipewire-alsa: its 99-pipewire-default.conf would make PipeWire the ALSA default of
    # every program on the machine, and it conflicts with pulseaudio. The PipeWire rig fetches it
    # with `apt-get download` into .build/pipewire-alsa-VERSION/ and loads its plugin by path
    # (Tests/NotiPlayTestSupport/PipeWireServer.swift).
    sound-theme-freedesktop  # the freedesktop sound theme that --sound-name looks up
    gcc                  # the tests compile the C example daemon against libnoti-play
    g++                  # libstdc++.a, linked into what ships (Package.swift), and a C++ host in the tests
    stress-ng            # keeps every core busy while a long sound plays, beside aplay
    alsa-utils           # aplay: the peer noti-play's real-time figures are compared with
    strace               # shows that convert syncs the file before the rename and the folder after
    valgrind             # runs the C scenario programs (Tests/CScenarios): memory errors in callbacks and free
    libsystemd-dev       # sd-bus's header: `noti-play listen` talks to the session bus through it (libsystemd.so.0, loaded when listen starts)
    dbus-daemon dbus-bin # the listen tests' private session bus; dbus-send, which dunstctl uses
    libglib2.0-bin       # gdbus: the listen tests' raw (and malformed) Notify calls
    libglib2.0-dev       # GIO's headers: the tests build docs/examples/glib-notification-daemon.c
    libnotify-bin        # notify-send: the notifications people send
    dunst xvfb           # a real notification daemon, on a virtual X display (Xvfb)
    dpkg-dev             # dpkg-shlibdeps and dpkg-architecture: scripts/make-deb.sh computes the packages' Depends
    lintian              # judges the Debian packages scripts/make-deb.sh builds
    groff-base man-db    # the tests render the generated man page (groff, man -l)
    zsh fish             # the tests load the generated zsh and fish completions
)
# Also used, from util-linux (Essential in Debian, always installed): prlimit bounds the memory
# of `noti-play info` on malformed files, setpriv runs it as nobody on an unreadable file, unshare
# hides the Swift toolchain from the shipped C library's test; binutils (readelf, nm, strip) comes
# with gcc.

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
echo "Installing: ${missing[*]}" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
