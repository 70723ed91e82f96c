#include "alsa_support.h"

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

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
