#define _GNU_SOURCE
#include "alsa_support.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>

static _Thread_local char last_diagnostic[256];
static _Thread_local char taken[256];
static _Thread_local unsigned capture_depth;
static _Thread_local snd_local_error_handler_t outer_handler;

static void capture(const char *file, int line, const char *function, int err, const char *format, va_list arguments) {
    (void)file; (void)line; (void)function; (void)err;
    vsnprintf(last_diagnostic, sizeof last_diagnostic, format, arguments);
}

void noti_alsa_capture_begin(void) {
    if (capture_depth++ > 0) return;
    last_diagnostic[0] = '\0';
    outer_handler = snd_lib_error_set_local(capture);
}

void noti_alsa_capture_end(void) {
    if (capture_depth == 0 || --capture_depth > 0) return;
    snd_lib_error_set_local(outer_handler);
    outer_handler = NULL;
}

const char *noti_alsa_take_diagnostic(void) {
    snprintf(taken, sizeof taken, "%s", last_diagnostic);
    last_diagnostic[0] = '\0';
    return taken;
}

int noti_alsa_channel_map(snd_pcm_t *pcm, unsigned int *positions, unsigned int capacity) {
    snd_pcm_chmap_t *map = snd_pcm_get_chmap(pcm);
    if (map == NULL) return 0;  // no map (the plugin or driver keeps none), or none for this count
    unsigned int count = map->channels;
    for (unsigned int i = 0; i < count && i < capacity; i++) positions[i] = map->pos[i];
    free(map);
    return (int)count;
}

int noti_alsa_server_plugin(snd_pcm_t *pcm) {
    if (snd_pcm_type(pcm) != SND_PCM_TYPE_IOPLUG) return NOTI_ALSA_NO_SERVER_PLUGIN;
    snd_output_t *output = NULL;
    if (snd_output_buffer_open(&output) < 0) return NOTI_ALSA_NO_SERVER_PLUGIN;
    int found = NOTI_ALSA_NO_SERVER_PLUGIN;
    if (snd_pcm_dump(pcm, output) >= 0) {
        char *text = NULL;
        size_t length = snd_output_buffer_string(output, &text);
        // The plugin's name is the dump's first line: alsa-plugins' pulse/pcm_pulse.c sets the
        // first; pipewire-alsa's pcm_pipewire.c names itself "PipeWire …".
        static const char pulse[] = "ALSA <-> PulseAudio PCM I/O Plugin\n";
        const char *line_end = text != NULL ? memchr(text, '\n', length) : NULL;
        if (text != NULL && length >= sizeof pulse - 1 && strncmp(text, pulse, sizeof pulse - 1) == 0) {
            found = NOTI_ALSA_PULSE_PLUGIN;
        } else if (line_end != NULL && memmem(text, (size_t)(line_end - text), "PipeWire", 8) != NULL) {
            found = NOTI_ALSA_PIPEWIRE_PLUGIN;
        }
    }
    snd_output_close(output);
    return found;
}

/* The compound definition `name` resolves to in `config` (following a few string aliases), or NULL. */
static snd_config_t *resolved_definition(snd_config_t *config, const char *name) {
    snd_config_t *pcms = NULL;
    if (snd_config_search(config, "pcm", &pcms) < 0) return NULL;
    const char *current = name;
    for (int step = 0; step < 4; step++) {
        snd_config_t *definition = NULL;
        if (snd_config_search(pcms, current, &definition) < 0) return NULL;
        if (snd_config_get_type(definition) == SND_CONFIG_TYPE_COMPOUND) return definition;
        if (snd_config_get_type(definition) != SND_CONFIG_TYPE_STRING || snd_config_get_string(definition, &current) < 0) return NULL;
    }
    return NULL;
}

static int is_pipewire_definition(snd_config_t *definition) {
    snd_config_t *type = NULL;
    const char *value = NULL;
    return definition && snd_config_search(definition, "type", &type) >= 0 && snd_config_get_string(type, &value) >= 0
        && strcmp(value, "pipewire") == 0;
}

int noti_alsa_open_playback(snd_pcm_t **pcm, const char *name, int mode, const char *role) {
    snd_config_t *top = NULL;
    if (!role || snd_config_update_ref(&top) < 0) return snd_pcm_open(pcm, name, SND_PCM_STREAM_PLAYBACK, mode);
    snd_config_t *local = NULL;
    if (!is_pipewire_definition(resolved_definition(top, name)) || snd_config_copy(&local, top) < 0) {
        snd_config_unref(top);
        return snd_pcm_open(pcm, name, SND_PCM_STREAM_PLAYBACK, mode);
    }
    snd_config_unref(top);
    /* pipewire-alsa's own `pcm.pipewire` takes its role from defaults.pipewire.role; a definition of
     * its own (Debian's `pcm.!default { type pipewire … }`) from its `role` field. */
    snd_config_t *found = NULL;
    if (snd_config_search(local, "defaults.pipewire.role", &found) >= 0) snd_config_set_string(found, role);
    snd_config_t *definition = resolved_definition(local, name);
    if (definition && snd_config_search(definition, "role", &found) < 0) {
        snd_config_t *field = NULL;
        if (snd_config_imake_string(&field, "role", role) >= 0 && snd_config_add(definition, field) < 0) snd_config_delete(field);
    }
    int result = snd_pcm_open_lconf(pcm, name, SND_PCM_STREAM_PLAYBACK, mode, local);
    snd_config_delete(local);
    return result;
}

static int64_t monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int noti_alsa_interrupt_fd(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd >= 0 ? fd : -errno;
}

void noti_alsa_interrupt(int fd) {
    /* Fails only when the counter would overflow: it is readable then too. */
    (void)eventfd_write(fd, 1);
}

int noti_alsa_wait(snd_pcm_t *pcm, int interrupt_fd, unsigned long avail_min, int milliseconds) {
    /* On the stack of the real-time thread, which allocates nothing: more than any PCM asks
     * for (a card's one, a plugin's one or two, a multi PCM's few), checked at open. */
    struct pollfd fds[NOTI_ALSA_MOST_POLL_DESCRIPTORS + 1];
    int count = snd_pcm_poll_descriptors_count(pcm);
    if (count <= 0) return count < 0 ? count : -EIO;
    if (count > NOTI_ALSA_MOST_POLL_DESCRIPTORS) return -E2BIG;
    /* Asked for on every wait: a plugin arms its descriptor here (pipewire-alsa signals its
     * eventfd when there is room already). */
    count = snd_pcm_poll_descriptors(pcm, fds, (unsigned int)count);
    if (count <= 0) return count < 0 ? count : -EIO;
    /* Room already, or an error for the next call to report: no wait, as snd_pcm_wait. A card's
     * descriptor would say so at once, but a plugin's may only tick (a timer, once a period;
     * none before the start): waiting for it would let a stream holding one period run dry. */
    snd_pcm_sframes_t room = snd_pcm_avail_update(pcm);
    if (room < 0 || (snd_pcm_uframes_t)room >= avail_min) return NOTI_ALSA_READY;
    fds[count] = (struct pollfd){ .fd = interrupt_fd, .events = POLLIN };
    int64_t deadline = monotonic_ms() + milliseconds;
    for (;;) {
        int64_t left = deadline - monotonic_ms();
        int ready = poll(fds, (nfds_t)count + 1, left > 0 ? (int)left : 0);
        if (ready < 0 && errno != EINTR) return -errno;
        if (fds[count].revents & POLLIN) return NOTI_ALSA_INTERRUPTED;
        if (ready > 0) {
            unsigned short revents = 0;
            int error = snd_pcm_poll_descriptors_revents(pcm, fds, (unsigned int)count, &revents);
            if (error < 0) return error;
            if (revents & (POLLOUT | POLLERR | POLLNVAL)) return NOTI_ALSA_READY;
        }
        /* Woken for nothing the PCM counts (a plugin's own tick), or a signal: wait on, but
         * never past the deadline. */
        if (monotonic_ms() >= deadline) return NOTI_ALSA_TIMED_OUT;
    }
}

void noti_alsa_play_out(snd_pcm_t *pcm, int interrupt_fd, unsigned int rate, int step_ms, int give_up_ms) {
    snd_pcm_uframes_t buffer = 0, period = 0;
    if (snd_pcm_get_params(pcm, &buffer, &period) < 0) return;
    if (snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED) {
        snd_pcm_sframes_t avail = snd_pcm_avail_update(pcm);
        /* Nothing written: nothing to play. */
        if (avail < 0 || (snd_pcm_uframes_t)avail >= buffer) return;
        if (snd_pcm_start(pcm) < 0) return;
    }
    snd_pcm_sframes_t least = -1;
    int64_t shrunk_at = monotonic_ms();
    struct pollfd interrupt = { .fd = interrupt_fd, .events = POLLIN };
    /* Ran dry (XRUN: everything written was played) or stopped: played out. */
    while (snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING) {
        snd_pcm_sframes_t avail = 0, delay = 0;
        if (snd_pcm_avail_delay(pcm, &avail, &delay) < 0) break;
        /* Frames the device has not taken (avail short of the buffer) are not played, whatever the
         * delay says: the pulse plugin's is libpulse's interpolation, which reads 0 while the
         * server has not yet taken a short sound, and the drop would throw the sound away. Where
         * the delay is 0, such frames are waited for one step only: the pulse plugin never
         * reports its last frame taken, and runs dry (XRUN) once the server has played them. */
        snd_pcm_sframes_t held = (snd_pcm_sframes_t)buffer - avail;
        snd_pcm_sframes_t left = delay > held ? delay : held;
        if (left <= 0) break;
        int64_t now = monotonic_ms();
        if (least < 0 || left < least) {
            least = left;
            shrunk_at = now;
        } else if (now - shrunk_at >= (delay <= 0 ? step_ms : give_up_ms)) {
            break;
        }
        int64_t wait = (int64_t)left * 1000 / (rate ? rate : 48000) + 1;
        if (wait > step_ms) wait = step_ms;
        if (poll(&interrupt, 1, (int)wait) > 0) break;
    }
    snd_pcm_drop(pcm);
}
