#!/usr/bin/env python3
"""Synthesizes noti-play's bundled sounds as 16-bit WAV files, the same bytes on every run.

Each sound is a few struck-bell notes: partials at bell-like ratios, each with its own
exponential decay, a 4 ms attack so nothing clicks, peaks normalized to -3 dBFS.
make-sounds.sh turns the WAV files into IMA4 CAF with `noti-play convert`.
"""
import math
import sys
import wave

RATE = 44100
PEAK = 10 ** (-3 / 20)  # -3 dBFS: loud enough, with headroom for IMA4's quantization

# (ratio to the fundamental, relative amplitude, decay time constant in seconds)
BELL_PARTIALS = [(1.0, 1.0, 0.45), (2.0, 0.45, 0.25), (3.01, 0.22, 0.15), (4.23, 0.12, 0.09), (5.4, 0.06, 0.06)]


def bell(frequency, start, length, samples):
    attack = int(0.004 * RATE)
    first = int(start * RATE)
    for n in range(int(length * RATE)):
        i = first + n
        if i >= len(samples):
            break
        t = n / RATE
        envelope = min(1.0, n / attack)
        value = 0.0
        for ratio, amplitude, decay in BELL_PARTIALS:
            value += amplitude * math.exp(-t / decay) * math.sin(2 * math.pi * frequency * ratio * t)
        samples[i] += envelope * value


def render(notes, seconds):
    samples = [0.0] * int(seconds * RATE)
    for frequency, start in notes:
        bell(frequency, start, seconds - start, samples)
    # Fade the last 20 ms to exact silence so the sound ends without a click.
    fade = int(0.02 * RATE)
    for n in range(fade):
        samples[-1 - n] *= n / fade
    scale = PEAK / max(abs(s) for s in samples)
    return [s * scale for s in samples]


def write_wav(path, samples):
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(b"".join(
            max(-32768, min(32767, round(s * 32768))).to_bytes(2, "little", signed=True) for s in samples))


SOUNDS = {
    # A rising major sixth, A5 then F#6: friendly and short.
    "default": ([(880.0, 0.0), (1479.98, 0.11)], 0.9),
    # Critical: a fast, insistent descending pair struck three times (D6-A5), hard to miss.
    "critical": ([(f, start + offset) for start in (0.0, 0.3, 0.6) for f, offset in ((1174.66, 0.0), (880.0, 0.12))], 1.4),
    # Ringtone: a rising arpeggio (C6 E6 G6 C7) and a pause; it loops until answered, so it
    # starts and ends in silence and the loop point does not click.
    "ringtone": ([(1046.5, 0.0), (1318.51, 0.15), (1567.98, 0.3), (2093.0, 0.45)], 2.0),
}

if __name__ == "__main__":
    folder = sys.argv[1]
    for name, (notes, seconds) in SOUNDS.items():
        write_wav(f"{folder}/{name}.wav", render(notes, seconds))
