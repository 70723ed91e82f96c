#include "alsa_support.h"

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
