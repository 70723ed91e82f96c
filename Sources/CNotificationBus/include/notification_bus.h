#ifndef NOTI_NOTIFICATION_BUS_H
#define NOTI_NOTIFICATION_BUS_H

/*
 * The session bus as `noti-play listen` sees it, through sd-bus (libsystemd.so.0, loaded on
 * first use so that playing a sound never loads it):
 *
 *   const char *why = nb_load();                      // NULL: loaded
 *   nb_bus *monitor, *client;
 *   nb_open(NULL, NB_MONITOR, -1, &monitor, error, sizeof error);   // every notification's traffic
 *   nb_open(NULL, NB_CLIENT, -1, &client, error, sizeof error);     // the few calls listen makes
 *   nb_query(client, NB_QUERY_CAPABILITIES);
 *   poll on nb_fd() / nb_events() / nb_timeout(), then
 *   while ((r = nb_next(monitor, &event)) > 0) { ... }          // r < 0: -errno, reconnect
 *
 * A monitor sees messages that are not sent to it; it never sends (the bus forbids it), so the
 * calls go through the second, ordinary connection. An event's strings point into the message
 * it came from and stay valid until the next nb_next() or nb_close() on that bus.
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nb_bus nb_bus;

typedef enum {
    NB_MONITOR = 1,  /* BecomeMonitor for the Desktop Notifications traffic */
    NB_CLIENT = 2,   /* an ordinary connection for nb_query() */
} nb_role;

typedef enum {
    NB_EVENT_NOTIFY = 1,        /* a Notify call: sender, serial, id (its replaces_id), app_name, hints */
    NB_EVENT_MALFORMED,         /* a call to the notification interface with the wrong arguments: sender, member */
    NB_EVENT_REPLY,             /* a method return from the notification server: destination, serial (the call's), id when it is one uint32 (has_id) */
    NB_EVENT_ERROR_REPLY,       /* an error from the notification server: destination, serial (the call's) */
    NB_EVENT_CLOSE_CALL,        /* a CloseNotification call: id */
    NB_EVENT_CLOSED,            /* the NotificationClosed signal: id */
    NB_EVENT_SERVER_OWNER,      /* org.freedesktop.Notifications got an owner (flag 1) or lost it (flag 0) */
    NB_EVENT_SWAYNC_OWNER,      /* org.erikreider.swaync.cc got an owner (flag 1) or lost it (flag 0) */
    NB_EVENT_DUNST_PAUSED,      /* dunst's `paused` property: flag */
    NB_EVENT_SWAYNC_DND,        /* swaync's do-not-disturb state: flag */
    NB_EVENT_CAPABILITIES,      /* answer to NB_QUERY_CAPABILITIES: flag 1 when the list has "sound"; has_id 0 when no server answered */
    NB_EVENT_DISCONNECTED,      /* the bus closed the connection */
} nb_event_kind;

typedef enum {
    NB_QUERY_CAPABILITIES = 1,  /* org.freedesktop.Notifications.GetCapabilities */
    NB_QUERY_DUNST_PAUSED,      /* dunst's org.dunstproject.cmd0 `paused` property */
    NB_QUERY_SWAYNC_DND,        /* swaync's org.erikreider.swaync.cc GetDnd */
} nb_query_kind;

/* The hints of a Notify call that decide its sound. Absent strings are NULL; urgency is -1
 * when absent or not 0...2; flags are -1 when absent. */
typedef struct {
    const char *sound_file;
    const char *sound_name;
    const char *category;
    const char *desktop_entry;
    int urgency;
    int suppress_sound;
    int ringtone;               /* x-noti-play-ringtone */
    uint32_t hint_count;        /* all hints, read or not */
} nb_hints;

typedef struct {
    nb_event_kind kind;
    const char *sender;         /* NOTIFY, MALFORMED: the caller's unique name */
    const char *destination;    /* REPLY, ERROR_REPLY: the caller's unique name */
    const char *member;         /* MALFORMED */
    uint64_t serial;            /* NOTIFY: the call's serial; REPLY, ERROR_REPLY: the serial answered */
    uint32_t id;
    int has_id;
    int flag;
    const char *app_name;
    nb_hints hints;
} nb_event;

/* Loads libsystemd.so.0 once (thread-safe). NULL when loaded, else a one-line reason. */
const char *nb_load(void);

/* Connects to `address` (NULL: $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus) in `role`.
 * 0, or -errno with a one-line reason in `error`. A monitor waits for the bus to let it monitor:
 * at most 5 s (-ETIMEDOUT, for a bus that accepts connections and answers none, such as a stopped
 * dbus-daemon), and no longer than until `cancel` (a descriptor, or -1) becomes readable
 * (-EINTR; `cancel` is not read). A client waits for nothing: it authenticates as it is served. */
int nb_open(const char *address, nb_role role, int cancel, nb_bus **bus, char *error, size_t error_size);
void nb_close(nb_bus *bus);

/* What to poll: the connection's descriptor, its poll events, and the CLOCK_MONOTONIC
 * microsecond by which nb_next must run again (UINT64_MAX: none). */
int nb_fd(nb_bus *bus);
int nb_events(nb_bus *bus);
uint64_t nb_timeout(nb_bus *bus);

/* The next event: 1 (filled in), 0 (nothing more until the descriptor is ready or the timeout
 * passes) or -errno (the connection is gone). Messages that are not events are skipped. */
int nb_next(nb_bus *bus, nb_event *event);

/* Starts a call on a client connection; its answer arrives as an event from nb_next. The
 * server is never started for it (no D-Bus activation). 0 or -errno. */
int nb_query(nb_bus *bus, nb_query_kind query);

/* The signals in `set` (already blocked) as a descriptor to poll: non-blocking, close-on-exec.
 * -1 with errno on failure. */
int nb_signal_descriptor(const sigset_t *set);
/* The next signal read from that descriptor, 0 when none is pending. */
int nb_read_signal(int descriptor);

#endif
