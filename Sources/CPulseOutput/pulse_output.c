#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pulse/pulseaudio.h>
#include "pulse_output.h"

_Static_assert(NOTI_PULSE_MAX_RATE == PA_RATE_MAX, "the header's copy of PA_RATE_MAX");

/* libpulse's functions, resolved once by noti_pulse_load. */
static struct {
    pa_mainloop *(*mainloop_new)(void);
    void (*mainloop_free)(pa_mainloop *);
    pa_mainloop_api *(*mainloop_get_api)(pa_mainloop *);
    int (*mainloop_prepare)(pa_mainloop *, int);
    int (*mainloop_poll)(pa_mainloop *);
    int (*mainloop_dispatch)(pa_mainloop *);
    int (*mainloop_iterate)(pa_mainloop *, int, int *);
    void (*mainloop_wakeup)(pa_mainloop *);
    pa_context *(*context_new_with_proplist)(pa_mainloop_api *, const char *, const pa_proplist *);
    pa_proplist *(*proplist_new)(void);
    int (*proplist_sets)(pa_proplist *, const char *, const char *);
    void (*proplist_free)(pa_proplist *);
    int (*context_connect)(pa_context *, const char *, pa_context_flags_t, const pa_spawn_api *);
    void (*context_disconnect)(pa_context *);
    void (*context_unref)(pa_context *);
    pa_context_state_t (*context_get_state)(const pa_context *);
    int (*context_errno)(const pa_context *);
    pa_operation *(*context_get_server_info)(pa_context *, pa_server_info_cb_t, void *);
    pa_operation *(*context_get_sink_info_list)(pa_context *, pa_sink_info_cb_t, void *);
    pa_operation_state_t (*operation_get_state)(const pa_operation *);
    pa_stream *(*stream_new_with_proplist)(pa_context *, const char *, const pa_sample_spec *, const pa_channel_map *,
                                           pa_proplist *);
    int (*stream_connect_playback)(pa_stream *, const char *, const pa_buffer_attr *, pa_stream_flags_t,
                                   const pa_cvolume *, pa_stream *);
    int (*stream_disconnect)(pa_stream *);
    void (*stream_unref)(pa_stream *);
    pa_stream_state_t (*stream_get_state)(const pa_stream *);
    size_t (*stream_writable_size)(const pa_stream *);
    int (*stream_write)(pa_stream *, const void *, size_t, pa_free_cb_t, int64_t, pa_seek_mode_t);
    const pa_buffer_attr *(*stream_get_buffer_attr)(const pa_stream *);
    int (*stream_get_time)(pa_stream *, pa_usec_t *);
    pa_operation *(*stream_drain)(pa_stream *, pa_stream_success_cb_t, void *);
    pa_operation *(*stream_flush)(pa_stream *, pa_stream_success_cb_t, void *);
    void (*stream_set_underflow_callback)(pa_stream *, pa_stream_notify_cb_t, void *);
    void (*operation_unref)(pa_operation *);
    pa_channel_map *(*channel_map_init_extend)(pa_channel_map *, unsigned, pa_channel_map_def_t);
    const char *(*strerror)(int);
} api;
static const char *load_failure;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* dlsym's object pointer as a function pointer, the way POSIX allows it. */
#define RESOLVE(library, field, symbol) (*(void **)(&api.field) = dlsym(library, symbol))

static void load(void) {
    /* RTLD_LOCAL: its symbols stay out of the host's namespace. Never closed: ALSA's pulse
     * plugin in the same process may hold it too, and it keeps threads-local state. */
    void *library = dlopen("libpulse.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_failure = "libpulse (libpulse.so.0) is not installed";
        return;
    }
    if (!RESOLVE(library, mainloop_new, "pa_mainloop_new") || !RESOLVE(library, mainloop_free, "pa_mainloop_free")
        || !RESOLVE(library, mainloop_get_api, "pa_mainloop_get_api")
        || !RESOLVE(library, mainloop_prepare, "pa_mainloop_prepare")
        || !RESOLVE(library, mainloop_poll, "pa_mainloop_poll")
        || !RESOLVE(library, mainloop_dispatch, "pa_mainloop_dispatch")
        || !RESOLVE(library, mainloop_iterate, "pa_mainloop_iterate")
        || !RESOLVE(library, mainloop_wakeup, "pa_mainloop_wakeup")
        || !RESOLVE(library, context_new_with_proplist, "pa_context_new_with_proplist")
        || !RESOLVE(library, proplist_new, "pa_proplist_new") || !RESOLVE(library, proplist_sets, "pa_proplist_sets")
        || !RESOLVE(library, proplist_free, "pa_proplist_free")
        || !RESOLVE(library, context_connect, "pa_context_connect")
        || !RESOLVE(library, context_disconnect, "pa_context_disconnect")
        || !RESOLVE(library, context_unref, "pa_context_unref")
        || !RESOLVE(library, context_get_state, "pa_context_get_state")
        || !RESOLVE(library, context_errno, "pa_context_errno") || !RESOLVE(library, stream_new_with_proplist, "pa_stream_new_with_proplist")
        || !RESOLVE(library, context_get_server_info, "pa_context_get_server_info")
        || !RESOLVE(library, context_get_sink_info_list, "pa_context_get_sink_info_list")
        || !RESOLVE(library, operation_get_state, "pa_operation_get_state")
        || !RESOLVE(library, stream_connect_playback, "pa_stream_connect_playback")
        || !RESOLVE(library, stream_disconnect, "pa_stream_disconnect")
        || !RESOLVE(library, stream_unref, "pa_stream_unref")
        || !RESOLVE(library, stream_get_state, "pa_stream_get_state")
        || !RESOLVE(library, stream_writable_size, "pa_stream_writable_size")
        || !RESOLVE(library, stream_write, "pa_stream_write")
        || !RESOLVE(library, stream_get_buffer_attr, "pa_stream_get_buffer_attr")
        || !RESOLVE(library, stream_get_time, "pa_stream_get_time")
        || !RESOLVE(library, stream_drain, "pa_stream_drain") || !RESOLVE(library, stream_flush, "pa_stream_flush")
        || !RESOLVE(library, stream_set_underflow_callback, "pa_stream_set_underflow_callback")
        || !RESOLVE(library, operation_unref, "pa_operation_unref")
        || !RESOLVE(library, channel_map_init_extend, "pa_channel_map_init_extend")
        || !RESOLVE(library, strerror, "pa_strerror")) {
        load_failure = "libpulse.so.0 lacks a function noti-play needs";
    }
}

const char *noti_pulse_load(void) {
    /* Fails only for an invalid once-control, which this static one is not. */
    pthread_once(&load_once, load);
    return load_failure;
}

/* Frames faded per write when a stop takes the queue back (the fade is written in pieces from
 * this scratch, so its length needs no allocation on the render thread). */
#define FADE_CHUNK_FRAMES 512

struct noti_pulse {
    pa_mainloop *loop;
    pa_context *context;
    pa_stream *stream;
    int format;
    unsigned int rate, channels;
    size_t frame_bytes, period_bytes;
    /* The last `history_frames` frames written, frame k at k % history_frames: what a stop fades
     * from. At least the server's queue, which is all that can still be replaced. */
    unsigned char *history;
    int64_t history_frames;
    /* Frames written so far: the stream's write index, in frames. */
    int64_t written;
    /* How far past the position heard a stop's fade starts: the server rewinds its sink to
     * there, so the fade continues the sound exactly (the position is interpolated, the sink
     * takes a moment to act on it, and a sink that cannot rewind has read a little ahead: the
     * null sink with its monitor read at 5 ms). */
    int64_t lead_frames;
    unsigned char scratch[FADE_CHUNK_FRAMES * 4 * PA_CHANNELS_MAX];
    int underflowed, drained, server_known, is_pulseaudio;
    char server_version[64];
    unsigned int server_rate;  /* the rate its sinks run at by default */
    /* A stop asked the render thread to look now (consumed by the wait it ends); the stream is
     * being closed (every wait ends, the drain too). */
    atomic_int woken, closing;
};

static int64_t monotonic_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

/* Whether the connection or the stream failed (the server went away, or refused the stream). */
static int failed(const noti_pulse *p) {
    return !PA_CONTEXT_IS_GOOD(api.context_get_state(p->context))
        || (p->stream && !PA_STREAM_IS_GOOD(api.stream_get_state(p->stream)));
}

/* One pass of the loop: waits for the server at most `timeout_us` (-1: until it says something,
 * 0: not at all) and runs what arrived. Returns < 0 when the loop cannot run. */
static int run_once(noti_pulse *p, int timeout_us) {
    if (api.mainloop_prepare(p->loop, timeout_us) < 0) return -1;
    if (api.mainloop_poll(p->loop) < 0) return -1;
    return api.mainloop_dispatch(p->loop);
}

/* The error of a write to a stream that failed: the server went away (its connection ended), or
 * the stream alone failed. */
static long lost(const noti_pulse *p) {
    return PA_CONTEXT_IS_GOOD(api.context_get_state(p->context)) ? -EIO : -ECONNRESET;
}

/* Takes in what the server sent (timing, requests) without waiting. */
static void run_pending(noti_pulse *p) {
    while (api.mainloop_iterate(p->loop, 0, NULL) > 0) {}
}

/* Whether a wait for room is to end: a stop woke it (once), or the stream is closing. */
static int woken(noti_pulse *p) { return atomic_load(&p->closing) || atomic_exchange(&p->woken, 0); }

/* Runs the loop until `done(p)`, the connection or stream fails, or `deadline_us` passes.
 * Returns 0 when done, else a negative errno. */
static int run_until(noti_pulse *p, int (*done)(noti_pulse *), int64_t deadline_us) {
    while (!done(p)) {
        int64_t left = deadline_us - monotonic_us();
        if (left <= 0) return -ETIMEDOUT;
        if (failed(p) || run_once(p, (int)(left < INT32_MAX ? left : INT32_MAX)) < 0) return -ECONNREFUSED;
    }
    return 0;
}

static int context_ready(noti_pulse *p) { return api.context_get_state(p->context) == PA_CONTEXT_READY; }
static int stream_ready(noti_pulse *p) { return api.stream_get_state(p->stream) == PA_STREAM_READY; }
static int server_known(noti_pulse *p) { return p->server_known; }

static void on_underflow(pa_stream *stream, void *user) {
    (void)stream;
    ((noti_pulse *)user)->underflowed = 1;
}

static void on_server_info(pa_context *context, const pa_server_info *info, void *user) {
    (void)context;
    /* PipeWire's service calls itself "PulseAudio (on PipeWire x.y.z)". */
    noti_pulse *p = user;
    p->is_pulseaudio = info && info->server_name && strcmp(info->server_name, "pulseaudio") == 0;
    snprintf(p->server_version, sizeof p->server_version, "%s", info && info->server_version ? info->server_version : "");
    p->server_rate = info ? info->sample_spec.rate : 0;
    p->server_known = 1;
}

static void on_drained(pa_stream *stream, int success, void *user) {
    (void)stream;
    (void)success;
    ((noti_pulse *)user)->drained = 1;
}

/* ALSA's names for the speakers of WAVE's order, as pa_channel_map_init_extend gives them. */
static const char *alsa_name(pa_channel_position_t position) {
    switch (position) {
    case PA_CHANNEL_POSITION_MONO: return "MONO";
    case PA_CHANNEL_POSITION_FRONT_LEFT: return "FL";
    case PA_CHANNEL_POSITION_FRONT_RIGHT: return "FR";
    case PA_CHANNEL_POSITION_FRONT_CENTER: return "FC";
    case PA_CHANNEL_POSITION_REAR_CENTER: return "RC";
    case PA_CHANNEL_POSITION_REAR_LEFT: return "RL";
    case PA_CHANNEL_POSITION_REAR_RIGHT: return "RR";
    case PA_CHANNEL_POSITION_LFE: return "LFE";
    case PA_CHANNEL_POSITION_FRONT_LEFT_OF_CENTER: return "FLC";
    case PA_CHANNEL_POSITION_FRONT_RIGHT_OF_CENTER: return "FRC";
    case PA_CHANNEL_POSITION_SIDE_LEFT: return "SL";
    case PA_CHANNEL_POSITION_SIDE_RIGHT: return "SR";
    case PA_CHANNEL_POSITION_TOP_CENTER: return "TC";
    case PA_CHANNEL_POSITION_TOP_FRONT_LEFT: return "TFL";
    case PA_CHANNEL_POSITION_TOP_FRONT_RIGHT: return "TFR";
    case PA_CHANNEL_POSITION_TOP_FRONT_CENTER: return "TFC";
    case PA_CHANNEL_POSITION_TOP_REAR_LEFT: return "TRL";
    case PA_CHANNEL_POSITION_TOP_REAR_RIGHT: return "TRR";
    case PA_CHANNEL_POSITION_TOP_REAR_CENTER: return "TRC";
    default: return NULL;  /* aux channels: no speaker */
    }
}

static void set_error(noti_pulse *p, char *error, size_t size, int *code, int fallback_code, const char *what) {
    int pa_error = p && p->context ? api.context_errno(p->context) : 0;
    snprintf(error, size, "%s%s%s", what, pa_error ? ": " : "", pa_error ? api.strerror(pa_error) : "");
    *code = pa_error == PA_ERR_TIMEOUT ? -ETIMEDOUT : fallback_code;
}

/* Connects `p` to the server and learns what it is (blocking, until `deadline`). Returns 1, or 0
 * with the stream closed and the reason in `error` and `code`; -EPROTONOSUPPORT when the server
 * is not PulseAudio itself. */
static int connect_server(noti_pulse *p, const char *server, const char *name, const char *application_id,
                          int64_t deadline, char *error, size_t error_size, int *code) {
    /* Who plays: the host's name and id (the server shows and remembers streams by them). */
    pa_proplist *client = api.proplist_new();
    if (client && application_id) api.proplist_sets(client, PA_PROP_APPLICATION_ID, application_id);
    p->loop = api.mainloop_new();
    if (p->loop && client) p->context = api.context_new_with_proplist(api.mainloop_get_api(p->loop), name, client);
    if (client) api.proplist_free(client);
    if (!p->context) {
        set_error(p, error, error_size, code, -ENOMEM, "cannot start a connection");
        noti_pulse_close(p);
        return 0;
    }
    if (api.context_connect(p->context, server, PA_CONTEXT_NOFLAGS, NULL) < 0) {
        set_error(p, error, error_size, code, -ECONNREFUSED, "cannot connect to the sound server");
        noti_pulse_close(p);
        return 0;
    }
    int waited = run_until(p, context_ready, deadline);
    if (waited < 0) {
        set_error(p, error, error_size, code, waited, "cannot connect to the sound server");
        noti_pulse_close(p);
        return 0;
    }

    /* Only PulseAudio itself: a stop's fade is written where the sink already read, and its
     * sinks rewind to take it; PipeWire's service has no rewind, so the fade would be heard
     * only after what its graph had taken (a cut where it ran out). */
    pa_operation *asked = api.context_get_server_info(p->context, on_server_info, p);
    waited = asked ? run_until(p, server_known, deadline) : -ECONNREFUSED;
    if (asked) api.operation_unref(asked);
    if (waited < 0) {
        set_error(p, error, error_size, code, waited, "cannot connect to the sound server");
        noti_pulse_close(p);
        return 0;
    }
    if (!p->is_pulseaudio) {
        snprintf(error, error_size, "the sound server is not PulseAudio itself");
        *code = -EPROTONOSUPPORT;
        noti_pulse_close(p);
        return 0;
    }
    return 1;
}

noti_pulse *noti_pulse_open(const noti_pulse_request *request, noti_pulse_agreed *agreed, int timeout_ms,
                            char *error, size_t error_size, int *code) {
    static const pa_sample_format_t formats[] = {PA_SAMPLE_FLOAT32NE, PA_SAMPLE_S32NE, PA_SAMPLE_S16NE};
    static const size_t sample_bytes[] = {4, 4, 2};
    if (noti_pulse_load()) {
        snprintf(error, error_size, "%s", load_failure);
        *code = -ENOENT;
        return NULL;
    }
    if (request->format < 0 || request->format > 2 || request->channels < 1 || request->channels > PA_CHANNELS_MAX
        || request->rate > PA_RATE_MAX || request->buffer_frames < 1 || request->period_frames < 1) {
        snprintf(error, error_size, "the stream asked for is not one the server plays");
        *code = -EINVAL;
        return NULL;
    }
    noti_pulse *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(error, error_size, "out of memory");
        *code = -ENOMEM;
        return NULL;
    }
    p->format = request->format;
    p->rate = request->rate;
    p->channels = request->channels;
    p->frame_bytes = sample_bytes[request->format] * request->channels;
    p->lead_frames = request->rate / 100;  /* 10 ms */
    int64_t deadline = monotonic_us() + (int64_t)timeout_ms * 1000;

    const char *name = request->application_name ? request->application_name : "noti-play";
    if (!connect_server(p, request->server, name, request->application_id, deadline, error, error_size, code)) return NULL;

    /* Rate 0: the server's own, so that it resamples nothing (the player converts each sound once). */
    if (request->rate == 0) {
        p->rate = p->server_rate >= 1 && p->server_rate <= PA_RATE_MAX ? p->server_rate : 48000;
        p->lead_frames = p->rate / 100;
    }
    agreed->rate = p->rate;
    /* With rate 0 the request's frames are at 48 kHz (NOTI_PULSE_REFERENCE_RATE): kept in time. */
    unsigned long long buffer_frames = request->buffer_frames, period_frames = request->period_frames;
    if (request->rate == 0) {
        buffer_frames = buffer_frames * p->rate / NOTI_PULSE_REFERENCE_RATE;
        period_frames = period_frames * p->rate / NOTI_PULSE_REFERENCE_RATE;
        if (period_frames < 1) period_frames = 1;
        if (buffer_frames < period_frames) buffer_frames = period_frames;
    }
    pa_sample_spec spec = {formats[request->format], p->rate, (uint8_t)request->channels};
    pa_channel_map map;
    api.channel_map_init_extend(&map, request->channels, PA_CHANNEL_MAP_WAVEEX);
    /* What plays: an event sound (the desktop's alert volume and role rules), unless the user's
     * environment chose another role. */
    pa_proplist *properties = api.proplist_new();
    if (properties) {
        const char *role = getenv("PULSE_PROP_media.role") ? NULL : request->role;
        if (role) api.proplist_sets(properties, PA_PROP_MEDIA_ROLE, role);
        if (request->application_id) api.proplist_sets(properties, PA_PROP_APPLICATION_ID, request->application_id);
    }
    const char *media_name = request->media_name ? request->media_name : name;
    p->stream = properties ? api.stream_new_with_proplist(p->context, media_name, &spec, &map, properties) : NULL;
    if (properties) api.proplist_free(properties);
    if (!p->stream) {
        set_error(p, error, error_size, code, -EINVAL, "refused the stream");
        noti_pulse_close(p);
        return NULL;
    }
    api.stream_set_underflow_callback(p->stream, on_underflow, p);
    pa_buffer_attr attributes = {
        .maxlength = (uint32_t)-1,
        .tlength = (uint32_t)(buffer_frames * p->frame_bytes),
        /* Playback starts with the first period written, not once the queue is full. */
        .prebuf = (uint32_t)(period_frames * p->frame_bytes),
        .minreq = (uint32_t)(period_frames * p->frame_bytes),
        .fragsize = (uint32_t)-1,
    };
    pa_stream_flags_t flags = PA_STREAM_INTERPOLATE_TIMING | PA_STREAM_AUTO_TIMING_UPDATE | PA_STREAM_ADJUST_LATENCY;
    if (api.stream_connect_playback(p->stream, request->sink, &attributes, flags, NULL, NULL) < 0) {
        set_error(p, error, error_size, code, -EINVAL, "refused the stream");
        noti_pulse_close(p);
        return NULL;
    }
    int waited = run_until(p, stream_ready, deadline);
    if (waited < 0) {
        set_error(p, error, error_size, code, waited == -ETIMEDOUT ? waited : -EINVAL, "refused the stream");
        noti_pulse_close(p);
        return NULL;
    }

    /* The server may change the attributes: what it agreed to is what counts. */
    const pa_buffer_attr *granted = api.stream_get_buffer_attr(p->stream);
    size_t tlength = granted ? granted->tlength : attributes.tlength;
    size_t minreq = granted ? granted->minreq : attributes.minreq;
    agreed->buffer_frames = (unsigned int)(tlength / p->frame_bytes);
    agreed->period_frames = (unsigned int)(minreq / p->frame_bytes);
    if (agreed->period_frames < 1) agreed->period_frames = 1;
    if (agreed->buffer_frames < agreed->period_frames) agreed->buffer_frames = agreed->period_frames;
    p->period_bytes = agreed->period_frames * p->frame_bytes;
    snprintf(agreed->server_version, sizeof agreed->server_version, "%s", p->server_version);
    for (unsigned int channel = 0; channel < PA_CHANNELS_MAX; channel++) {
        agreed->speakers[channel] = channel < request->channels ? alsa_name(map.map[channel]) : NULL;
    }
    /* The queue, a period written past it while the server's request was on its way, and the lead. */
    p->history_frames = 2 * (int64_t)agreed->buffer_frames + agreed->period_frames + p->lead_frames;
    p->history = malloc((size_t)p->history_frames * p->frame_bytes);
    if (!p->history) {
        snprintf(error, error_size, "out of memory");
        *code = -ENOMEM;
        noti_pulse_close(p);
        return NULL;
    }
    return p;
}

void noti_pulse_close(noti_pulse *p) {
    if (!p) return;
    if (p->stream) {
        api.stream_disconnect(p->stream);
        api.stream_unref(p->stream);
    }
    if (p->context) {
        api.context_disconnect(p->context);
        api.context_unref(p->context);
    }
    if (p->loop) api.mainloop_free(p->loop);
    free(p->history);
    free(p);
}

/* Copies `count` frames between `frames` and the history at write index `at` (into the history
 * when `store`, out of it otherwise), in the runs its wrapping leaves. */
static void copy_history(noti_pulse *p, unsigned char *frames, int64_t at, int64_t count, int store) {
    while (count > 0) {
        int64_t slot = at % p->history_frames;
        int64_t run = p->history_frames - slot < count ? p->history_frames - slot : count;
        unsigned char *kept = p->history + slot * p->frame_bytes;
        size_t bytes = (size_t)(run * p->frame_bytes);
        if (store) memcpy(kept, frames, bytes); else memcpy(frames, kept, bytes);
        frames += bytes;
        at += run;
        count -= run;
    }
}

long noti_pulse_write(noti_pulse *p, const void *frames, long count) {
    if (p->underflowed) {
        p->underflowed = 0;
        return -EPIPE;  /* the server ran dry: PCMStreamCalls.underrun, nothing to recover */
    }
    size_t room;
    while ((room = api.stream_writable_size(p->stream)) < p->frame_bytes) {
        if (failed(p) || run_once(p, -1) < 0) return lost(p);
        if (woken(p)) return -EAGAIN;
    }
    size_t bytes = (size_t)count * p->frame_bytes;
    if (bytes > room) bytes = room - room % p->frame_bytes;
    if (api.stream_write(p->stream, frames, bytes, NULL, 0, PA_SEEK_RELATIVE) < 0) return lost(p);
    int64_t written = (int64_t)(bytes / p->frame_bytes);
    copy_history(p, (unsigned char *)frames, p->written, written, 1);
    p->written += written;
    return (long)written;
}

void noti_pulse_wait_for_room(noti_pulse *p, int milliseconds) {
    int64_t deadline = monotonic_us() + (int64_t)milliseconds * 1000;
    run_pending(p);
    while (api.stream_writable_size(p->stream) < p->period_bytes && !failed(p)) {
        if (woken(p)) return;
        int64_t left = deadline - monotonic_us();
        if (left <= 0 || run_once(p, (int)left) < 0) return;
    }
}

void noti_pulse_prepare(noti_pulse *p) {
    /* Drained, the stream ran dry on purpose: that is no underrun of the next sound. */
    p->underflowed = 0;
}

void noti_pulse_drain(noti_pulse *p) {
    p->drained = 0;
    pa_operation *operation = api.stream_drain(p->stream, on_drained, p);
    if (!operation) return;
    /* Only closing ends it early: a stop that woke the render thread before it drained (or a
     * second signal) must not cut the fade this drain lets be heard. */
    while (!p->drained && !failed(p) && !atomic_load(&p->closing)) {
        if (run_once(p, -1) < 0) break;
    }
    api.operation_unref(operation);
    p->underflowed = 0;
}

void noti_pulse_drop(noti_pulse *p) {
    pa_operation *operation = api.stream_flush(p->stream, NULL, NULL);
    if (operation) api.operation_unref(operation);
    run_pending(p);
}

/* Scales `count` frames of the stream's format in `frames` by a ramp falling from just under 1
 * (frame `first` of a fade `length` long) to 0 at the fade's last frame. */
static void fade(noti_pulse *p, unsigned char *frames, int64_t first, int64_t count, int64_t length) {
    for (int64_t frame = 0; frame < count; frame++) {
        float gain = (float)(length - 1 - (first + frame)) / (float)length;
        unsigned char *samples = frames + frame * p->frame_bytes;
        for (unsigned int channel = 0; channel < p->channels; channel++) {
            switch (p->format) {
            case NOTI_PULSE_FLOAT32: ((float *)samples)[channel] *= gain; break;
            case NOTI_PULSE_S32: ((int32_t *)samples)[channel] = (int32_t)((double)((int32_t *)samples)[channel] * gain); break;
            default: ((int16_t *)samples)[channel] = (int16_t)((float)((int16_t *)samples)[channel] * gain); break;
            }
        }
    }
}

long noti_pulse_take_back(noti_pulse *p, long fade_frames) {
    if (failed(p) || fade_frames < 1) return -1;
    run_pending(p);
    pa_usec_t heard_us;
    if (api.stream_get_time(p->stream, &heard_us) < 0) return -1;
    int64_t from = (int64_t)((double)heard_us * p->rate / 1e6) + p->lead_frames;
    if (from < p->written - p->history_frames) from = p->written - p->history_frames;
    if (from >= p->written) return -1;
    int64_t length = p->written - from < fade_frames ? p->written - from : fade_frames;
    for (int64_t done = 0; done < length;) {
        int64_t chunk = length - done < FADE_CHUNK_FRAMES ? length - done : FADE_CHUNK_FRAMES;
        copy_history(p, p->scratch, from + done, chunk, 0);
        fade(p, p->scratch, done, chunk, length);
        /* The first piece replaces the queue from `from` on (the server rewinds its sink to
         * there if it already took it); the write index ends after the fade, so what was
         * queued beyond is never played. */
        int first = done == 0;
        if (api.stream_write(p->stream, p->scratch, (size_t)(chunk * p->frame_bytes), NULL,
                             first ? from * (int64_t)p->frame_bytes : 0, first ? PA_SEEK_ABSOLUTE : PA_SEEK_RELATIVE) < 0) {
            return -1;
        }
        done += chunk;
    }
    p->written = from + length;
    return (long)length;
}

void noti_pulse_interrupt(noti_pulse *p, int closing) {
    if (closing) atomic_store(&p->closing, 1);
    atomic_store(&p->woken, 1);
    api.mainloop_wakeup(p->loop);
}

struct sink_listing {
    void (*each)(const char *, const char *, void *);
    void *user;
    int done;
};

static void on_sink(pa_context *context, const pa_sink_info *info, int last, void *user) {
    (void)context;
    struct sink_listing *listing = user;
    if (last) listing->done = 1;
    else if (info && info->name) listing->each(info->name, info->description ? info->description : "", listing->user);
}

int noti_pulse_list_sinks(const char *server, int timeout_ms, void (*each)(const char *name, const char *description, void *user),
                          void *user) {
    if (noti_pulse_load()) return -ENOENT;
    noti_pulse *p = calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    char error[256];
    int code = 0;
    int64_t deadline = monotonic_us() + (int64_t)timeout_ms * 1000;
    if (!connect_server(p, server, "noti-play", "noti-play", deadline, error, sizeof error, &code)) return code;
    struct sink_listing listing = {each, user, 0};
    pa_operation *asked = api.context_get_sink_info_list(p->context, on_sink, &listing);
    int result = 0;
    while (asked && !listing.done) {
        int64_t left = deadline - monotonic_us();
        if (left <= 0) { result = -ETIMEDOUT; break; }
        if (failed(p) || run_once(p, (int)(left < INT32_MAX ? left : INT32_MAX)) < 0) { result = -ECONNRESET; break; }
    }
    if (asked) api.operation_unref(asked);
    else result = -ECONNRESET;
    noti_pulse_close(p);
    return result;
}
