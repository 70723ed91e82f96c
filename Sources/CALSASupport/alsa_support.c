#include "alsa_support.h"

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_diagnostic[256];
static _Thread_local char taken[256];

static void capture(const char *file, int line, const char *function, int err, const char *format, ...) {
    (void)file; (void)line; (void)function; (void)err;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(last_diagnostic, sizeof last_diagnostic, format, arguments);
    va_end(arguments);
}

void noti_alsa_capture_diagnostics(void) {
    snd_lib_error_set_handler(capture);
}

const char *noti_alsa_take_diagnostic(void) {
    snprintf(taken, sizeof taken, "%s", last_diagnostic);
    last_diagnostic[0] = '\0';
    return taken;
}
