#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <unistd.h>
#include "notification_bus.h"

#define NOTIFICATIONS "org.freedesktop.Notifications"
#define NOTIFICATIONS_PATH "/org/freedesktop/Notifications"
#define SWAYNC "org.erikreider.swaync.cc"
#define DUNST_INTERFACE "org.dunstproject.cmd0"
#define NOTIFY_SIGNATURE "susssasa{sv}i"
/* Enough for any notification; a flood of hints is counted, not read. */
#define HINTS_READ_LIMIT 4096
#define QUERY_TIMEOUT_USEC (2 * 1000 * 1000)
#define MONITOR_TIMEOUT_USEC (5 * 1000 * 1000)
#define ANSWERS_LIMIT 16

/* sd-bus, resolved from libsystemd.so.0: the functions listen uses, by their own names. */
static struct {
    int (*new)(sd_bus **);
    int (*set_address)(sd_bus *, const char *);
    int (*set_bus_client)(sd_bus *, int);
    int (*set_monitor)(sd_bus *, int);
    int (*start)(sd_bus *);
    void (*close)(sd_bus *);
    sd_bus *(*unref)(sd_bus *);
    int (*call_async)(sd_bus *, sd_bus_slot **, sd_bus_message *, sd_bus_message_handler_t, void *, uint64_t);
    int (*get_fd)(sd_bus *);
    int (*get_events)(sd_bus *);
    int (*get_timeout)(sd_bus *, uint64_t *);
    int (*process)(sd_bus *, sd_bus_message **);
    int (*message_new_method_call)(sd_bus *, sd_bus_message **, const char *, const char *, const char *, const char *);
    sd_bus_message *(*message_unref)(sd_bus_message *);
    int (*message_get_type)(sd_bus_message *, uint8_t *);
    int (*message_get_cookie)(sd_bus_message *, uint64_t *);
    int (*message_get_reply_cookie)(sd_bus_message *, uint64_t *);
    const char *(*message_get_path)(sd_bus_message *);
    const char *(*message_get_interface)(sd_bus_message *);
    const char *(*message_get_member)(sd_bus_message *);
    const char *(*message_get_destination)(sd_bus_message *);
    const char *(*message_get_sender)(sd_bus_message *);
    int (*message_is_signal)(sd_bus_message *, const char *, const char *);
    int (*message_is_method_call)(sd_bus_message *, const char *, const char *);
    int (*message_has_signature)(sd_bus_message *, const char *);
    int (*message_set_auto_start)(sd_bus_message *, int);
    int (*message_append_basic)(sd_bus_message *, char, const void *);
    int (*message_open_container)(sd_bus_message *, char, const char *);
    int (*message_close_container)(sd_bus_message *);
    int (*message_read_basic)(sd_bus_message *, char, void *);
    int (*message_skip)(sd_bus_message *, const char *);
    int (*message_enter_container)(sd_bus_message *, char, const char *);
    int (*message_exit_container)(sd_bus_message *);
    int (*message_peek_type)(sd_bus_message *, char *, const char **);
    const sd_bus_error *(*message_get_error)(sd_bus_message *);
    sd_bus_slot *(*slot_unref)(sd_bus_slot *);
} sd;
static const char *load_failure;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

#define RESOLVE(library, field, symbol) (*(void **)(&sd.field) = dlsym(library, symbol))

static void load(void) {
    /* Never closed: listen uses it until it exits. RTLD_LOCAL keeps it out of the namespace. */
    void *library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_failure = "libsystemd (libsystemd.so.0), which listen talks to the session bus through, is not installed";
        return;
    }
    int resolved = RESOLVE(library, new, "sd_bus_new") && RESOLVE(library, set_address, "sd_bus_set_address")
        && RESOLVE(library, set_bus_client, "sd_bus_set_bus_client") && RESOLVE(library, set_monitor, "sd_bus_set_monitor")
        && RESOLVE(library, start, "sd_bus_start") && RESOLVE(library, close, "sd_bus_close")
        && RESOLVE(library, unref, "sd_bus_unref")
        && RESOLVE(library, call_async, "sd_bus_call_async")
        && RESOLVE(library, get_fd, "sd_bus_get_fd") && RESOLVE(library, get_events, "sd_bus_get_events")
        && RESOLVE(library, get_timeout, "sd_bus_get_timeout") && RESOLVE(library, process, "sd_bus_process")
        && RESOLVE(library, message_new_method_call, "sd_bus_message_new_method_call")
        && RESOLVE(library, message_unref, "sd_bus_message_unref")
        && RESOLVE(library, message_get_type, "sd_bus_message_get_type")
        && RESOLVE(library, message_get_cookie, "sd_bus_message_get_cookie")
        && RESOLVE(library, message_get_reply_cookie, "sd_bus_message_get_reply_cookie")
        && RESOLVE(library, message_get_path, "sd_bus_message_get_path")
        && RESOLVE(library, message_get_interface, "sd_bus_message_get_interface")
        && RESOLVE(library, message_get_member, "sd_bus_message_get_member")
        && RESOLVE(library, message_get_destination, "sd_bus_message_get_destination")
        && RESOLVE(library, message_get_sender, "sd_bus_message_get_sender")
        && RESOLVE(library, message_is_signal, "sd_bus_message_is_signal")
        && RESOLVE(library, message_is_method_call, "sd_bus_message_is_method_call")
        && RESOLVE(library, message_has_signature, "sd_bus_message_has_signature")
        && RESOLVE(library, message_set_auto_start, "sd_bus_message_set_auto_start")
        && RESOLVE(library, message_append_basic, "sd_bus_message_append_basic")
        && RESOLVE(library, message_open_container, "sd_bus_message_open_container")
        && RESOLVE(library, message_close_container, "sd_bus_message_close_container")
        && RESOLVE(library, message_read_basic, "sd_bus_message_read_basic")
        && RESOLVE(library, message_skip, "sd_bus_message_skip")
        && RESOLVE(library, message_enter_container, "sd_bus_message_enter_container")
        && RESOLVE(library, message_exit_container, "sd_bus_message_exit_container")
        && RESOLVE(library, message_peek_type, "sd_bus_message_peek_type")
        && RESOLVE(library, message_get_error, "sd_bus_message_get_error")
        && RESOLVE(library, slot_unref, "sd_bus_slot_unref");
    if (!resolved) load_failure = "libsystemd.so.0 lacks an sd-bus function listen needs";
}

const char *nb_load(void) {
    /* Fails only for an invalid once-control, which this static one is not. */
    pthread_once(&load_once, load);
    return load_failure;
}

struct nb_bus {
    sd_bus *bus;
    nb_role role;
    /* The message the last event's strings point into. */
    sd_bus_message *current;
    /* Answers to nb_query, collected by their callbacks while sd-bus processes. */
    nb_event answers[ANSWERS_LIMIT];
    int answer_count;
};

static int fail(char *error, size_t size, int code, const char *what, const char *detail) {
    snprintf(error, size, "%s: %s", what, detail ? detail : strerror(-code));
    return code;
}

/* The session bus's address as every D-Bus library finds it. */
static int session_address(const char *given, char *address, size_t size, char *error, size_t error_size) {
    const char *from_environment = getenv("DBUS_SESSION_BUS_ADDRESS");
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    int written;
    if (given && *given) written = snprintf(address, size, "%s", given);
    else if (from_environment && *from_environment) written = snprintf(address, size, "%s", from_environment);
    else if (runtime && *runtime) written = snprintf(address, size, "unix:path=%s/bus", runtime);
    else return fail(error, error_size, -ENOENT, "no session bus", "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set");
    if (written < 0 || (size_t)written >= size) return fail(error, error_size, -ENAMETOOLONG, "the session bus address", NULL);
    return 0;
}

/* Match rules, each as narrow as the bus allows: a rule whose sender is a well-known name
 * matches only messages from that name's owner at the time. */
static const char *const monitor_rules[] = {
    /* Calls that reach a server: one sent elsewhere shows nothing, so it must sound nothing. */
    "type='method_call',destination='" NOTIFICATIONS "',interface='" NOTIFICATIONS "',member='Notify'",
    "type='method_call',destination='" NOTIFICATIONS "',interface='" NOTIFICATIONS "',member='CloseNotification'",
    "type='method_return',sender='" NOTIFICATIONS "'",
    "type='error',sender='" NOTIFICATIONS "'",
    "type='signal',sender='" NOTIFICATIONS "',interface='" NOTIFICATIONS "',member='NotificationClosed'",
    "type='signal',sender='" NOTIFICATIONS "',path='" NOTIFICATIONS_PATH "',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='" DUNST_INTERFACE "'",
    "type='signal',sender='" SWAYNC "',interface='" SWAYNC "'",
    "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" NOTIFICATIONS "'",
    "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" SWAYNC "'",
};

static uint64_t monotonic_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

static int is_error(sd_bus_message *m);

/* BecomeMonitor's answer, filled in by its callback. */
struct monitor_reply {
    int answered;
    int refused;
    char reason[256];
};

static int monitor_answered(sd_bus_message *m, void *userdata, sd_bus_error *unused) {
    (void)unused;
    struct monitor_reply *reply = userdata;
    reply->answered = 1;
    if (is_error(m)) {
        const sd_bus_error *error = sd.message_get_error(m);
        reply->refused = 1;
        snprintf(reply->reason, sizeof reply->reason, "%s", error && error->message ? error->message : "refused");
    }
    return 0;
}

/* Serves the connection (authentication, Hello, the call) until `*done`, `cancel` becomes readable
 * (the caller's signals: it is not read here) or `deadline` passes: a bus that accepts the
 * connection and never answers must not hold listen, nor its SIGTERM. */
static int serve_until(nb_bus *bus, const int *done, int cancel, uint64_t deadline) {
    while (!*done) {
        int r = sd.process(bus->bus, NULL);
        if (r < 0) return r;
        if (r > 0) continue;
        uint64_t now = monotonic_usec();
        if (now >= deadline) return -ETIMEDOUT;
        uint64_t until = deadline, bus_deadline = UINT64_MAX;
        if (sd.get_timeout(bus->bus, &bus_deadline) >= 0 && bus_deadline < until) until = bus_deadline;
        int wait_ms = until > now ? (int)((until - now + 999) / 1000) : 0;
        struct pollfd descriptors[2] = {
            {.fd = sd.get_fd(bus->bus), .events = (short)nb_events(bus)},
            {.fd = cancel, .events = POLLIN},
        };
        int ready = poll(descriptors, cancel >= 0 ? 2 : 1, wait_ms);
        if (ready < 0 && errno != EINTR) return -errno;
        if (cancel >= 0 && (descriptors[1].revents & POLLIN)) return -EINTR;
    }
    return 0;
}

static int become_monitor(nb_bus *bus, int cancel, char *error, size_t error_size) {
    sd_bus_message *call = NULL;
    struct monitor_reply reply = {0};
    int r = sd.message_new_method_call(bus->bus, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus.Monitoring", "BecomeMonitor");
    if (r >= 0) r = sd.message_open_container(call, 'a', "s");
    for (size_t i = 0; r >= 0 && i < sizeof monitor_rules / sizeof monitor_rules[0]; i++)
        r = sd.message_append_basic(call, 's', monitor_rules[i]);
    if (r >= 0) r = sd.message_close_container(call);
    uint32_t flags = 0;
    if (r >= 0) r = sd.message_append_basic(call, 'u', &flags);
    /* A slot of our own, so that the callback, which points at this stack frame, cannot run
     * after this function returns. */
    sd_bus_slot *slot = NULL;
    if (r >= 0) r = sd.call_async(bus->bus, &slot, call, monitor_answered, &reply, MONITOR_TIMEOUT_USEC);
    if (call) sd.message_unref(call);
    if (r < 0) return fail(error, error_size, r, "cannot ask the session bus to let listen monitor it", NULL);
    r = serve_until(bus, &reply.answered, cancel, monotonic_usec() + MONITOR_TIMEOUT_USEC);
    sd.slot_unref(slot);
    if (r == -EINTR) return fail(error, error_size, r, "interrupted while connecting to the session bus", "a signal arrived");
    if (r == -ETIMEDOUT) return fail(error, error_size, r, "the session bus did not answer", "not within 5 s");
    if (r < 0) return fail(error, error_size, r, "the session bus connection failed while listen asked to monitor it", NULL);
    if (reply.refused) return fail(error, error_size, -EACCES, "the session bus refused to let listen monitor it", reply.reason);
    return 0;
}

int nb_open(const char *given, nb_role role, int cancel, nb_bus **out, char *error, size_t error_size) {
    *out = NULL;
    const char *why = nb_load();
    if (why) return fail(error, error_size, -ENOENT, "cannot use the session bus", why);
    char address[4096];
    int r = session_address(given, address, sizeof address, error, error_size);
    if (r < 0) return r;
    nb_bus *bus = calloc(1, sizeof *bus);
    if (!bus) return fail(error, error_size, -ENOMEM, "cannot connect to the session bus", NULL);
    bus->role = role;
    r = sd.new(&bus->bus);
    if (r >= 0) r = sd.set_address(bus->bus, address);
    if (r >= 0) r = sd.set_bus_client(bus->bus, 1);
    if (r >= 0 && role == NB_MONITOR) r = sd.set_monitor(bus->bus, 1);
    if (r >= 0) r = sd.start(bus->bus);
    if (r < 0) {
        char what[4200];
        snprintf(what, sizeof what, "cannot connect to the session bus at %s", address);
        fail(error, error_size, r, what, NULL);
    } else if (role == NB_MONITOR) {
        r = become_monitor(bus, cancel, error, error_size);
    }
    if (r < 0) {
        nb_close(bus);
        return r;
    }
    *out = bus;
    return 0;
}

void nb_close(nb_bus *bus) {
    if (!bus) return;
    if (bus->current) sd.message_unref(bus->current);
    /* Not flushed: listen sends nothing that must arrive, and flushing waits for a bus that does
     * not answer (sd-bus's 90 s authentication timeout). */
    if (bus->bus) {
        sd.close(bus->bus);
        sd.unref(bus->bus);
    }
    free(bus);
}

int nb_fd(nb_bus *bus) { return sd.get_fd(bus->bus); }

int nb_events(nb_bus *bus) {
    int events = sd.get_events(bus->bus);
    return events < 0 ? POLLIN : events;
}

uint64_t nb_timeout(nb_bus *bus) {
    uint64_t usec = UINT64_MAX;
    return sd.get_timeout(bus->bus, &usec) < 0 ? UINT64_MAX : usec;
}

/* A basic value of one of `types` inside the variant the message is at, read into `value`
 * (8 bytes) as the type it has; 0 when the variant holds something else (then skipped). */
static int read_variant(sd_bus_message *m, const char *types, char *type, void *value) {
    char kind;
    const char *contents = NULL;
    if (sd.message_peek_type(m, &kind, &contents) <= 0 || kind != 'v' || !contents) return -EINVAL;
    if (strlen(contents) != 1 || !strchr(types, contents[0])) return sd.message_skip(m, "v") < 0 ? -EINVAL : 0;
    *type = contents[0];
    if (sd.message_enter_container(m, 'v', contents) <= 0) return -EINVAL;
    int r = sd.message_read_basic(m, contents[0], value);
    if (sd.message_exit_container(m) < 0 || r <= 0) return -EINVAL;
    return 1;
}

/* A hint's integer, whatever integer type the client chose (libnotify sends urgency as a
 * byte, some clients as an int32). */
static int64_t as_integer(char type, const void *value) {
    switch (type) {
    case 'y': return *(const uint8_t *)value;
    case 'b': return *(const int *)value != 0;
    case 'n': return *(const int16_t *)value;
    case 'q': return *(const uint16_t *)value;
    case 'i': return *(const int32_t *)value;
    case 'u': return *(const uint32_t *)value;
    case 'x': return *(const int64_t *)value;
    case 't': return (int64_t)(*(const uint64_t *)value > INT64_MAX ? INT64_MAX : *(const uint64_t *)value);
    default: return -1;
    }
}

#define INTEGERS "ybnqiuxt"

static int read_hints(sd_bus_message *m, nb_hints *hints) {
    hints->urgency = hints->suppress_sound = hints->ringtone = -1;
    if (sd.message_enter_container(m, 'a', "{sv}") <= 0) return -EINVAL;
    for (;;) {
        int r = sd.message_enter_container(m, 'e', "sv");
        if (r < 0) return r;
        if (r == 0) break;
        hints->hint_count++;
        const char *key = NULL;
        if (sd.message_read_basic(m, 's', &key) <= 0) return -EINVAL;
        union { const char *string; uint64_t integer; } value = {0};
        char type = 0;
        const char **string_hint = NULL;
        int *integer_hint = NULL;
        if (hints->hint_count > HINTS_READ_LIMIT) key = "";
        if (!strcmp(key, "sound-file")) string_hint = &hints->sound_file;
        else if (!strcmp(key, "sound-name")) string_hint = &hints->sound_name;
        else if (!strcmp(key, "category")) string_hint = &hints->category;
        else if (!strcmp(key, "desktop-entry")) string_hint = &hints->desktop_entry;
        else if (!strcmp(key, "urgency")) integer_hint = &hints->urgency;
        else if (!strcmp(key, "suppress-sound")) integer_hint = &hints->suppress_sound;
        else if (!strcmp(key, "x-noti-play-ringtone")) integer_hint = &hints->ringtone;
        if (string_hint) {
            r = read_variant(m, "s", &type, &value);
            if (r > 0) *string_hint = value.string;
        } else if (integer_hint) {
            r = read_variant(m, INTEGERS, &type, &value);
            if (r > 0) {
                int64_t number = as_integer(type, &value);
                if (integer_hint == &hints->urgency) *integer_hint = number >= 0 && number <= 2 ? (int)number : -1;
                else *integer_hint = number != 0;
            }
        } else {
            r = sd.message_skip(m, "v");
        }
        if (r < 0 || sd.message_exit_container(m) < 0) return -EINVAL;
    }
    return sd.message_exit_container(m) < 0 ? -EINVAL : 0;
}

static int read_notify(sd_bus_message *m, nb_event *event) {
    uint32_t replaces = 0;
    if (sd.message_read_basic(m, 's', &event->app_name) <= 0 || sd.message_read_basic(m, 'u', &replaces) <= 0
        || sd.message_skip(m, "sssas") < 0 || read_hints(m, &event->hints) < 0)
        return -EINVAL;
    event->id = replaces;
    event->has_id = replaces != 0;
    return 0;
}

static int read_uint32(sd_bus_message *m, uint32_t *value) {
    return sd.message_read_basic(m, 'u', value) > 0 ? 0 : -EINVAL;
}

/* PropertiesChanged(s interface, a{sv} changed, as invalidated) from dunst: `paused`, if there. */
static int read_dunst_paused(sd_bus_message *m, int *paused) {
    const char *interface = NULL;
    if (sd.message_read_basic(m, 's', &interface) <= 0 || strcmp(interface, DUNST_INTERFACE)) return 0;
    if (sd.message_enter_container(m, 'a', "{sv}") <= 0) return 0;
    int found = 0;
    while (sd.message_enter_container(m, 'e', "sv") > 0) {
        const char *key = NULL;
        union { int flag; uint64_t padding; } value = {0};
        char type = 0;
        if (sd.message_read_basic(m, 's', &key) <= 0) return 0;
        int r = !strcmp(key, "paused") ? read_variant(m, "b", &type, &value) : sd.message_skip(m, "v");
        if (r < 0 || sd.message_exit_container(m) < 0) return 0;
        if (r > 0 && !strcmp(key, "paused")) {
            *paused = value.flag != 0;
            found = 1;
        }
    }
    return found;
}

/* Turns a message the monitor saw into an event; 0 for messages that are none. */
static int decode(nb_bus *bus, sd_bus_message *m, nb_event *event) {
    uint8_t type = 0;
    if (sd.message_get_type(m, &type) < 0) return 0;
    if (sd.message_is_signal(m, "org.freedesktop.DBus.Local", "Disconnected") > 0) {
        event->kind = NB_EVENT_DISCONNECTED;
        return 1;
    }
    if (bus->role != NB_MONITOR) return 0;
    const char *interface = sd.message_get_interface(m);
    const char *member = sd.message_get_member(m);
    switch (type) {
    case SD_BUS_MESSAGE_METHOD_CALL:
        if (!interface || strcmp(interface, NOTIFICATIONS) || !member) return 0;
        event->sender = sd.message_get_sender(m);
        (void)sd.message_get_cookie(m, &event->serial);
        if (!strcmp(member, "Notify")) {
            event->kind = sd.message_has_signature(m, NOTIFY_SIGNATURE) > 0 && read_notify(m, event) == 0
                ? NB_EVENT_NOTIFY : NB_EVENT_MALFORMED;
        } else if (!strcmp(member, "CloseNotification")) {
            event->kind = sd.message_has_signature(m, "u") > 0 && read_uint32(m, &event->id) == 0
                ? NB_EVENT_CLOSE_CALL : NB_EVENT_MALFORMED;
            event->has_id = event->kind == NB_EVENT_CLOSE_CALL;
        } else {
            return 0;
        }
        if (event->kind == NB_EVENT_MALFORMED) event->member = member;
        return 1;
    case SD_BUS_MESSAGE_METHOD_RETURN:
    case SD_BUS_MESSAGE_METHOD_ERROR:
        event->kind = type == SD_BUS_MESSAGE_METHOD_RETURN ? NB_EVENT_REPLY : NB_EVENT_ERROR_REPLY;
        event->destination = sd.message_get_destination(m);
        if (sd.message_get_reply_cookie(m, &event->serial) < 0 || !event->destination) return 0;
        if (type == SD_BUS_MESSAGE_METHOD_RETURN && sd.message_has_signature(m, "u") > 0)
            event->has_id = read_uint32(m, &event->id) == 0;
        return 1;
    case SD_BUS_MESSAGE_SIGNAL:
        if (sd.message_is_signal(m, NOTIFICATIONS, "NotificationClosed") > 0) {
            if (sd.message_has_signature(m, "uu") <= 0 || read_uint32(m, &event->id) < 0) return 0;
            event->kind = NB_EVENT_CLOSED;
            event->has_id = 1;
            return 1;
        }
        if (sd.message_is_signal(m, "org.freedesktop.DBus", "NameOwnerChanged") > 0) {
            const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
            if (sd.message_has_signature(m, "sss") <= 0 || sd.message_read_basic(m, 's', &name) <= 0
                || sd.message_read_basic(m, 's', &old_owner) <= 0 || sd.message_read_basic(m, 's', &new_owner) <= 0)
                return 0;
            if (!strcmp(name, NOTIFICATIONS)) event->kind = NB_EVENT_SERVER_OWNER;
            else if (!strcmp(name, SWAYNC)) event->kind = NB_EVENT_SWAYNC_OWNER;
            else return 0;
            event->flag = new_owner[0] != '\0';
            return 1;
        }
        if (sd.message_is_signal(m, "org.freedesktop.DBus.Properties", "PropertiesChanged") > 0) {
            if (sd.message_has_signature(m, "sa{sv}as") <= 0 || !read_dunst_paused(m, &event->flag)) return 0;
            event->kind = NB_EVENT_DUNST_PAUSED;
            return 1;
        }
        if (sd.message_is_signal(m, SWAYNC, "SubscribeV2") > 0 || sd.message_is_signal(m, SWAYNC, "Subscribe") > 0) {
            uint32_t count = 0;
            int dnd = 0;
            if (sd.message_read_basic(m, 'u', &count) <= 0 || sd.message_read_basic(m, 'b', &dnd) <= 0) return 0;
            event->kind = NB_EVENT_SWAYNC_DND;
            event->flag = dnd != 0;
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

int nb_next(nb_bus *bus, nb_event *event) {
    memset(event, 0, sizeof *event);
    if (bus->current) {
        sd.message_unref(bus->current);
        bus->current = NULL;
    }
    for (;;) {
        if (bus->answer_count > 0) {
            *event = bus->answers[0];
            memmove(bus->answers, bus->answers + 1, sizeof bus->answers[0] * (size_t)--bus->answer_count);
            return 1;
        }
        sd_bus_message *m = NULL;
        int r = sd.process(bus->bus, &m);
        if (m) {
            if (decode(bus, m, event)) {
                bus->current = m;
                return 1;
            }
            sd.message_unref(m);
            memset(event, 0, sizeof *event);
        }
        if (r < 0) return r;
        if (r == 0 && bus->answer_count == 0) return 0;
    }
}

static void answer(nb_bus *bus, nb_event_kind kind, int flag, int answered) {
    if (bus->answer_count == ANSWERS_LIMIT) return;
    nb_event *event = &bus->answers[bus->answer_count++];
    memset(event, 0, sizeof *event);
    event->kind = kind;
    event->flag = flag;
    event->has_id = answered;
}

static int is_error(sd_bus_message *m) {
    uint8_t type = 0;
    return sd.message_get_type(m, &type) < 0 || type == SD_BUS_MESSAGE_METHOD_ERROR;
}

static int capabilities_answered(sd_bus_message *m, void *userdata, sd_bus_error *unused) {
    (void)unused;
    int plays_sound = 0;
    if (is_error(m) || sd.message_enter_container(m, 'a', "s") <= 0) {
        answer(userdata, NB_EVENT_CAPABILITIES, 0, 0);
        return 0;
    }
    const char *capability = NULL;
    while (sd.message_read_basic(m, 's', &capability) > 0)
        if (!strcmp(capability, "sound")) plays_sound = 1;
    answer(userdata, NB_EVENT_CAPABILITIES, plays_sound, 1);
    return 0;
}

static int dunst_paused_answered(sd_bus_message *m, void *userdata, sd_bus_error *unused) {
    (void)unused;
    union { int flag; uint64_t padding; } value = {0};
    char type = 0;
    if (!is_error(m) && read_variant(m, "b", &type, &value) > 0) answer(userdata, NB_EVENT_DUNST_PAUSED, value.flag != 0, 1);
    return 0;
}

static int swaync_dnd_answered(sd_bus_message *m, void *userdata, sd_bus_error *unused) {
    (void)unused;
    int dnd = 0;
    if (!is_error(m) && sd.message_read_basic(m, 'b', &dnd) > 0) answer(userdata, NB_EVENT_SWAYNC_DND, dnd != 0, 1);
    return 0;
}

int nb_query(nb_bus *bus, nb_query_kind query) {
    sd_bus_message *call = NULL;
    sd_bus_message_handler_t handler;
    int r;
    switch (query) {
    case NB_QUERY_CAPABILITIES:
        r = sd.message_new_method_call(bus->bus, &call, NOTIFICATIONS, NOTIFICATIONS_PATH, NOTIFICATIONS, "GetCapabilities");
        handler = capabilities_answered;
        break;
    case NB_QUERY_DUNST_PAUSED:
        r = sd.message_new_method_call(bus->bus, &call, NOTIFICATIONS, NOTIFICATIONS_PATH, "org.freedesktop.DBus.Properties", "Get");
        if (r >= 0) r = sd.message_append_basic(call, 's', DUNST_INTERFACE);
        if (r >= 0) r = sd.message_append_basic(call, 's', "paused");
        handler = dunst_paused_answered;
        break;
    case NB_QUERY_SWAYNC_DND:
        r = sd.message_new_method_call(bus->bus, &call, SWAYNC, "/org/erikreider/swaync/cc", SWAYNC, "GetDnd");
        handler = swaync_dnd_answered;
        break;
    default:
        return -EINVAL;
    }
    /* Asking must not start a server that is not running. */
    if (r >= 0) r = sd.message_set_auto_start(call, 0);
    /* A floating slot: sd-bus owns it and frees it with the answer or the connection. */
    if (r >= 0) r = sd.call_async(bus->bus, NULL, call, handler, bus, QUERY_TIMEOUT_USEC);
    if (call) sd.message_unref(call);
    return r < 0 ? r : 0;
}

int nb_signal_descriptor(const sigset_t *set) { return signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK); }

int nb_read_signal(int descriptor) {
    struct signalfd_siginfo information;
    for (;;) {
        ssize_t n = read(descriptor, &information, sizeof information);
        if (n == (ssize_t)sizeof information) return (int)information.ssi_signo;
        if (n < 0 && errno == EINTR) continue;
        return 0;
    }
}
