/* Shared by the measurement programs: the in-memory sound and a clock. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define RATE 48000
#define CH 2
#define FRAME_BYTES (CH * sizeof(float))
#define SOUND_FRAMES (10 * RATE)
#define FADE_FRAMES (RATE / 100) /* 10 ms */
#define FREQ 440.0
#define AMP 0.5
#define PHASE0 0.3

static float *sound; /* SOUND_FRAMES stereo frames */

/* A 440 Hz sine with -54 dB of deterministic noise added, so that every sample value is (almost
 * always) unique and a recording can be mapped back to sound positions exactly. */
static void make_sound(void) {
    sound = malloc((size_t)SOUND_FRAMES * FRAME_BYTES);
    unsigned x = 2463534242u;
    for (long i = 0; i < SOUND_FRAMES; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        double sine = AMP * sin(2 * M_PI * FREQ * i / RATE + PHASE0);
        sound[2 * i] = (float)(sine + 0.001 * ((double)(x & 0xffff) / 65536.0 - 0.5));
        sound[2 * i + 1] = (float)(sine + 0.001 * ((double)(x >> 16) / 65536.0 - 0.5));
    }
}

/* A 10 ms fade of the sound from frame `from`: gain 1 -> 0. */
static float fade_buf[FADE_FRAMES * CH];
static const float *make_fade(long from) {
    for (long k = 0; k < FADE_FRAMES; k++) {
        long i = from + k;
        int in = i >= 0 && i < SOUND_FRAMES;
        float g = 1.0f - (float)(k + 1) / FADE_FRAMES;
        fade_buf[2 * k] = in ? sound[2 * i] * g : 0.0f; fade_buf[2 * k + 1] = in ? sound[2 * i + 1] * g : 0.0f;
    }
    return fade_buf;
}

static double now_s(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
