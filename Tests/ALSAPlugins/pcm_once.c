/*
 * pcm_once: an ALSA playback device that behaves like a sound card's `hw:` device, for tests.
 *
 *   cc -shared -fPIC -Wall -Wextra -Werror -o DIR/libasound_module_pcm_once.so pcm_once.c -lasound
 *
 * and, in the file ALSA_CONFIG_PATH names:
 *
 *   pcm_type.once { lib "DIR/libasound_module_pcm_once.so" }
 *   pcm.!default {
 *       type once
 *       rate 48000             # the one rate it plays
 *       file "CAPTURE"         # every frame written to it is appended here, raw
 *       lock "LOCK"            # a file: the one open holds flock(LOCK_EX) on it
 *       log "LOG"              # one line per event (below), appended
 *       freeze "FROZEN"        # optional: a start while this file exists is frozen (below)
 *   }
 *
 * Like `hw:`:
 * - One open at a time, across processes: an open holds an exclusive flock on `lock` until it
 *   is closed (or its process ends). Another open meanwhile fails with -EBUSY ("Device or
 *   resource busy") when it asks not to block (SND_PCM_NONBLOCK, as `aplay -N` and noti-play
 *   do), and waits for the device to be free otherwise, as the kernel's PCM open does.
 * - One rate (`rate`), two channels, FLOAT_LE or S16_LE, interleaved read/write access.
 * - A clock: once started, it plays `rate` frames per second of CLOCK_MONOTONIC. Its poll
 *   descriptor (a timerfd) wakes the writer once per period; a write waits for room as a card's
 *   does. When the clock catches up with what was written, a running stream underruns (XRUN,
 *   -EPIPE) and a draining one has drained.
 *
 * Frozen: a stream started while `freeze` names a file that exists plays nothing until it is
 * prepared again (or closed): its clock stands still and its poll descriptor never wakes, as a
 * sound server's ALSA plugin whose server was stopped (SIGSTOP), or that lost its wake-up. Writes
 * fill the buffer and then find no room, for ever.
 *
 * Every frame an application writes is appended to `file` when it is written (as ALSA's `file`
 * plugin records it), in the negotiated format, so the file is the exact stream the
 * application played, whatever the clock did.
 *
 * `log` gets one line per event, each written with one write(2) (O_APPEND):
 *   open pid=P                the device was opened by process P
 *   refused pid=P             P's open was refused (-EBUSY): another open holds the device
 *   hw_params pid=P rate=R format=F channels=C period=N buffer=M
 *   xrun pid=P frames=N       P's running stream underran, N frames after it was prepared
 *   frozen pid=P frames=N     P's stream started frozen, holding N frames
 *   close pid=P frames=N      P closed the device, having written N frames in all
 */
#define _GNU_SOURCE
/* A shared module: ALSA's headers then name the entry point's version symbol as dlsym finds it
 * (without PIC they refer to the static build's symbol table, snd_dlsym_start). */
#ifndef PIC
#define PIC
#endif
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    snd_pcm_ioplug_t io;
    int lock_fd, capture_fd, log_fd, timer_fd;
    unsigned int rate;
    char *freeze;                 /* the `freeze` file's path, or NULL */
    /* The stream's state. ALSA calls some callbacks without its own lock (poll_revents,
     * prepare, sw_params), so every field below is guarded by `mutex`. */
    pthread_mutex_t mutex;
    int running;                  /* started, not yet stopped or prepared again */
    int frozen;                   /* started while the `freeze` file existed: plays nothing */
    struct timespec started;      /* when the clock started */
    uint64_t written;             /* frames written since prepare */
    uint64_t played;              /* frames played since prepare, as of the last look */
    uint64_t total;               /* frames written since open */
    snd_pcm_uframes_t avail_min;  /* the application's wake-up size */
} once_t;

/* Appends one line to the log (one write: lines of several processes never interleave). */
__attribute__((format(printf, 2, 3)))
static void log_line(once_t *once, const char *format, ...) {
    char line[256];
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(line, sizeof line - 1, format, arguments);
    va_end(arguments);
    if (length < 0) {
        SNDERR("once: cannot format a log line");
        return;
    }
    if ((size_t)length > sizeof line - 2) length = (int)sizeof line - 2;
    line[length++] = '\n';
    ssize_t wrote = write(once->log_fd, line, (size_t)length);
    if (wrote != length) SNDERR("once: cannot write the log: %s", wrote < 0 ? strerror(errno) : "short write");
}

static uint64_t nanoseconds_since(const struct timespec *start) {
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) return 0;
    return (uint64_t)(now.tv_sec - start->tv_sec) * 1000000000u + (uint64_t)now.tv_nsec - (uint64_t)start->tv_nsec;
}

/* Frames the clock has played since it started. Call with `mutex` held, while running. */
static uint64_t clock_frames(once_t *once) {
    if (once->frozen) return 0;
    return nanoseconds_since(&once->started) * once->rate / 1000000000u;
}

/* Arms the period timer (`period_ns` > 0: first tick one period after now), or disarms it (0). */
static int set_timer(once_t *once, uint64_t period_ns) {
    struct itimerspec spec = {
        .it_interval = { (time_t)(period_ns / 1000000000u), (long)(period_ns % 1000000000u) },
        .it_value = { (time_t)(period_ns / 1000000000u), (long)(period_ns % 1000000000u) },
    };
    if (timerfd_settime(once->timer_fd, 0, &spec, NULL) != 0) {
        int error = errno;
        SNDERR("once: timerfd_settime: %s", strerror(error));
        return -error;
    }
    return 0;
}

static int once_start(snd_pcm_ioplug_t *io) {
    once_t *once = io->private_data;
    /* One period's ticks, rounded up: at tick k the clock has played at least k periods. */
    uint64_t period_ns = ((uint64_t)io->period_size * 1000000000u + once->rate - 1) / once->rate;
    pthread_mutex_lock(&once->mutex);
    once->frozen = once->freeze != NULL && access(once->freeze, F_OK) == 0;
    int error = clock_gettime(CLOCK_MONOTONIC, &once->started) == 0 ? 0 : -errno;
    /* Frozen: the timer is never armed, so nothing ever wakes a writer. */
    if (error == 0 && !once->frozen) error = set_timer(once, period_ns);
    if (error == 0) {
        once->running = 1;
        once->played = 0;
        if (once->frozen) log_line(once, "frozen pid=%d frames=%llu", (int)getpid(), (unsigned long long)once->written);
    }
    pthread_mutex_unlock(&once->mutex);
    return error;
}

static int once_stop(snd_pcm_ioplug_t *io) {
    once_t *once = io->private_data;
    pthread_mutex_lock(&once->mutex);
    if (once->running) {
        uint64_t played = clock_frames(once);
        once->played = played < once->written ? played : once->written;
        once->running = 0;
    }
    int error = set_timer(once, 0);
    pthread_mutex_unlock(&once->mutex);
    return error;
}

/*
 * The hardware pointer: frames played, within the buffer. A running stream whose clock has
 * caught up with what was written has underrun; a draining one has drained (ioplug then
 * stops it).
 */
static snd_pcm_sframes_t once_pointer(snd_pcm_ioplug_t *io) {
    once_t *once = io->private_data;
    pthread_mutex_lock(&once->mutex);
    snd_pcm_sframes_t position;
    if (once->running) {
        uint64_t played = clock_frames(once);
        if (played >= once->written) {
            once->played = once->written;
            if (io->state == SND_PCM_STATE_RUNNING)
                log_line(once, "xrun pid=%d frames=%llu", (int)getpid(), (unsigned long long)once->written);
            pthread_mutex_unlock(&once->mutex);
            return -EPIPE;
        }
        once->played = played;
    }
    position = (snd_pcm_sframes_t)(once->played % io->buffer_size);
    pthread_mutex_unlock(&once->mutex);
    return position;
}

/* Appends the frames to the capture file: interleaved, as the application wrote them. */
static snd_pcm_sframes_t once_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                       snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
    once_t *once = io->private_data;
    unsigned int frame_bits = io->channels * (unsigned int)snd_pcm_format_physical_width(io->format);
    for (unsigned int channel = 0; channel < io->channels; channel++) {
        if (areas[channel].addr != areas[0].addr || areas[channel].step != frame_bits
            || areas[channel].first != areas[0].first + channel * frame_bits / io->channels) {
            SNDERR("once: channel %u is not interleaved", channel);
            return -EINVAL;
        }
    }
    const char *bytes = (const char *)areas[0].addr + (areas[0].first + offset * frame_bits) / 8;
    size_t length = size * frame_bits / 8;
    while (length > 0) {
        ssize_t wrote = write(once->capture_fd, bytes, length);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            SNDERR("once: cannot write the capture: %s", wrote < 0 ? strerror(errno) : "nothing written");
            return -EIO;
        }
        bytes += wrote;
        length -= (size_t)wrote;
    }
    pthread_mutex_lock(&once->mutex);
    once->written += size;
    once->total += size;
    pthread_mutex_unlock(&once->mutex);
    return (snd_pcm_sframes_t)size;
}

static int once_prepare(snd_pcm_ioplug_t *io) {
    once_t *once = io->private_data;
    pthread_mutex_lock(&once->mutex);
    once->running = 0;
    once->frozen = 0;
    once->written = 0;
    once->played = 0;
    int error = set_timer(once, 0);
    pthread_mutex_unlock(&once->mutex);
    return error;
}

static int once_hw_params(snd_pcm_ioplug_t *io, snd_pcm_hw_params_t *params) {
    (void)params;
    once_t *once = io->private_data;
    pthread_mutex_lock(&once->mutex);
    once->avail_min = io->period_size;
    pthread_mutex_unlock(&once->mutex);
    log_line(once, "hw_params pid=%d rate=%u format=%s channels=%u period=%lu buffer=%lu", (int)getpid(), io->rate,
             snd_pcm_format_name(io->format), io->channels, (unsigned long)io->period_size, (unsigned long)io->buffer_size);
    return 0;
}

static int once_sw_params(snd_pcm_ioplug_t *io, snd_pcm_sw_params_t *params) {
    once_t *once = io->private_data;
    snd_pcm_uframes_t avail_min;
    int error = snd_pcm_sw_params_get_avail_min(params, &avail_min);
    if (error < 0) return error;
    pthread_mutex_lock(&once->mutex);
    once->avail_min = avail_min;
    pthread_mutex_unlock(&once->mutex);
    return 0;
}

/*
 * ALSA polls the timer and asks here what it meant: room for the application (avail_min
 * frames), or the end of what was written (an underrun, or a drain's end, which the pointer
 * then reports); otherwise nothing, and ALSA polls again until the next tick.
 */
static int once_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfds, unsigned int nfds, unsigned short *revents) {
    once_t *once = io->private_data;
    if (nfds != 1 || pfds[0].fd != once->timer_fd) return -EINVAL;
    *revents = 0;
    if (pfds[0].revents & (POLLERR | POLLNVAL)) {
        *revents = POLLERR;
        return 0;
    }
    if (!(pfds[0].revents & POLLIN)) return 0;
    uint64_t ticks;
    if (read(once->timer_fd, &ticks, sizeof ticks) < 0 && errno != EAGAIN) return -errno;
    pthread_mutex_lock(&once->mutex);
    if (once->running) {
        uint64_t played = clock_frames(once);
        if (played >= once->written || io->buffer_size - (once->written - played) >= once->avail_min) *revents = POLLOUT;
    }
    pthread_mutex_unlock(&once->mutex);
    return 0;
}

static int once_close(snd_pcm_ioplug_t *io) {
    once_t *once = io->private_data;
    int error = 0;
    log_line(once, "close pid=%d frames=%llu", (int)getpid(), (unsigned long long)once->total);
    if (close(once->capture_fd) != 0) error = -errno;
    if (close(once->timer_fd) != 0 && error == 0) error = -errno;
    if (close(once->log_fd) != 0 && error == 0) error = -errno;
    /* Last: the next open finds the capture and the log complete. */
    if (close(once->lock_fd) != 0 && error == 0) error = -errno;
    pthread_mutex_destroy(&once->mutex);
    free(once->freeze);
    free(once);
    return error;
}

static const snd_pcm_ioplug_callback_t once_callbacks = {
    .start = once_start,
    .stop = once_stop,
    .pointer = once_pointer,
    .transfer = once_transfer,
    .close = once_close,
    .hw_params = once_hw_params,
    .sw_params = once_sw_params,
    .prepare = once_prepare,
    .poll_revents = once_poll_revents,
};

/* Opens `path` for the device; -errno (and an ALSA error message) on failure. */
static int open_file(const char *what, const char *path, int flags) {
    int fd = open(path, flags | O_CLOEXEC, 0600);
    if (fd < 0) {
        int error = errno;
        SNDERR("once: cannot open the %s %s: %s", what, path, strerror(error));
        return -error;
    }
    return fd;
}

/* Sets the one configuration the device plays. */
static int constrain(once_t *once) {
    static const unsigned int access[] = { SND_PCM_ACCESS_RW_INTERLEAVED };
    static const unsigned int formats[] = { SND_PCM_FORMAT_FLOAT_LE, SND_PCM_FORMAT_S16_LE };
    int error = snd_pcm_ioplug_set_param_list(&once->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access);
    if (error >= 0) error = snd_pcm_ioplug_set_param_list(&once->io, SND_PCM_IOPLUG_HW_FORMAT, 2, formats);
    if (error >= 0) error = snd_pcm_ioplug_set_param_minmax(&once->io, SND_PCM_IOPLUG_HW_CHANNELS, 2, 2);
    if (error >= 0) error = snd_pcm_ioplug_set_param_minmax(&once->io, SND_PCM_IOPLUG_HW_RATE, once->rate, once->rate);
    if (error >= 0) error = snd_pcm_ioplug_set_param_minmax(&once->io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 64, 1 << 20);
    if (error >= 0) error = snd_pcm_ioplug_set_param_minmax(&once->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 1024);
    return error;
}

SND_PCM_PLUGIN_DEFINE_FUNC(once) {
    (void)root;
    const char *capture = NULL, *lock = NULL, *log = NULL, *freeze = NULL;
    long rate = 0;
    snd_config_iterator_t i, next;
    snd_config_for_each(i, next, conf) {
        snd_config_t *entry = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(entry, &id) < 0) continue;
        if (strcmp(id, "comment") == 0 || strcmp(id, "type") == 0 || strcmp(id, "hint") == 0) continue;
        int error;
        if (strcmp(id, "file") == 0) error = snd_config_get_string(entry, &capture);
        else if (strcmp(id, "lock") == 0) error = snd_config_get_string(entry, &lock);
        else if (strcmp(id, "log") == 0) error = snd_config_get_string(entry, &log);
        else if (strcmp(id, "freeze") == 0) error = snd_config_get_string(entry, &freeze);
        else if (strcmp(id, "rate") == 0) error = snd_config_get_integer(entry, &rate);
        else {
            SNDERR("once: unknown field %s", id);
            return -EINVAL;
        }
        if (error < 0) {
            SNDERR("once: invalid %s", id);
            return -EINVAL;
        }
    }
    if (!capture || !lock || !log || rate < 1000 || rate > 768000) {
        SNDERR("once: needs file, lock, log and a rate from 1000 to 768000 Hz");
        return -EINVAL;
    }
    if (stream != SND_PCM_STREAM_PLAYBACK) {
        SNDERR("once: plays only");
        return -EINVAL;
    }

    once_t *once = calloc(1, sizeof *once);
    if (!once) return -ENOMEM;
    once->rate = (unsigned int)rate;
    if (freeze && !(once->freeze = strdup(freeze))) {
        free(once);
        return -ENOMEM;
    }
    once->lock_fd = once->capture_fd = once->log_fd = once->timer_fd = -1;
    int error = pthread_mutex_init(&once->mutex, NULL);
    if (error != 0) {
        free(once->freeze);
        free(once);
        return -error;
    }
    error = once->log_fd = open_file("log", log, O_WRONLY | O_CREAT | O_APPEND);
    if (error >= 0) error = once->lock_fd = open_file("lock", lock, O_RDWR | O_CREAT);
    if (error >= 0) {
        /* The one open: the flock belongs to this open file, released when it is closed. */
        int operation = LOCK_EX | ((mode & SND_PCM_NONBLOCK) ? LOCK_NB : 0);
        while ((error = flock(once->lock_fd, operation)) != 0 && errno == EINTR) {}
        if (error != 0) {
            error = errno == EWOULDBLOCK ? -EBUSY : -errno;
            if (error == -EBUSY) log_line(once, "refused pid=%d", (int)getpid());
            else SNDERR("once: cannot lock %s: %s", lock, strerror(-error));
        }
    }
    if (error >= 0) error = once->capture_fd = open_file("capture", capture, O_WRONLY | O_CREAT | O_APPEND);
    if (error >= 0) {
        error = once->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (error < 0) {
            error = -errno;
            SNDERR("once: timerfd_create: %s", strerror(-error));
        }
    }
    if (error >= 0) {
        once->io.version = SND_PCM_IOPLUG_VERSION;
        once->io.name = "noti-play test device: one open, one rate";
        once->io.callback = &once_callbacks;
        once->io.private_data = once;
        once->io.poll_fd = once->timer_fd;
        once->io.poll_events = POLLIN;
        once->io.mmap_rw = 0;
        error = snd_pcm_ioplug_create(&once->io, name, stream, mode);
        if (error >= 0) {
            log_line(once, "open pid=%d", (int)getpid());
            error = constrain(once);
            if (error < 0) {
                snd_pcm_ioplug_delete(&once->io);  /* calls once_close: logged, closed, freed */
                return error;
            }
            *pcmp = once->io.pcm;
            return 0;
        }
    }
    int fds[] = { once->timer_fd, once->capture_fd, once->log_fd, once->lock_fd };
    for (size_t f = 0; f < sizeof fds / sizeof fds[0]; f++)
        if (fds[f] >= 0 && close(fds[f]) != 0) SNDERR("once: close: %s", strerror(errno));
    pthread_mutex_destroy(&once->mutex);
    free(once->freeze);
    free(once);
    return error;
}

SND_PCM_PLUGIN_SYMBOL(once);
