#define _GNU_SOURCE
#include "alsa_support.h"

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
