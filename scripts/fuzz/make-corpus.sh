#!/usr/bin/env bash
# Writes the fuzz targets' seed corpora: small valid files (0.01 s at 8 kHz, a few hundred
# bytes each) in every container and encoding, made by ffmpeg, sox and noti-play's own
# `convert`, into Tests/Fuzz/Corpus/{WAV,AIFF,CAF,Race,RoundTrip}. The result is committed; run
# this again only to change the seeds. It replaces the named seeds only: what scripts/fuzz/long.sh
# grew there (files named by their SHA-1) stays.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product noti-play >/dev/null
noti=.build/debug/noti-play
out=Tests/Fuzz/Corpus
mkdir -p "$out"/{WAV,AIFF,CAF,Race,RoundTrip}
find "$out"/{WAV,AIFF,CAF,Race,RoundTrip} -type f -regextype egrep ! -regex '.*/[0-9a-f]{40}' -delete
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Two channels of a short tone: the base every seed is converted from.
ffmpeg -v error -f lavfi -i "aevalsrc=exprs=0.7*sin(2*PI*440*t)|0.5*sin(2*PI*660*t):s=8000:d=0.01" -c:a pcm_s16le "$work/base.wav"
ffmpeg -v error -i "$work/base.wav" -ac 1 -c:a pcm_s16le "$work/mono.wav"

ff() { ffmpeg -v error -i "$work/$1" "${@:3}" -y "$2"; }
for src in base.wav mono.wav; do
    tag=${src%.wav}
    # WAV: RIFF, RF64, every encoding ffmpeg writes; sox for RIFX and IMA ADPCM with fact.
    ff "$src" "$out/WAV/ffmpeg-$tag-s16.wav" -c:a pcm_s16le
    ff "$src" "$out/WAV/ffmpeg-$tag-u8.wav" -c:a pcm_u8
    ff "$src" "$out/WAV/ffmpeg-$tag-s24.wav" -c:a pcm_s24le
    ff "$src" "$out/WAV/ffmpeg-$tag-f64.wav" -c:a pcm_f64le
    ff "$src" "$out/WAV/ffmpeg-$tag-ima.wav" -c:a adpcm_ima_wav
    ff "$src" "$out/WAV/ffmpeg-$tag-rf64.wav" -c:a pcm_s16le -rf64 always
    sox "$work/$src" -e a-law "$out/WAV/sox-$tag-alaw.wav"
    sox "$work/$src" -e ima-adpcm "$out/WAV/sox-$tag-ima.wav"
    sox "$work/$src" -B -b 16 "$out/WAV/sox-$tag-rifx.wav"
    sox "$work/$src" -e floating-point -b 32 -t wavpcm "$out/WAV/sox-$tag-f32-extensible.wav"
    # AIFF and AIFF-C.
    ff "$src" "$out/AIFF/ffmpeg-$tag-s16.aiff" -c:a pcm_s16be
    ff "$src" "$out/AIFF/ffmpeg-$tag-s8.aiff" -c:a pcm_s8
    ff "$src" "$out/AIFF/ffmpeg-$tag-ima4.aifc" -c:a adpcm_ima_qt
    ff "$src" "$out/AIFF/ffmpeg-$tag-ulaw.aifc" -c:a pcm_mulaw
    ff "$src" "$out/AIFF/ffmpeg-$tag-f32.aifc" -c:a pcm_f32be
    ff "$src" "$out/AIFF/ffmpeg-$tag-sowt.aifc" -c:a pcm_s16le
    sox "$work/$src" -b 24 "$out/AIFF/sox-$tag-s24.aiff"
    # CAF.
    ff "$src" "$out/CAF/ffmpeg-$tag-ima4.caf" -c:a adpcm_ima_qt
    ff "$src" "$out/CAF/ffmpeg-$tag-s16le.caf" -c:a pcm_s16le
    ff "$src" "$out/CAF/ffmpeg-$tag-f32be.caf" -c:a pcm_f32be
    ff "$src" "$out/CAF/ffmpeg-$tag-alaw.caf" -c:a pcm_alaw
    # noti-play's own writer: every form it writes, including pakt and fact.
    for form in "caff ima4" "caff ulaw" "caff LEF32" "caff BEI24" "caff I8" "AIFC ima4" "AIFC alaw" "AIFC BEF64" \
                "AIFF BEI16" "WAVE ima4" "WAVE ulaw" "WAVE UI8" "WAVE LEI32"; do
        set -- $form
        case $1 in caff) dir=CAF ext=caf ;; AIFC) dir=AIFF ext=aifc ;; AIFF) dir=AIFF ext=aiff ;; WAVE) dir=WAV ext=wav ;; esac
        "$noti" convert "$work/$src" "$out/$dir/noti-play-$tag-$2.$ext" -f "$1" -d "$2"
    done
done
# Hostile seeds (issue 9): float samples that are NaN or infinite, and sounds followed by zeros
# (as `truncate -s` leaves them), made from the seeds above.
python3 - "$out" <<'PY'
import struct, sys
out = sys.argv[1]

def audio_start(b):
    """Offset of the first sample: after a WAV 'data', AIFF 'SSND' (+ its offset) or CAF 'data' header."""
    if b[:4] == b"caff":
        o = 8
        while o + 12 <= len(b):
            size = struct.unpack(">q", b[o + 4:o + 12])[0]
            if b[o:o + 4] == b"data":
                return o + 12 + 4
            o += 12 + size
    big = b[:4] in (b"FORM", b"RIFX")
    o = 12
    while o + 8 <= len(b):
        size = struct.unpack(">I" if big else "<I", b[o + 4:o + 8])[0]
        if b[o:o + 4] == b"data":
            return o + 8
        if b[o:o + 4] == b"SSND":
            return o + 16 + struct.unpack(">I", b[o + 8:o + 12])[0]
        o += 8 + size + (size & 1)
    raise SystemExit("no audio in seed")

# name, sample width, big-endian
floats = [("WAV/ffmpeg-base-f64.wav", 8, False), ("WAV/sox-base-f32-extensible.wav", 4, False),
          ("AIFF/ffmpeg-base-f32.aifc", 4, True), ("AIFF/noti-play-base-BEF64.aifc", 8, True),
          ("CAF/ffmpeg-base-f32be.caf", 4, True), ("CAF/noti-play-base-LEF32.caf", 4, False)]
values = {4: [0x7FC00000, 0x7F800000, 0xFF800000], 8: [0x7FF8000000000000, 0x7FF0000000000000, 0xFFF0000000000000]}
for name, width, big in floats:
    b = bytearray(open(f"{out}/{name}", "rb").read())
    start = audio_start(b)
    for n, index in enumerate([0, 1, 5, 9, 17, 30]):
        code = (">" if big else "<") + ("I" if width == 4 else "Q")
        struct.pack_into(code, b, start + index * width, values[width][n % 3])
    folder, file = name.split("/")
    open(f"{out}/{folder}/nonfinite-{file}", "wb").write(b)

for name in ["WAV/ffmpeg-mono-s16.wav", "WAV/sox-mono-ima.wav", "AIFF/ffmpeg-mono-s16.aiff", "CAF/ffmpeg-mono-s16le.caf"]:
    folder, file = name.split("/")
    open(f"{out}/{folder}/zero-padded-{file}", "wb").write(open(f"{out}/{name}", "rb").read() + bytes(4096))
PY
# 24-bit samples in 4-byte words (issue 23), from ffmpeg's 24-bit seeds: the low three bytes
# with the top byte the sign (arecord -f S24_LE) or zero (hound), the top three with the low
# byte zero (WAVE_FORMAT_EXTENSIBLE), under a plain and an EXTENSIBLE header, and big-endian.
python3 - "$out" <<'PY'
import struct, sys
out = sys.argv[1]

def samples24(b):
    """The 24-bit samples of one of ffmpeg's pcm_s24le seeds, and its channel count."""
    o, channels = 12, None
    while o + 8 <= len(b):
        size = struct.unpack("<I", b[o + 4:o + 8])[0]
        if b[o:o + 4] == b"fmt ":
            channels = struct.unpack("<H", b[o + 10:o + 12])[0]
        if b[o:o + 4] == b"data":
            data = b[o + 8:o + 8 + size]
            return [int.from_bytes(data[i:i + 3], "little", signed=True) for i in range(0, len(data) - 2, 3)], channels
        o += 8 + size + (size & 1)

for tag in ("base", "mono"):
    values, channels = samples24(open(f"{out}/WAV/ffmpeg-{tag}-s24.wav", "rb").read())
    for layout, header, order in [("low-sign", "plain", "RIFF"), ("low-zero", "plain", "RIFF"), ("high", "extensible", "RIFF"),
                                  ("low-zero", "extensible", "RIFF"), ("low-sign", "plain", "RIFX")]:
        e = ">" if order == "RIFX" else "<"
        word = {"high": lambda v: (v << 8) & 0xFFFFFFFF, "low-sign": lambda v: v & 0xFFFFFFFF, "low-zero": lambda v: v & 0xFFFFFF}[layout]
        words = b"".join(struct.pack(e + "I", word(v)) for v in values)
        block = 4 * channels
        fmt = struct.pack(e + "HHIIHH", 1 if header == "plain" else 0xFFFE, channels, 8000, 8000 * block, block, 24 if header == "plain" else 32)
        if header == "extensible":
            fmt += struct.pack(e + "HHIIHH", 22, 24, 3 if channels == 2 else 4, 1, 0, 0x10) + bytes.fromhex("800000aa00389b71")
        body = b"WAVE" + b"fmt " + struct.pack(e + "I", len(fmt)) + fmt + b"data" + struct.pack(e + "I", len(words)) + words
        open(f"{out}/WAV/python-{tag}-24in32-{layout}-{header}-{order}.wav", "wb").write(order.encode() + struct.pack(e + "I", len(body)) + body)
PY
# The race target (FuzzSupport/Race.swift): a seed file, then what changes and before which
# read: the rate or the channel count rewritten, the file cut in half or grown, 24-bit words
# turned into the other layout; before the 2nd, 3rd, 4th, 6th or 9th read.
python3 - "$out" <<'PY'
import struct, sys
out = sys.argv[1]

def fields(b):
    """Offsets of a byte of the sample rate and of the channel count's low byte (flipping the
    lowest bit of either keeps a usable value), and of the audio."""
    if b[:4] == b"caff":
        o = 8
        while o + 12 <= len(b):
            size = struct.unpack(">q", b[o + 4:o + 12])[0]
            if b[o:o + 4] == b"desc":  # Float64 rate, then format, flags, packet sizes, channels
                rate, channels = o + 12 + 1, o + 12 + 27
            if b[o:o + 4] == b"data":
                return rate, channels, o + 16
            o += 12 + size
    big = b[:4] in (b"FORM", b"RIFX")
    o, rate, channels = 12, None, None
    while o + 8 <= len(b):
        size = struct.unpack(">I" if big else "<I", b[o + 4:o + 8])[0]
        if b[o:o + 4] == b"fmt ":  # tag, channels, rate
            rate, channels = o + 13, o + (11 if big else 10)
        if b[o:o + 4] == b"COMM":  # channels, frames, bits, 80-bit rate
            rate, channels = o + 18, o + 9
        if b[o:o + 4] in (b"data", b"SSND"):
            return rate, channels, o + 8
        o += 8 + size + (size & 1)

def race(swap, at, patch, length=0xFFFF):
    return bytes([swap]) + struct.pack("<HHB", at, length, len(patch)) + patch

seeds = ["WAV/ffmpeg-base-s16.wav", "WAV/sox-base-ima.wav", "WAV/python-base-24in32-low-sign-plain-RIFF.wav",
         "AIFF/ffmpeg-base-s16.aiff", "AIFF/ffmpeg-base-ima4.aifc", "CAF/ffmpeg-base-ima4.caf", "CAF/ffmpeg-base-f32be.caf"]
for name in seeds:
    b = open(f"{out}/{name}", "rb").read()
    rate, channels, audio = fields(b)
    stem = name.split("/")[1]
    cases = {
        "rate": (rate, bytes([b[rate] ^ 1])),
        "channels": (channels, bytes([b[channels] ^ 1])),
        "cut": (0, b"", len(b) // 2),
        "grown": (len(b), bytes(64), len(b) + 4096),
    }
    if "24in32" in name:
        # Every word of the first 64 moved to the other layout (the top byte becomes the low one).
        words = b[audio:audio + 256]
        cases["layout"] = (audio, b"".join(words[i + 1:i + 4] + words[i:i + 1] for i in range(0, len(words), 4))[:255])
    for swap in (1, 2, 3, 5, 8):
        for what, case in cases.items():
            at, patch, length = case if len(case) == 3 else (*case, 0xFFFF)
            open(f"{out}/Race/{stem}-{what}-before-read-{swap + 1}", "wb").write(race(swap, at, patch, length) + b)
PY
# The round-trip target reads a form selector byte and 16-bit samples.
python3 - "$out/RoundTrip" <<'PY'
import math, struct, sys
for form in range(42):
    samples = [int(20000 * math.sin(i * (form + 1) / 7)) for i in range(6 * ((form % 5) + 1))]
    with open(f"{sys.argv[1]}/form-{form:02d}", "wb") as f:
        f.write(bytes([form]) + struct.pack(f"<{len(samples)}h", *samples))
PY
du -sh "$out"; ls "$out"/* | wc -l
