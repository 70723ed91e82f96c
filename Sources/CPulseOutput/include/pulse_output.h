#ifndef NOTI_PULSE_OUTPUT_H
#define NOTI_PULSE_OUTPUT_H

#include <stddef.h>

/*
 * A playback stream on a PulseAudio server (or PipeWire's PulseAudio service) through libpulse,
 * loaded the first time a stream opens (not linked: a process that plays through ALSA never
 * loads it). Used where ALSA's configuration sends the device to its pulse plugin: talking to
 * the server directly lets the stream hold half a second (few wake-ups) and still end within a
 * fade when stopped, because the samples queued on the server can be replaced
 * (noti_pulse_take_back), which the plugin cannot do.
 *
 * One thread at a time: the stream is opened on one thread, then played by one thread (the
 * render thread), then closed. The loop that talks to the server runs inside these calls, on
 * the calling thread: libpulse starts no thread of its own. Only noti_pulse_interrupt may be
 * called from another thread, while the stream is open.
 */

typedef struct noti_pulse noti_pulse;

/* The highest rate a server plays (libpulse's PA_RATE_MAX). */
enum { NOTI_PULSE_MAX_RATE = 384000 };
/* The rate a request's frames are counted at when it asks for the server's own rate (rate 0). */
enum { NOTI_PULSE_REFERENCE_RATE = 48000 };
/* The most channels a stream has (libpulse's PA_CHANNELS_MAX). */
enum { NOTI_PULSE_MAX_CHANNELS = 32 };

/* The stream's sample format (native byte order, as the render thread converts to). */
enum noti_pulse_format { NOTI_PULSE_FLOAT32 = 0, NOTI_PULSE_S32 = 1, NOTI_PULSE_S16 = 2 };

typedef struct {
    const char *server;       /* NULL: libpulse's default (PULSE_SERVER, client.conf, ...) */
    const char *sink;         /* NULL: the server's default sink */
    unsigned int rate;        /* frames per second, 1 to the server's maximum; 0: the server's own rate */
    unsigned int channels;    /* 1 to NOTI_PULSE_MAX_CHANNELS, in WAVE's order for their count */
    int format;               /* enum noti_pulse_format */
    unsigned int buffer_frames;  /* the queue on the server (its target length) */
    unsigned int period_frames;  /* the least the server asks for at a time */
    /* The stream's properties (NULL: none): the desktop's role rules and volume apply by them.
     * A role the user set in PULSE_PROP_media.role wins over `role`. */
    const char *application_name, *application_id, *media_name, *role;
} noti_pulse_request;

typedef struct {
    unsigned int rate;           /* the stream's rate */
    unsigned int buffer_frames;  /* what the server agreed to: it may change both */
    unsigned int period_frames;
    /* The speaker of each channel, by ALSA's name for it ("FL", "LFE", ...): the stream's map. */
    const char *speakers[32];
    /* The server's version, as it tells it ("16.1"), for a log. */
    char server_version[64];
} noti_pulse_agreed;

/* Loads libpulse.so.0 once (thread-safe). NULL when it is loaded, else a one-line reason. */
const char *noti_pulse_load(void);

/* Connects to the server and opens a playback stream (blocking; at most `timeout_ms`). Returns
 * the stream, or NULL with a negative errno in *code and the server's words in `error`;
 * -EPROTONOSUPPORT when the server is not PulseAudio itself (PipeWire's PulseAudio service
 * cannot rewind, which a stop relies on). */
noti_pulse *noti_pulse_open(const noti_pulse_request *request, noti_pulse_agreed *agreed, int timeout_ms,
                            char *error, size_t error_size, int *code);

/* Disconnects and frees the stream: once, after the last of the calls below. */
void noti_pulse_close(noti_pulse *stream);

/* The render thread's calls, with PCMStreamCalls' meanings. */
long noti_pulse_write(noti_pulse *stream, const void *frames, long count);
void noti_pulse_wait_for_room(noti_pulse *stream, int milliseconds);
void noti_pulse_prepare(noti_pulse *stream);
void noti_pulse_drain(noti_pulse *stream);
void noti_pulse_drop(noti_pulse *stream);

/* Replaces what the server holds but has not played with `fade_frames` of it faded to silence,
 * from just after the position heard, and drops the rest. Returns the frames of sound still to
 * be heard (the fade), or -1 when nothing queued can be taken back (nothing left after the
 * position heard, no timing from the server yet, the stream failed). */
long noti_pulse_take_back(noti_pulse *stream, long fade_frames);

/* Ends a wait for room under way (noti_pulse_wait_for_room, a write's), or the next one, early:
 * a stop, which the render thread is to see now. With `closing`, every wait from now on ends at
 * once, a drain too. Thread-safe; the stream must be open. */
void noti_pulse_interrupt(noti_pulse *stream, int closing);

/* Calls `each` with every sink's name and description on the server (NULL: libpulse's default),
 * blocking at most `timeout_ms`. Returns 0, or a negative errno; -EPROTONOSUPPORT when the
 * server is not PulseAudio itself. */
int noti_pulse_list_sinks(const char *server, int timeout_ms, void (*each)(const char *name, const char *description, void *user),
                          void *user);

#endif
