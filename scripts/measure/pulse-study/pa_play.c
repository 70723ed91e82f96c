/* (c)/(d): libpulse playback of the in-memory 10 s sine.
 * usage: pa_play MODE TLENGTH_MS [STOP_S METHOD LEAD_MS]
 *   MODE   simple  pa_simple, blocking writes of minreq (tlength/4) bytes
 *          async   pa_threaded_mainloop, writes in the write callback (begin_write + write)
 *          poll    pa_mainloop iterated on the calling thread, same callbacks (no extra thread)
 *   METHOD (at STOP_S after the first write; p = heard position from get_time / get_latency)
 *          flush     flush, write the fade of p.. (seek RELATIVE: at the read index), drain
 *          flushabs  flush, write the fade of p+LEAD at PA_SEEK_ABSOLUTE index p+LEAD, drain
 *          seek      no flush: fade at PA_SEEK_RELATIVE_ON_READ +LEAD, content from the
 *                    estimated read index (p + sink latency) + LEAD, drain
 *          seekabs   no flush: fade at PA_SEEK_ABSOLUTE p+LEAD, drain
 *          seekabs_r no flush: fade at PA_SEEK_ABSOLUTE p + sink latency (timing info) + LEAD, drain
 *   (simple supports flush only.) Prints one JSON line. */
#include <pulse/pulseaudio.h>
#include <pulse/simple.h>
#include <pulse/error.h>
#include "common.h"

static const pa_sample_spec spec = { PA_SAMPLE_FLOAT32LE, RATE, CH };
static pa_buffer_attr attr;
static double stop_after; static const char *method = "flush"; static long lead;
static double t0, t_stop, t_noticed, t_drained; static long pos_at_stop = -1, fade_at = -1, sink_frames = -1;
static long wpos; static int stopping, finished, failed, threaded;
static pa_threaded_mainloop *tml; static pa_mainloop *ml; static pa_stream *st; static pa_context *ctx;
static long writes, callbacks;

static void wake(void) { if (threaded) pa_threaded_mainloop_signal(tml, 0); }

static void ctx_state(pa_context *c, void *u) { (void)c; (void)u; wake(); }
static void st_state(pa_stream *s, void *u) { (void)s; (void)u; wake(); }

static void drained(pa_stream *s, int ok, void *u) {
    (void)s; (void)u; (void)ok; t_drained = now_s(); finished = 1; wake();
}

static void write_cb(pa_stream *s, size_t nbytes, void *u) {
    (void)u; callbacks++;
    if (stopping) return;
    while (nbytes > 0 && wpos < SOUND_FRAMES) {
        void *d; size_t n = nbytes;
        if (pa_stream_begin_write(s, &d, &n) < 0) { failed = 1; return; }
        size_t left = (size_t)(SOUND_FRAMES - wpos) * FRAME_BYTES;
        if (n > nbytes) n = nbytes;
        if (n > left) n = left;
        n -= n % FRAME_BYTES;
        memcpy(d, sound + 2 * wpos, n);
        pa_stream_write(s, d, n, NULL, 0, PA_SEEK_RELATIVE);
        writes++;
        if (t0 == 0) { t0 = now_s(); wake(); }
        wpos += n / FRAME_BYTES; nbytes -= n;
    }
    if (wpos == SOUND_FRAMES && !stopping) {
        stopping = 1;
        pa_operation_unref(pa_stream_drain(s, drained, NULL));
    }
}

/* The stop: mainloop lock held (threaded) or on the loop's thread (poll). */
static void do_stop(void) {
    stopping = 1; t_noticed = now_s();
    pa_usec_t usec = 0;
    pa_stream_get_time(st, &usec);
    const pa_timing_info *ti = pa_stream_get_timing_info(st);
    if (ti) sink_frames = (long)(ti->sink_usec * RATE / 1000000);
    long p = (long)((double)usec * RATE / 1e6);
    pos_at_stop = p;
    long q; int64_t off; pa_seek_mode_t mode;
    if (!strcmp(method, "flush")) { q = p; off = 0; mode = PA_SEEK_RELATIVE; }
    else if (!strcmp(method, "flushabs") || !strcmp(method, "seekabs")) { q = p + lead; off = (int64_t)q * FRAME_BYTES; mode = PA_SEEK_ABSOLUTE; }
    else if (!strcmp(method, "seekabs_r")) { q = p + (sink_frames > 0 ? sink_frames : 0) + lead; off = (int64_t)q * FRAME_BYTES; mode = PA_SEEK_ABSOLUTE; }
    else { q = p + (sink_frames > 0 ? sink_frames : 0) + lead; off = (int64_t)lead * FRAME_BYTES; mode = PA_SEEK_RELATIVE_ON_READ; }
    if (!strncmp(method, "flush", 5)) pa_operation_unref(pa_stream_flush(st, NULL, NULL));
    fade_at = q;
    pa_stream_write(st, make_fade(q), FADE_FRAMES * FRAME_BYTES, NULL, off, mode);
    pa_operation_unref(pa_stream_drain(st, drained, NULL));
}

static void stop_timer(pa_mainloop_api *a, pa_time_event *e, const struct timeval *tv, void *u) {
    (void)tv; (void)u; a->time_free(e);
    t_stop = t0 + stop_after;
    if (!stopping) do_stop();
}

static void setup_stream(void) {
    st = pa_stream_new(ctx, "pa_play", &spec, NULL);
    pa_stream_set_state_callback(st, st_state, NULL);
    pa_stream_set_write_callback(st, write_cb, NULL);
    pa_stream_connect_playback(st, NULL, &attr,
        PA_STREAM_INTERPOLATE_TIMING | PA_STREAM_ADJUST_LATENCY | PA_STREAM_AUTO_TIMING_UPDATE, NULL, NULL);
}

static void report(const char *mode) {
    printf("{\"mode\": \"%s\", \"writes\": %ld, \"callbacks\": %ld", mode, writes, callbacks);
    if (st) { const pa_buffer_attr *a = pa_stream_get_buffer_attr(st);
        if (a) printf(", \"tlength_ms\": %.1f, \"minreq_ms\": %.1f, \"prebuf_ms\": %.1f",
                      a->tlength / 384.0, a->minreq / 384.0, a->prebuf / 384.0); }
    if (t_stop > 0)
        printf(", \"method\": \"%s\", \"pos_at_stop\": %ld, \"fade_at\": %ld, \"sink_frames\": %ld, \"noticed_ms\": %.1f, \"stop_to_drained_ms\": %.1f",
               method, pos_at_stop, fade_at, sink_frames, (t_noticed - t_stop) * 1e3, (t_drained - t_stop) * 1e3);
    printf("}\n");
}

static int run_simple(void) {
    int err; pa_simple *s = pa_simple_new(NULL, "pa_play", PA_STREAM_PLAYBACK, NULL, "play", &spec, NULL, &attr, &err);
    if (!s) { fprintf(stderr, "pa_simple_new: %s\n", pa_strerror(err)); return 1; }
    long chunk = attr.minreq / FRAME_BYTES;
    while (wpos < SOUND_FRAMES) {
        if (stop_after > 0 && t0 > 0 && now_s() >= t0 + stop_after) {
            t_stop = t0 + stop_after; t_noticed = now_s();
            pa_usec_t lat = pa_simple_get_latency(s, &err);
            long p = wpos - (long)((double)lat * RATE / 1e6);
            pos_at_stop = fade_at = p;
            pa_simple_flush(s, &err);
            pa_simple_write(s, make_fade(p), FADE_FRAMES * FRAME_BYTES, &err);
            break;
        }
        long n = SOUND_FRAMES - wpos < chunk ? SOUND_FRAMES - wpos : chunk;
        if (pa_simple_write(s, sound + 2 * wpos, n * FRAME_BYTES, &err) < 0) { fprintf(stderr, "write: %s\n", pa_strerror(err)); return 1; }
        writes++;
        if (t0 == 0) t0 = now_s();
        wpos += n;
    }
    pa_simple_drain(s, &err);
    t_drained = now_s();
    pa_simple_free(s);
    report("simple");
    return 0;
}

static int run_threaded(void) {
    threaded = 1;
    tml = pa_threaded_mainloop_new();
    ctx = pa_context_new(pa_threaded_mainloop_get_api(tml), "pa_play");
    pa_context_set_state_callback(ctx, ctx_state, NULL);
    pa_threaded_mainloop_lock(tml);
    pa_context_connect(ctx, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL);
    pa_threaded_mainloop_start(tml);
    while (pa_context_get_state(ctx) != PA_CONTEXT_READY) {
        if (!PA_CONTEXT_IS_GOOD(pa_context_get_state(ctx))) { fprintf(stderr, "context failed\n"); return 1; }
        pa_threaded_mainloop_wait(tml);
    }
    setup_stream();
    while (pa_stream_get_state(st) != PA_STREAM_READY) {
        if (!PA_STREAM_IS_GOOD(pa_stream_get_state(st))) { fprintf(stderr, "stream failed\n"); return 1; }
        pa_threaded_mainloop_wait(tml);
    }
    if (stop_after > 0) {
        while (t0 == 0) pa_threaded_mainloop_wait(tml);
        pa_threaded_mainloop_unlock(tml);
        double target = t0 + stop_after;
        struct timespec ts = { (time_t)target, (long)((target - (time_t)target) * 1e9) };
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        pa_threaded_mainloop_lock(tml);
        t_stop = target;
        if (!stopping) do_stop();
    }
    while (!finished && !failed) pa_threaded_mainloop_wait(tml);
    pa_stream_disconnect(st);
    pa_threaded_mainloop_unlock(tml);
    report("async");
    pa_threaded_mainloop_stop(tml);
    pa_stream_unref(st); pa_context_disconnect(ctx); pa_context_unref(ctx); pa_threaded_mainloop_free(tml);
    return failed;
}

static int run_poll(void) {
    ml = pa_mainloop_new();
    pa_mainloop_api *api = pa_mainloop_get_api(ml);
    ctx = pa_context_new(api, "pa_play");
    pa_context_connect(ctx, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL);
    while (pa_context_get_state(ctx) != PA_CONTEXT_READY) {
        if (!PA_CONTEXT_IS_GOOD(pa_context_get_state(ctx))) { fprintf(stderr, "context failed\n"); return 1; }
        pa_mainloop_iterate(ml, 1, NULL);
    }
    setup_stream();
    int armed = 0;
    while (!finished && !failed) {
        if (stop_after > 0 && !armed && t0 > 0) {
            struct timeval tv; pa_gettimeofday(&tv);
            pa_timeval_add(&tv, (pa_usec_t)((t0 + stop_after - now_s()) * 1e6));
            api->time_new(api, &tv, stop_timer, NULL); armed = 1;
        }
        if (pa_mainloop_iterate(ml, 1, NULL) < 0) break;
    }
    pa_stream_disconnect(st);
    report("poll");
    return failed;
}

int main(int argc, char **argv) {
    const char *mode = argv[1];
    size_t tl = argc > 2 ? (size_t)atoi(argv[2]) : 0; tl = tl * RATE / 1000 * FRAME_BYTES;
    attr.maxlength = (uint32_t)-1; attr.tlength = tl; attr.prebuf = (uint32_t)-1;
    attr.minreq = (tl / 4) - (tl / 4) % FRAME_BYTES; attr.fragsize = (uint32_t)-1;
    if (argc > 3) { stop_after = atof(argv[3]); method = argv[4]; lead = argc > 5 ? atol(argv[5]) * RATE / 1000 : 0; }
    make_sound();
    if (!strcmp(mode, "none")) { printf("{}\n"); return 0; }  /* the cost of making the sound */
    if (!strcmp(mode, "dump")) { FILE *f = fopen("sound.f32", "wb"); fwrite(sound, FRAME_BYTES, SOUND_FRAMES, f); fclose(f); return 0; }
    if (!strcmp(mode, "simple")) return run_simple();
    if (!strcmp(mode, "async")) return run_threaded();
    return run_poll();
}
