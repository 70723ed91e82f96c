#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "noti_play_abi.h"

/* The size field, whatever the caller's alignment. */
static size_t caller_size(const void *caller) {
    size_t size;
    memcpy(&size, caller, sizeof size);
    return size;
}

/* Takes `field` from the caller's struct when its size covers the field whole. */
#define TAKE(field)                                                                                    \
    do {                                                                                               \
        if (size >= offsetof(__typeof__(*out), field) + sizeof out->field)                             \
            memcpy(&out->field, (const char *)caller + offsetof(__typeof__(*out), field), sizeof out->field); \
    } while (0)

int noti_abi_read_request(const void *caller, noti_play_request *out) {
    const noti_play_request defaults = NOTI_PLAY_REQUEST_INIT;
    *out = defaults;
    size_t size = caller_size(caller);
    if (size < sizeof out->size) return -1;
    TAKE(app_name);
    TAKE(desktop_entry);
    TAKE(sound_file);
    TAKE(sound_name);
    TAKE(category);
    TAKE(suppress_sound);
    TAKE(urgency);
    TAKE(volume);
    TAKE(flags);
    TAKE(notification_id);
    return 0;
}

int noti_abi_read_options(const void *caller, noti_play_options *out) {
    const noti_play_options defaults = NOTI_PLAY_OPTIONS_INIT;
    *out = defaults;
    size_t size = caller_size(caller);
    if (size < sizeof out->size) return -1;
    TAKE(device);
    TAKE(app_folders);
    TAKE(app_folder_count);
    TAKE(backend);
    TAKE(application_name);
    TAKE(application_id);
    return 0;
}

int noti_abi_read_settings(const void *caller, noti_play_settings *out) {
    const noti_play_settings defaults = NOTI_PLAY_SETTINGS_INIT;
    *out = defaults;
    size_t size = caller_size(caller);
    if (size < sizeof out->size) return -1;
    TAKE(notification_volume);
    TAKE(theme);
    TAKE(default_sound);
    TAKE(critical_sound);
    TAKE(ringtone_sound);
    TAKE(do_not_disturb);
    TAKE(rate_interval);
    TAKE(burst_limit);
    TAKE(ring_cap);
    TAKE(read_user_configuration);
    return 0;
}

const char *noti_abi_program_name(void) {
    return program_invocation_short_name;
}
