/*
 * noti-play: notification sounds for Linux daemons, as Apple's UNNotificationSound plays them.
 *
 * Link with: gcc daemon.c $(pkg-config --cflags --libs noti-play)
 *
 * A context plays sounds on one ALSA device. Every function may be called from any thread.
 * A play call returns a sound id (> 0) at once; the sound plays in the background, and the
 * callback, if given, is called exactly once, from a noti-play thread, when it ends. A play
 * call that fails returns 0 and, if `error` is not NULL, stores a one-line message there that
 * the caller frees with noti_play_free_string.
 *
 * The library leaves process-wide state alone: ALSA's error handler (snd_lib_error_set_handler)
 * stays the one the program set. With none set, ALSA's diagnostics from noti-play's calls are not
 * printed but folded into its error messages; with one set, that handler receives them.
 * It needs no Swift toolchain at run time: the Swift runtime is inside.
 */
#ifndef NOTI_PLAY_H
#define NOTI_PLAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this header, the one place it is written: scripts/install.sh names the library
 * and fills the pkg-config file from these lines. The major is the SONAME's (libnoti-play.so.0)
 * and changes only when the ABI breaks.
 */
#define NOTI_PLAY_VERSION_MAJOR 0
#define NOTI_PLAY_VERSION_MINOR 1
#define NOTI_PLAY_VERSION_PATCH 0

typedef struct noti_play noti_play;

/* The version of the library in use, "MAJOR.MINOR.PATCH": may be newer than the header's. */
const char *noti_play_version(void);

/* How a sound ended. */
typedef enum {
    NOTI_PLAY_FINISHED = 0,  /* played to its end */
    NOTI_PLAY_CANCELLED = 1, /* cancelled, or faded out for a critical sound */
    NOTI_PLAY_SILENCED = 2,  /* not played on purpose: quiet hours, do not disturb, suppress-sound,
                                a theme that switches the sound off; detail says which */
    NOTI_PLAY_FAILED = 3     /* detail says why */
} noti_play_result;

/* Flags for the play calls. */
enum {
    NOTI_PLAY_CRITICAL = 1u << 0, /* plays at exactly `volume`, through quiet hours; fades others */
    NOTI_PLAY_RINGTONE = 1u << 1, /* loops until noti_play_cancel */
    NOTI_PLAY_SUPPRESS = 1u << 2  /* the notification's suppress-sound hint: play nothing */
};

/* Called once per sound id. `detail` is a one-line reason (or ""), valid during the call. */
typedef void (*noti_play_callback)(uint64_t id, noti_play_result result, const char *detail, void *user_data);

/*
 * A new context. `device`: an ALSA PCM name, or NULL for "default". A device name is ALSA
 * configuration (`file:"|cmd"` runs a command): trust it like a shell command, take it from the
 * user's settings, never from a notification. `app_folders`: the
 * embedding app's own sound folders, searched first for sound names (may be NULL when
 * `app_folder_count` is 0). The user's configuration (~/.config/noti-play/noti-play.conf)
 * supplies the notification volume, quiet hours, theme and default sounds.
 * Returns NULL only when out of memory.
 */
noti_play *noti_play_new(const char *device, const char *const *app_folders, size_t app_folder_count);
/* Stops every sound at once and frees the context. Pending callbacks report NOTI_PLAY_CANCELLED. */
void noti_play_free(noti_play *context);

/*
 * Plays a file by path (trusted callers only), a sound name from a notification (a file name,
 * looked up only in the allowed folders), a freedesktop sound-theme name (the sound-name hint,
 * such as "message-new-instant"), or the default sound for `flags` (notification, critical or
 * ringtone). `volume` is linear, 0.0 to 1.0: a critical sound's exact volume, otherwise a gain
 * on top of the user's notification volume.
 */
uint64_t noti_play_file(noti_play *context, const char *path, float volume, unsigned flags,
                        noti_play_callback callback, void *user_data, char **error);
uint64_t noti_play_name(noti_play *context, const char *name, float volume, unsigned flags,
                        noti_play_callback callback, void *user_data, char **error);
uint64_t noti_play_theme_sound(noti_play *context, const char *sound_name, float volume, unsigned flags,
                               noti_play_callback callback, void *user_data, char **error);
uint64_t noti_play_default(noti_play *context, float volume, unsigned flags,
                           noti_play_callback callback, void *user_data, char **error);

/* Fades a sound out (10 ms); its callback reports NOTI_PLAY_CANCELLED. Unknown ids are ignored. */
void noti_play_cancel(noti_play *context, uint64_t id);
/* Pauses and resumes a sound in place. */
void noti_play_pause(noti_play *context, uint64_t id);
void noti_play_resume(noti_play *context, uint64_t id);
/* quiet = 1 silences non-critical sounds, 0 lets them play, -1 follows the user's quiet hours. */
void noti_play_set_quiet(noti_play *context, int quiet);

void noti_play_free_string(char *string);

#ifdef __cplusplus
}
#endif

#endif
