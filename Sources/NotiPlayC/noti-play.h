/*
 * noti-play: notification sounds for Linux daemons, as Apple's UNNotificationSound plays them.
 * MIT License; see the LICENSE file of the source, or /usr/share/doc/libnoti-play-dev/copyright.
 *
 * Link with: gcc daemon.c $(pkg-config --cflags --libs noti-play)
 *
 *     noti_play_options options = NOTI_PLAY_OPTIONS_INIT;  // or noti_play_new(NULL, NULL, 0)
 *     options.application_id = "org.example.Daemon";
 *     noti_play *player = noti_play_new_with_options(&options, NULL);
 *     noti_play_request request = NOTI_PLAY_REQUEST_INIT;
 *     request.desktop_entry = "org.example.Chat";    // the Notify call's hints, as they came
 *     request.category = "im.received";
 *     uint64_t id = noti_play_notify(player, &request, ended, my_data, NULL);
 *     ...
 *     noti_play_free(player);                         // no callback runs after this returns
 *
 * The threading contract, which the tests check:
 * - Every function may be called from any thread, and none blocks: a play call validates its
 *   arguments, queues the request and returns its id (> 0); it does no I/O and waits for nothing
 *   (tens of microseconds of CPU; a busy machine may preempt it, never make it wait). Looking
 *   the sound up, reading the file, decoding and opening the device happen on noti-play's own
 *   threads; a device that does not open within 5 s fails the request, and so does one that takes
 *   no sound for 5 s while it plays (the stream is then let go). Whatever goes wrong after
 *   the call returned reaches the callback as NOTI_PLAY_FAILED with a one-line reason.
 * - A play call returns 0 for a request that can never play (a NULL context, a volume outside
 *   0.0 to 1.0, a sound or theme name that is not a file name, flags this header does not
 *   define), and for one that comes in a flood: while 256 requests of its kind (critical, or
 *   not) wait to be looked up, one more is refused at once rather than queued. A critical
 *   request is never refused for the non-critical ones waiting, nor waits behind them: it is
 *   looked up next. Nor can answers pile up: while 1024 ids of its kind are not answered yet
 *   (their callbacks held up by one that is slow or blocked), one more is refused at once too,
 *   whatever it asks (a request silenced at the call included). A context's threads start with
 *   its first sound: when the system gives none then (RLIMIT_NPROC, a cgroup's pids.max), that
 *   call returns 0 with the reason, and the next call tries again. When a call returns 0 and
 *   `error` is not NULL, it stores a one-line message there that the caller frees with
 *   noti_play_free_string; a refused call spends no id.
 * - Each id returned is answered by exactly one callback, unless the context is freed first.
 *   Callbacks come one at a time from one noti-play thread that does nothing else: a slow
 *   callback delays other callbacks, never the sound. Inside a callback every noti_play_*
 *   function may be called, noti_play_free of the same context included.
 * - noti_play_free stops every sound and closes the devices, waiting for them at most 100 ms (a
 *   device that hangs is left to close in the background); callbacks not yet delivered are
 *   dropped. After it returns no callback runs and user_data is the caller's again. Only a
 *   callback running at that moment is waited for (unless free is called from inside it), so a
 *   host must not hold, around noti_play_free, a lock its callback takes.
 *
 * The library leaves process-wide state alone: ALSA's error handler (snd_lib_error_set_handler)
 * stays the one the program set. With none set, ALSA's diagnostics from noti-play's calls are not
 * printed but folded into its error messages; with one set, that handler receives them. Nor does
 * it touch the environment. Its streams say what they are: a notification (PipeWire's media.role
 * Notification, PulseAudio's event role, the role pipewire-alsa reads from the PCM's definition)
 * of the application noti_play_options names, so the desktop's alert volume and role rules apply
 * to them. (Only ALSA's pulse plugin, chosen with NOTI_PLAY_BACKEND_ALSA on a PulseAudio desktop,
 * takes a role from nowhere but PULSE_PROP_media.role=event in the host's environment.)
 * It needs no Swift toolchain at run time: the Swift runtime and libdispatch are inside. Its bundled sounds are
 * found from the library's own location (PREFIX/lib -> PREFIX/share/noti-play/sounds), whatever
 * the host program's.
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
#define NOTI_PLAY_VERSION_MINOR 4
#define NOTI_PLAY_VERSION_PATCH 0

typedef struct noti_play noti_play;

/* The version of the library in use, "MAJOR.MINOR.PATCH": may be newer than the header's. */
const char *noti_play_version(void);

/* How a sound ended. */
typedef enum {
    NOTI_PLAY_FINISHED = 0,  /* played to its end */
    NOTI_PLAY_CANCELLED = 1, /* noti_play_cancel (faded out), or the request was cancelled before it played */
    NOTI_PLAY_SILENCED = 2,  /* not played on purpose: quiet hours, do not disturb, suppress-sound,
                                a theme that switches the sound off; detail says which */
    NOTI_PLAY_FAILED = 3,    /* the sound could not be found, read or played: detail says why */
    NOTI_PLAY_PREEMPTED = 4, /* faded out for a critical sound */
    NOTI_PLAY_REPLACED = 5   /* faded out to make room: every voice was taken (the oldest gives way) */
} noti_play_result;

/*
 * Flags for the play calls. The REQUEST_ flags say what a notification is, for
 * noti_play_notify only (the other calls name their sound and refuse them).
 */
enum {
    NOTI_PLAY_CRITICAL = 1u << 0,          /* plays at exactly `volume`, through quiet hours; fades others */
    NOTI_PLAY_RINGTONE = 1u << 1,          /* loops until noti_play_cancel, or the ring cap (30 s) */
    NOTI_PLAY_SUPPRESS = 1u << 2,          /* the notification's suppress-sound hint: play nothing */
    NOTI_PLAY_REQUEST_UPDATE = 1u << 3,    /* it replaces a notification still shown (Notify's
                                              replaces_id: a progress bar, a volume OSD): SILENCED
                                              unless it names its own sound (sound_file,
                                              sound_name), is critical or a ringtone, so updates
                                              do not beep */
    NOTI_PLAY_REQUEST_HINTS_ONLY = 1u << 4 /* play only what the hints ask for: a notification
                                              whose hints name no sound (no sound_file, sound_name
                                              or category with a sound; not a ringtone) is
                                              SILENCED, not given the default sound */
};

/*
 * Called once per sound id, from noti-play's callback thread. `detail` is one line, valid during
 * the call: the reason for SILENCED and FAILED; otherwise the warnings the request raised, "; "
 * between them (a sound of 30 s or more replaced by the default, a configured default that cannot
 * be played, a sound that was not found and gave way to the default, an app id that cannot name a
 * sound folder: noti_play_report's warnings bits), or "". A play call's
 * callback may be NULL: the sound plays all the same, and its end is reported to no one.
 */
typedef void (*noti_play_callback)(uint64_t id, noti_play_result result, const char *detail, void *user_data);

/*
 * Why a sound did not play to its end, as a code a host can act on (the detail says more). Codes
 * are only ever added: a library newer than the header may give one the header does not list,
 * which a host treats as NOTI_PLAY_ERROR_OTHER. (A host built against a header before 0.4.0,
 * whose noti_play_request ends at `flags`, gets UNREADABLE for UNSUPPORTED_FORMAT and MALFORMED,
 * as its header said.)
 */
typedef enum {
    NOTI_PLAY_ERROR_NONE = 0,           /* FINISHED, CANCELLED, PREEMPTED, REPLACED */
    NOTI_PLAY_ERROR_SILENCED = 1,       /* SILENCED on purpose: quiet, suppress-sound, a rate limit, ... */
    NOTI_PLAY_ERROR_NOT_FOUND = 2,      /* no sound of that name in the allowed folders or the theme */
    NOTI_PLAY_ERROR_UNREADABLE = 3,     /* the file could not be read: a sound-file that is not
                                           there or not an absolute path, a symbolic link where
                                           none is followed, not a regular file, no permission,
                                           over the size limit; or a sound name that is refused */
    NOTI_PLAY_ERROR_DEVICE_FAILED = 4,  /* the device or sound server would not open, or stopped */
    NOTI_PLAY_ERROR_DEVICE_STALLED = 5, /* it did not open, or took no sound, within 5 s; or an earlier
                                           open or write of it has not returned */
    NOTI_PLAY_ERROR_OTHER = 6,          /* anything else: the detail says what */
    NOTI_PLAY_ERROR_UNSUPPORTED_FORMAT = 7, /* the file is in a format noti-play does not play, or
                                               not one allowed where it lies: a sound-file outside
                                               the sound-theme folders is WAV, AIFF/AIFC or CAF in
                                               a notification sound's encodings, never Ogg or FLAC
                                               (convert it); or the library that reads its format
                                               (libsndfile, libFLAC) is not installed */
    NOTI_PLAY_ERROR_MALFORMED = 8       /* the file is in a format noti-play plays, but broken: a
                                           header value out of range, a structure that does not
                                           hold, data cut short (replace the file) */
} noti_play_error;

/*
 * What a request did other than asked, though a sound played (noti_play_report.warnings): any
 * number of these bits, each with its line in `detail` unless `detail` gives the reason a sound
 * did not play. They say what `error` cannot: the sound that ended was not the one asked for.
 */
enum {
    NOTI_PLAY_WARNING_TOO_LONG = 1u << 0,           /* the sound lasts 30 s or more: the default
                                                       sound played instead */
    NOTI_PLAY_WARNING_NOT_FOUND = 1u << 1,          /* the sound asked for (sound_name, category)
                                                       was not found, or a file of its name was
                                                       refused: the default sound played instead */
    NOTI_PLAY_WARNING_DEFAULT_UNPLAYABLE = 1u << 2, /* the configured default, critical or ringtone
                                                       sound cannot be played: noti-play's own
                                                       played instead */
    NOTI_PLAY_WARNING_APP_ID_UNUSED = 1u << 3       /* the desktop_entry or app_name cannot name a
                                                       folder: the app's sound folders were not
                                                       searched */
};

/*
 * How a sound ended, for a host that wants more than the callback above gives. Valid during the
 * call only. `size` is the library's sizeof(noti_play_report): a host built against an older
 * header reads only the fields it knows, a newer one checks `size` before reading past them.
 */
typedef struct {
    size_t size;
    uint64_t id;
    noti_play_result result;
    noti_play_error error;
    const char *detail;  /* as the callback's `detail` */
    const char *file;    /* the full path of the file that played, or of the one that was to and
                            could not be read or decoded (a sound_file that is not there
                            included); control characters escaped. NULL when none was found or
                            none looked up */
    unsigned warnings;   /* NOTI_PLAY_WARNING_ bits, whatever the result. A library older than
                            this field has none: read it only when `size` >=
                            offsetof(noti_play_report, warnings) + sizeof(unsigned) */
} noti_play_report;

typedef void (*noti_play_report_callback)(const noti_play_report *report, void *user_data);

/* Where the sound goes (noti_play_options.backend). */
typedef enum {
    NOTI_PLAY_BACKEND_AUTO = 0,       /* for "default": the desktop's sound server natively (PipeWire,
                                         then PulseAudio), else ALSA; an ALSA device name is ALSA's,
                                         "pipewire:SINK" and "pulse:SINK" a server's sink */
    NOTI_PLAY_BACKEND_PIPEWIRE = 1,   /* PipeWire natively (libpipewire-0.3, loaded on first use) */
    NOTI_PLAY_BACKEND_PULSEAUDIO = 2, /* a PulseAudio server itself (not PipeWire's pulse service) */
    NOTI_PLAY_BACKEND_ALSA = 3        /* ALSA, whatever its configuration routes `device` to */
} noti_play_backend;

/*
 * How a context plays. Start from NOTI_PLAY_OPTIONS_INIT (or set `size` to
 * sizeof(noti_play_options)): fields added later go at the end, and the library reads only the
 * `size` bytes the caller had. Strings are copied before noti_play_new_with_options returns.
 */
typedef struct {
    size_t size;                    /* sizeof(noti_play_options) */
    const char *device;             /* NULL: "default". A device name is ALSA configuration
                                       (`file:"|cmd"` runs a command): trust it like a shell
                                       command, take it from the user's settings, never from a
                                       notification. */
    const char *const *app_folders; /* the embedding app's own sound folders, searched first for
                                       sound names; NULL: none, whatever the count says */
    size_t app_folder_count;
    int backend;                    /* a noti_play_backend; a backend set here wins over the
                                       user's `backend =` in noti-play.conf */
    const char *application_name;   /* what the desktop's mixer lists the streams as
                                       (application.name); NULL: the program's name */
    const char *application_id;     /* the host's reverse-DNS id or desktop file name
                                       (application.id), what a server remembers a volume by;
                                       NULL: application_name */
} noti_play_options;

#define NOTI_PLAY_OPTIONS_INIT { sizeof(noti_play_options), NULL, NULL, 0, NOTI_PLAY_BACKEND_AUTO, NULL, NULL }

/*
 * A new context, as `options` say (NULL: every default). The user's configuration
 * (~/.config/noti-play/noti-play.conf) supplies the notification volume, quiet hours, theme and
 * default sounds. Returns NULL for options that can never play (a backend this header does not
 * define, a `size` too small), with a one-line message in `error` when it is not NULL (freed
 * with noti_play_free_string), and when out of memory or when the system gives it no thread.
 * Opens no device and connects to no server: the first sound does.
 */
noti_play *noti_play_new_with_options(const noti_play_options *options, char **error);
/* noti_play_new_with_options with only these three options set. */
noti_play *noti_play_new(const char *device, const char *const *app_folders, size_t app_folder_count);
/*
 * Stops every sound, closes the devices (waiting at most 100 ms for them) and frees the context.
 * Callbacks not yet delivered are dropped; after it returns, none runs.
 */
void noti_play_free(noti_play *context);

/*
 * One notification's sound, from what the Desktop Notifications Specification gives a daemon.
 * Start from NOTI_PLAY_REQUEST_INIT (or set `size` to sizeof(noti_play_request)): fields added in
 * later versions go at the end, and the library reads only the `size` bytes the caller had.
 * Strings may be NULL (absent) and are copied before the call returns.
 *
 * What plays, first match wins (README.md, "From a notification's hints to a sound"):
 *   suppress_sound                -> nothing (SILENCED)
 *   sound_file                    -> that file; untrusted: an absolute path (a file:// URI is
 *                                    decoded) to a regular file, WAV/AIFF/CAF in a
 *                                    notification sound's encodings, the 30-second rule
 *   sound_name                    -> a file of that name in the app's sound folders (Apple's
 *                                    named sound), else the sound theme's sound of that name
 *   category                      -> the theme sound for it: im.received -> message-new-instant,
 *                                    email.arrived -> message-new-email, device.added ->
 *                                    device-added, call.incoming -> phone-incoming-call (a
 *                                    ringtone), ... (the table is in the README)
 *   otherwise                     -> the default sound
 * A sound that is not found gives way to the default sound, with a warning in `detail`.
 * Whether it plays at all is decided at the call, in the order and at the time notifications
 * were asked for; those that do not play report SILENCED with the reason in `detail`:
 *   - NOTI_PLAY_REQUEST_UPDATE and NOTI_PLAY_REQUEST_HINTS_ONLY (see the flags);
 *   - the rate: one sound per app (desktop_entry, else app_name) a second, at most 3 sounds of
 *     all apps in that second, so that a burst of notifications is not a burst of sounds; a
 *     critical notification always passes (the voice limit bounds them).
 * A ringtone (NOTI_PLAY_RINGTONE, a call category) not cancelled within 30 s of its call stops
 * then, faded, and reports FINISHED: a call nobody answered or closed must not ring for ever. The
 * sounds of the other play calls are never rate limited; their ringtones are capped too.
 * A call whose notification is updated while it rings (a ringtone request with the same
 * notification_id) keeps ringing, unbroken, once: the update is SILENCED and the ring stays the
 * first request's. A request with that notification_id that asks for no ringtone (the call was
 * answered or ended; its ringer silenced, suppress_sound set) ends the ring, which reports
 * CANCELLED; cancelling its id ends it too.
 * urgency 2 (critical) makes it a critical sound: through quiet hours and do-not-disturb, at
 * exactly `volume`, fading the other sounds out. desktop_entry (else app_name) names the app whose
 * sound folders are searched: $XDG_DATA_HOME/noti-play/apps/ID/sounds, then each $XDG_DATA_DIRS.
 */
typedef struct {
    size_t size;               /* sizeof(noti_play_request) */
    const char *app_name;      /* Notify's app_name */
    const char *desktop_entry; /* the desktop-entry hint */
    const char *sound_file;    /* the sound-file hint: a path */
    const char *sound_name;    /* the sound-name hint: a Sound Naming name */
    const char *category;      /* the category hint */
    int suppress_sound;        /* the suppress-sound hint (non-zero: true) */
    int urgency;               /* the urgency hint: 0 low, 1 normal (also when absent or out of range), 2 critical */
    float volume;              /* 0.0 to 1.0: a critical sound's exact volume, else a gain */
    unsigned flags;            /* NOTI_PLAY_CRITICAL, _RINGTONE, _SUPPRESS, _REQUEST_UPDATE, _REQUEST_HINTS_ONLY */
    uint32_t notification_id;  /* the notification's id as the daemon assigned it (what Notify
                                  returns; replaces_id in an update, once the daemon has checked
                                  it names a notification of the same sender: it is the only
                                  key); 0: none. A ringtone asked for a notification whose
                                  ringtone still rings does not ring twice: that ring goes on,
                                  unbroken, under its own id, and this request is SILENCED
                                  ("its notification's ringtone rings on (sound ID)"); any
                                  other request of it ends that ring (CANCELLED) */
} noti_play_request;

#define NOTI_PLAY_REQUEST_INIT { sizeof(noti_play_request), NULL, NULL, NULL, NULL, NULL, 0, 1, 1.0f, 0u, 0u }

/* Plays the sound a notification asks for (see noti_play_request). */
uint64_t noti_play_notify(noti_play *context, const noti_play_request *request,
                          noti_play_callback callback, void *user_data, char **error);
/* The same, reporting its end as a noti_play_report: the error code and the file that played. */
uint64_t noti_play_notify_reporting(noti_play *context, const noti_play_request *request,
                                    noti_play_report_callback callback, void *user_data, char **error);

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

/* Fades a sound out (10 ms); its callback reports NOTI_PLAY_CANCELLED. Unknown and ended ids are ignored. */
void noti_play_cancel(noti_play *context, uint64_t id);
/* Pauses and resumes a sound in place. */
void noti_play_pause(noti_play *context, uint64_t id);
void noti_play_resume(noti_play *context, uint64_t id);
/*
 * quiet = 1 silences non-critical sounds, 0 lets them play, -1 follows the user's quiet hours
 * and do-not-disturb. A request is judged by the state it meets; turned on, it also ends the
 * non-critical sounds playing or waiting now (a 10 ms fade; they report NOTI_PLAY_SILENCED,
 * "do not disturb is on"), while critical sounds play on. A host that holds notifications back
 * while paused (shown later, or never) asks for each one's sound when it shows it, as the user
 * would hear it then; a critical notification it shows at once plays at once.
 */
void noti_play_set_quiet(noti_play *context, int quiet);

/* A field of noti_play_settings that the host leaves to the user's noti-play.conf. */
#define NOTI_PLAY_UNSET (-1)

/*
 * The settings a daemon drives from its own configuration, over the user's noti-play.conf: a
 * field it sets wins, a field left unset (NULL, or NOTI_PLAY_UNSET) comes from noti-play.conf,
 * or from the defaults when read_user_configuration is 0. Start from NOTI_PLAY_SETTINGS_INIT
 * (every field unset); the library reads only the `size` bytes the caller had.
 */
typedef struct {
    size_t size;                 /* sizeof(noti_play_settings) */
    float notification_volume;   /* 0.0 to 1.0: the volume of non-critical sounds */
    const char *theme;           /* the freedesktop sound theme for sound names */
    const char *default_sound;   /* absolute paths of the default notification, critical and */
    const char *critical_sound;  /*   ringtone sounds (the host's own, trusted; opened byte for */
    const char *ringtone_sound;  /*   byte, UTF-8 or not); else noti-play.conf's, else the bundled ones */
    int do_not_disturb;          /* 1: silence non-critical sounds (and end those playing); 0: not */
    double rate_interval;        /* seconds: one notification's sound per app in that time
                                    (default 1); 0: no such limit */
    int burst_limit;             /* sounds of all apps together per interval (default 3); 0: no
                                    limit of its own. Never more than 100 (0 included): the rate
                                    rule remembers each app it let through for the interval, and
                                    a sender naming a new app each time must not grow that */
    double ring_cap;             /* seconds a ringtone rings at most (default 30); 0: no cap */
    int read_user_configuration; /* 1: unset fields come from noti-play.conf; 0: the defaults */
} noti_play_settings;

#define NOTI_PLAY_SETTINGS_INIT { sizeof(noti_play_settings), NOTI_PLAY_UNSET, NULL, NULL, NULL, NULL, \
                                  NOTI_PLAY_UNSET, NOTI_PLAY_UNSET, NOTI_PLAY_UNSET, NOTI_PLAY_UNSET, 1 }

/*
 * Applies `settings`, replacing those of the call before; callable at any time, from any thread,
 * without blocking (noti-play.conf is read on noti-play's own thread). The rate limits apply to
 * the requests asked after it returns, the rest to the sounds looked up after it. Returns 0, or
 * -1 for settings that can never apply (a volume outside 0.0 to 1.0, a theme name that is a
 * path, a sound path that is not absolute, a negative interval), with a one-line message in `error` when it is not NULL (freed with
 * noti_play_free_string); nothing changes then.
 */
int noti_play_configure(noti_play *context, const noti_play_settings *settings, char **error);

/*
 * What the daemon may log for the user: the warnings of noti-play.conf (a line that cannot be
 * understood, a file over its size limit) and of the context's options (an app folder that
 * cannot be searched), one line each with a newline after it; "" when there are none. A
 * context that ignores noti-play.conf (noti_play_settings.read_user_configuration 0) reports
 * it all the same. It reads noti-play.conf on the calling thread: call it at start-up, or when
 * the user changed the file, not from a callback. Free the text with noti_play_free_string;
 * NULL for a NULL context or when out of memory.
 */
char *noti_play_configuration_warnings(noti_play *context);

void noti_play_free_string(char *string);

#ifdef __cplusplus
}
#endif

#endif
