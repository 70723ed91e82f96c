#ifndef NOTI_PIPEWIRE_OUTPUT_H
#define NOTI_PIPEWIRE_OUTPUT_H

#include <stddef.h>

/*
 * A playback stream on a PipeWire server through libpipewire-0.3, loaded the first time it is
 * needed (not linked: a process that plays elsewhere never loads it, and packages need not
 * depend on it).
 *
 * Between the render thread and the server sits a ring of the stream's own, sized at open: the
 * render thread writes into it (never calling libpipewire), and at each graph cycle
 * libpipewire's data thread takes the cycle the server asks for (PW_STREAM_FLAG_RT_PROCESS), so
 * the server holds nothing ahead of the cycle it plays. A stop replaces what the ring holds
 * with a fade (noti_pw_take_back), heard within that cycle. A thread of the stream's own runs
 * its loop (the connection, the stream's events): the server waits for a client's answers when
 * the graph starts or a link changes, and a sink would not start, for any client, while a
 * stream on it owes one, so the loop cannot run only inside the render thread's calls (as
 * pulse_output.c runs libpulse's). No pw_thread_loop: nothing takes its lock.
 *
 * One thread at a time calls: the stream is opened on one thread, then played by one thread (the
 * render thread), then closed. Only noti_pw_interrupt may be called from another thread, while
 * the stream is open.
 */

typedef struct noti_pw noti_pw;

/* The highest rate noti-play asks a server for, as for PulseAudio (PA_RATE_MAX). */
enum { NOTI_PW_MAX_RATE = 384000, NOTI_PW_MAX_CHANNELS = 32 };

/* The stream's sample format (native byte order, as the render thread converts to). */
enum noti_pw_format { NOTI_PW_FLOAT32 = 0, NOTI_PW_S32 = 1, NOTI_PW_S16 = 2 };

typedef struct {
    const char *remote;     /* NULL: libpipewire's default (PIPEWIRE_REMOTE, else pipewire-0) */
    const char *target;     /* a sink's node.name; NULL: where the session manager sends it */
    unsigned int rate;      /* frames per second, or 0: the graph's clock rate, as the server says */
    unsigned int channels;  /* 1 to NOTI_PW_MAX_CHANNELS */
    /* Each channel's speaker by ALSA's name ("FL", "LFE", ...), `channels` of them; NULL: WAVE's
     * order for the count (MONO alone; else FL FR FC LFE RL RR FLC FRC RC SL SR TC TFL TFC TFR
     * TRL TRC TRR, then channels with no speaker), as libpulse's WAVEEX map. */
    const char *const *positions;
    int format;             /* enum noti_pw_format */
    /* In microseconds, not frames: with rate 0 the rate is known only once connected. */
    unsigned int buffer_us;  /* what the ring between the render thread and the server holds */
    unsigned int period_us;  /* the graph cycle asked for (node.latency), and the writes' unit */
    /* The stream's properties as key, value, key, value, ..., NULL (at most 32 pairs): media.role,
     * application.id, node.name, media.name, ... node.latency and target.object are added here. */
    const char *const *properties;
} noti_pw_request;

typedef struct {
    unsigned int rate;           /* the rate asked for, or the graph's */
    unsigned int buffer_frames;  /* the ring, in frames at `rate` */
    unsigned int period_frames;
    /* The speaker of each channel, by ALSA's name, NULL for a channel with none. */
    const char *speakers[NOTI_PW_MAX_CHANNELS];
    char server_version[32];     /* the server's, as its core says ("0.3.65") */
} noti_pw_agreed;

/* Loads libpipewire-0.3.so.0 once (thread-safe). NULL when it is loaded, else a one-line reason. */
const char *noti_pw_load(void);

/* Whether a PipeWire server's socket is there, found as libpipewire finds it (PIPEWIRE_REMOTE,
 * else `remote`, else pipewire-0; in PIPEWIRE_RUNTIME_DIR, else XDG_RUNTIME_DIR, then
 * /run/pipewire). Connects to nothing and loads nothing: cheap enough to choose a backend by. */
int noti_pw_server_socket_exists(const char *remote);

/* The path of that socket, or where it was looked for first when it is not there: for messages. */
void noti_pw_server_socket_path(const char *remote, char *path, size_t path_size);

typedef struct {
    char version[32];         /* "0.3.65" */
    char name[64];            /* its core's name, the socket's ("pipewire-0") */
    unsigned int clock_rate;  /* the graph's rate now (its settings' forced rate, else its rate) */
} noti_pw_server;

/* Connects to the server (blocking; at most `timeout_ms`) and tells its version and clock rate,
 * and each of its sinks (node.name, node.description or ""), to `sink` if it is not NULL.
 * Returns 0, or a negative errno with the reason in `error`. */
int noti_pw_survey(const char *remote, int timeout_ms, noti_pw_server *server,
                   void (*sink)(void *user, const char *name, const char *description), void *user,
                   char *error, size_t error_size);

/* Connects and opens a playback stream (blocking; at most `timeout_ms`): returns once the
 * server has the stream, which plays once the session manager has linked it. It runs in the
 * graph from here (so it is linked while the first sound is decoded) until a drain, then costs
 * the graph nothing until the next write. Returns the
 * stream, or NULL with a negative errno in *code and a reason in `error`: -ENOENT libpipewire is
 * missing, -EHOSTDOWN or -ECONNREFUSED no server, -ETIMEDOUT, -EINVAL a request out of range,
 * -ENOTCONN the server refused the stream, -ENODEV no sink is `target`. */
noti_pw *noti_pw_open(const noti_pw_request *request, noti_pw_agreed *agreed, int timeout_ms,
                      char *error, size_t error_size, int *code);

/* Disconnects and frees the stream: once, after the last of the calls below. */
void noti_pw_close(noti_pw *stream);

/* The render thread's calls, with PCMStreamCalls' meanings; none allocates or takes a lock. A
 * write returns the frames written, -EAGAIN when interrupted, or, once the server went away or
 * dropped the stream, -ECONNRESET or -ENOTCONN at once, as does every later write (never -EPIPE,
 * PCMStreamCalls.underrun: the server fills underruns itself). A drain returns once the cycle that plays the last frames is over; a drop discards
 * what the ring holds, until noti_pw_prepare. */
long noti_pw_write(noti_pw *stream, const void *frames, long count);
void noti_pw_wait_for_room(noti_pw *stream, int milliseconds);
void noti_pw_prepare(noti_pw *stream);
void noti_pw_drain(noti_pw *stream);
void noti_pw_drop(noti_pw *stream);

/* Replaces what the ring holds (what the server has not been given) with its first
 * `fade_frames` faded to silence, and drops the rest (the data thread does it at its next
 * cycle; writes wait until then). Returns the frames of the fade, or -1 when the ring holds too
 * little beyond the cycle the data thread may be taking (then what it holds plays out and the
 * caller's own fade follows it seamlessly) or the stream failed. */
long noti_pw_take_back(noti_pw *stream, long fade_frames);

/* Ends a wait for room under way (noti_pw_wait_for_room, a write's), or the next one, early:
 * a stop, which the render thread is to see now. With `closing`, every wait from now on ends at
 * once, a drain too. Thread-safe; never blocks; the stream must be open. */
void noti_pw_interrupt(noti_pw *stream, int closing);

/* 0 while the stream plays, else the negative errno it was lost with (the server went away, the
 * stream was destroyed): an idle stream is known lost before a sound is given to it. Any thread. */
int noti_pw_lost(noti_pw *stream);

#endif
