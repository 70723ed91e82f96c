#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <pipewire/pipewire.h>
#include <pipewire/extensions/metadata.h>
#include <spa/param/audio/format-utils.h>
#include "pipewire_output.h"

_Static_assert(NOTI_PW_MAX_CHANNELS <= SPA_AUDIO_MAX_CHANNELS, "a stream's channels fit SPA's positions");

/* libpipewire's functions, resolved once by noti_pw_load: every pw_* function this file calls.
 * (The pw_loop_*, pw_core_*, pw_registry_* and pw_metadata_* methods, and the spa_* helpers,
 * are inline functions and macros of the headers: they call through the objects' own tables.)
 * Declared with the headers' own types, so a prototype cannot be copied wrong. */
static struct {
    __typeof__(pw_init) *init;
    __typeof__(pw_loop_new) *loop_new;
    __typeof__(pw_loop_destroy) *loop_destroy;
    __typeof__(pw_context_new) *context_new;
    __typeof__(pw_context_destroy) *context_destroy;
    __typeof__(pw_context_connect) *context_connect;
    __typeof__(pw_context_get_data_loop) *context_get_data_loop;
    __typeof__(pw_data_loop_get_thread) *data_loop_get_thread;
    __typeof__(pw_core_disconnect) *core_disconnect;
    __typeof__(pw_proxy_destroy) *proxy_destroy;
    __typeof__(pw_properties_new_dict) *properties_new_dict;
    __typeof__(pw_stream_new) *stream_new;
    __typeof__(pw_stream_add_listener) *stream_add_listener;
    __typeof__(pw_stream_connect) *stream_connect;
    __typeof__(pw_stream_destroy) *stream_destroy;
    __typeof__(pw_stream_dequeue_buffer) *stream_dequeue_buffer;
    __typeof__(pw_stream_queue_buffer) *stream_queue_buffer;
    __typeof__(pw_stream_set_active) *stream_set_active;
} pw;
static const char *load_failure;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* dlsym's object pointer as a function pointer, the way POSIX allows it. */
#define RESOLVE(library, field, symbol) (*(void **)(&pw.field) = dlsym(library, symbol))

static void load(void) {
    /* RTLD_LOCAL: its symbols stay out of the host's namespace. Never closed: its data threads
     * and plugins outlive any one stream. */
    void *library = dlopen("libpipewire-0.3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_failure = "libpipewire (libpipewire-0.3.so.0) is not installed";
        return;
    }
    if (!RESOLVE(library, init, "pw_init") || !RESOLVE(library, loop_new, "pw_loop_new")
        || !RESOLVE(library, loop_destroy, "pw_loop_destroy") || !RESOLVE(library, context_new, "pw_context_new")
        || !RESOLVE(library, context_destroy, "pw_context_destroy")
        || !RESOLVE(library, context_connect, "pw_context_connect")
        || !RESOLVE(library, context_get_data_loop, "pw_context_get_data_loop")
        || !RESOLVE(library, data_loop_get_thread, "pw_data_loop_get_thread")
        || !RESOLVE(library, core_disconnect, "pw_core_disconnect")
        || !RESOLVE(library, proxy_destroy, "pw_proxy_destroy")
        || !RESOLVE(library, properties_new_dict, "pw_properties_new_dict")
        || !RESOLVE(library, stream_new, "pw_stream_new")
        || !RESOLVE(library, stream_add_listener, "pw_stream_add_listener")
        || !RESOLVE(library, stream_connect, "pw_stream_connect")
        || !RESOLVE(library, stream_destroy, "pw_stream_destroy")
        || !RESOLVE(library, stream_dequeue_buffer, "pw_stream_dequeue_buffer")
        || !RESOLVE(library, stream_queue_buffer, "pw_stream_queue_buffer")
        || !RESOLVE(library, stream_set_active, "pw_stream_set_active")) {
        load_failure = "libpipewire-0.3.so.0 lacks a function noti-play needs";
        return;
    }
    pw.init(NULL, NULL);
}

const char *noti_pw_load(void) {
    /* Fails only for an invalid once-control, which this static one is not. */
    pthread_once(&load_once, load);
    return load_failure;
}

static int is_socket(const char *directory, const char *name) {
    struct sockaddr_un address;
    int length = directory ? snprintf(address.sun_path, sizeof address.sun_path, "%s/%s", directory, name)
                           : snprintf(address.sun_path, sizeof address.sun_path, "%s", name);
    struct stat status;
    return length > 0 && (size_t)length < sizeof address.sun_path && stat(address.sun_path, &status) == 0
        && S_ISSOCK(status.st_mode);
}

/* Where the server's socket is, by module-protocol-native's rules (local-socket.c): the
 * environment's remote before the caller's, an absolute path as it is, else the user's runtime
 * folder, then the system's. Writes the first of those that is a socket to `path` and returns 1;
 * else writes the first place looked at (what a message names) and returns 0. */
static int server_socket(const char *remote, char *path, size_t path_size) {
    const char *name = getenv("PIPEWIRE_REMOTE");
    if (!name || !*name) name = remote;
    if (!name || !*name) name = "pipewire-0";
    if (name[0] == '/') {
        snprintf(path, path_size, "%s", name);
        return is_socket(NULL, name);
    }
    const char *runtime = getenv("PIPEWIRE_RUNTIME_DIR");
    if (!runtime) runtime = getenv("XDG_RUNTIME_DIR");
    if (!runtime) runtime = getenv("USERPROFILE");
    if (runtime && is_socket(runtime, name)) {
        snprintf(path, path_size, "%s/%s", runtime, name);
        return 1;
    }
    if (is_socket("/run/pipewire", name)) {
        snprintf(path, path_size, "/run/pipewire/%s", name);
        return 1;
    }
    snprintf(path, path_size, "%s/%s", runtime ? runtime : "/run/pipewire", name);
    return 0;
}

int noti_pw_server_socket_exists(const char *remote) {
    char path[sizeof ((struct sockaddr_un *)0)->sun_path];
    return server_socket(remote, path, sizeof path);
}

void noti_pw_server_socket_path(const char *remote, char *path, size_t path_size) {
    (void)server_socket(remote, path, path_size);
}

static int64_t monotonic_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

/* Whole milliseconds to wait for `us` microseconds (rounded up: a wait never ends early). */
static int wait_ms(int64_t us) {
    int64_t ms = (us + 999) / 1000;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

/* A rate, count or size the server states: a number within 1...limit, else 0. */
static unsigned int parse_count(const char *text, unsigned long limit) {
    if (!text) return 0;
    char *end;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && value >= 1 && value <= limit ? (unsigned int)value : 0;
}

/* A connection to the server: its loop, context and core, and what the core and the registry
 * said. Only the thread that has entered the loop calls libpipewire on it: the one that
 * connects, then (for a stream) the stream's loop thread, then that thread's teardown. (While no
 * thread has entered it, libpipewire would run another thread's invokes into it inline.) */
typedef struct {
    struct pw_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct spa_hook core_listener;
    struct pw_registry *registry;
    struct spa_hook registry_listener;
    struct pw_proxy *settings;
    struct spa_hook settings_listener;
    int synced;               /* the seq of the latest sync the server answered */
    int failure;              /* a negative errno once the connection failed or was lost */
    char failure_text[160];
    char version[32], name[64];
    unsigned int default_rate, quantum_limit;  /* the core's default.clock.* */
    unsigned int settings_rate, forced_rate;   /* the settings metadata's clock.rate, clock.force-rate */
    uint32_t settings_id;
    void (*sink)(void *, const char *, const char *);
    void *sink_user;
    const char *target;       /* a sink asked for by node.name or object.serial: is it there? */
    int target_found;
    void (*failed)(void *);  /* told when `failure` is set: the stream, which fails with it */
    void *failed_user;
} connection;

static void on_core_info(void *data, const struct pw_core_info *info) {
    connection *c = data;
    if (info->version) snprintf(c->version, sizeof c->version, "%s", info->version);
    if (info->name) snprintf(c->name, sizeof c->name, "%s", info->name);
    if (info->props) {
        unsigned int rate = parse_count(spa_dict_lookup(info->props, "default.clock.rate"), NOTI_PW_MAX_RATE);
        unsigned int limit = parse_count(spa_dict_lookup(info->props, "default.clock.quantum-limit"), 1u << 20);
        if (rate) c->default_rate = rate;
        if (limit) c->quantum_limit = limit;
    }
}

static void on_core_done(void *data, uint32_t id, int seq) {
    if (id == PW_ID_CORE) ((connection *)data)->synced = seq;
}

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq;
    connection *c = data;
    /* Errors of other objects (a stream the server refused) reach their own listeners. */
    if (id != PW_ID_CORE || c->failure) return;
    /* -EPIPE: the connection broke (the server went away). */
    c->failure = res == -EPIPE ? -ECONNRESET : (res < 0 ? res : -EIO);
    snprintf(c->failure_text, sizeof c->failure_text, "%s", message ? message : "the server went away");
    if (c->failed) c->failed(c->failed_user);
}

static const struct pw_core_events core_events = {
    PW_VERSION_CORE_EVENTS,
    .info = on_core_info,
    .done = on_core_done,
    .error = on_core_error,
};

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                      const struct spa_dict *props) {
    (void)permissions;
    (void)version;
    connection *c = data;
    if (!props || !type) return;
    if (strcmp(type, PW_TYPE_INTERFACE_Metadata) == 0) {
        const char *name = spa_dict_lookup(props, PW_KEY_METADATA_NAME);
        if (name && strcmp(name, "settings") == 0) c->settings_id = id;
    } else if ((c->sink || c->target) && strcmp(type, PW_TYPE_INTERFACE_Node) == 0) {
        /* A sink is what --list-devices lists and what a target may name: the same test. */
        const char *class = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
        const char *name = spa_dict_lookup(props, PW_KEY_NODE_NAME);
        const char *description = spa_dict_lookup(props, PW_KEY_NODE_DESCRIPTION);
        if (!class || !name || strcmp(class, "Audio/Sink") != 0) return;
        if (c->sink) c->sink(c->sink_user, name, description ? description : "");
        /* target.object takes a node.name or an object.serial (as the session manager reads it). */
        const char *serial = spa_dict_lookup(props, PW_KEY_OBJECT_SERIAL);
        if (c->target && (strcmp(name, c->target) == 0 || (serial && strcmp(serial, c->target) == 0))) c->target_found = 1;
    }
}

static const struct pw_registry_events registry_events = {
    PW_VERSION_REGISTRY_EVENTS,
    .global = on_global,
};

static int on_setting(void *data, uint32_t subject, const char *key, const char *type, const char *value) {
    (void)type;
    connection *c = data;
    if (subject != PW_ID_CORE || !key) return 0;
    /* A forced rate of 0 is no force: parse_count makes it 0 too. */
    if (strcmp(key, "clock.rate") == 0) c->settings_rate = parse_count(value, NOTI_PW_MAX_RATE);
    else if (strcmp(key, "clock.force-rate") == 0) c->forced_rate = parse_count(value, NOTI_PW_MAX_RATE);
    return 0;
}

static const struct pw_metadata_events settings_events = {
    PW_VERSION_METADATA_EVENTS,
    .property = on_setting,
};

/* One pass of the loop: waits at most `timeout_ms` (-1: until something happens) for the
 * server, the data thread or an interrupt, and runs what arrived. A loop that cannot wait is
 * a lost connection (it would spin otherwise). */
static void iterate(connection *c, int timeout_ms) {
    int result = pw_loop_iterate(c->loop, timeout_ms);
    if (result < 0 && result != -EINTR && !c->failure) {
        c->failure = -EIO;
        snprintf(c->failure_text, sizeof c->failure_text, "its loop failed: %s", strerror(-result));
    }
}

/* Runs the loop until `done(c, argument)`, the connection fails, or `deadline_us` passes.
 * Returns 0 when done, else a negative errno. */
static int run_until(connection *c, int (*done)(connection *, int), int argument, int64_t deadline_us) {
    while (!done(c, argument)) {
        if (c->failure) return c->failure;
        int64_t left = deadline_us - monotonic_us();
        if (left <= 0) return -ETIMEDOUT;
        iterate(c, wait_ms(left));
    }
    return 0;
}

static int synced(connection *c, int seq) { return c->synced == seq; }

/* Waits until the server has answered everything asked of it so far. */
static int round_trip(connection *c, int64_t deadline_us) {
    int seq = pw_core_sync(c->core, PW_ID_CORE, 0);
    return seq < 0 ? seq : run_until(c, synced, seq, deadline_us);
}

/* Disconnects and destroys the loop, on the thread that has entered it. */
static void disconnect(connection *c) {
    if (c->settings) pw.proxy_destroy(c->settings);
    if (c->registry) pw.proxy_destroy((struct pw_proxy *)c->registry);
    c->settings = NULL;
    c->registry = NULL;
    if (c->core) pw.core_disconnect(c->core);
    if (c->context) pw.context_destroy(c->context);  /* stops its data thread */
    c->core = NULL;
    c->context = NULL;
    if (c->loop) {
        pw_loop_leave(c->loop);
        pw.loop_destroy(c->loop);
    }
    c->loop = NULL;
}

/* Connects to `remote` and lists its globals (to `c->sink`); with `rate_wanted`, reads the
 * graph's clock rate from the settings metadata. Returns 0, or a negative errno with the reason
 * in `error`. */
static int connect_server(connection *c, const char *remote, int rate_wanted, int64_t deadline_us, char *error,
                          size_t error_size) {
    const char *failure = noti_pw_load();
    if (failure) {
        snprintf(error, error_size, "%s", failure);
        return -ENOENT;
    }
    c->loop = pw.loop_new(NULL);
    if (!c->loop) {
        int code = errno ? -errno : -ENOMEM;
        snprintf(error, error_size, "cannot make a loop: %s", strerror(-code));
        return code;
    }
    pw_loop_enter(c->loop);
    /* client.conf, not pw-play's client-rt.conf: its module-rt would load libdbus and ask RTKit
     * for the data thread's priority over the system bus at every start (4-7 ms more to open,
     * measured); noti_pw_open asks for it as the render thread does. No D-Bus support either. */
    struct spa_dict_item context_items[] = {{"support.dbus", "false"}};
    struct spa_dict context_dict = SPA_DICT_INIT_ARRAY(context_items);
    c->context = pw.context_new(c->loop, pw.properties_new_dict(&context_dict), 0);
    if (!c->context) {
        int code = errno ? -errno : -ENOMEM;
        snprintf(error, error_size, "cannot start libpipewire: %s", strerror(-code));
        return code;
    }
    struct spa_dict_item core_items[] = {{PW_KEY_REMOTE_NAME, remote}};
    struct spa_dict core_dict = SPA_DICT_INIT(core_items, remote ? 1 : 0);
    c->core = pw.context_connect(c->context, pw.properties_new_dict(&core_dict), 0);
    if (!c->core) {
        int code = errno ? -errno : -ECONNREFUSED;
        /* The socket libpipewire tried, not the name it was given (PIPEWIRE_REMOTE may name
         * another); libpipewire says EHOSTDOWN where no socket is there at all. */
        char path[sizeof ((struct sockaddr_un *)0)->sun_path];
        noti_pw_server_socket_path(remote, path, sizeof path);
        if (code == -EHOSTDOWN || code == -ENOENT) {
            snprintf(error, error_size, "no PipeWire server at %s", path);
        } else if (code == -ECONNREFUSED) {
            snprintf(error, error_size, "no PipeWire server at %s: its socket refuses connections", path);
        } else {
            snprintf(error, error_size, "cannot connect to the PipeWire server at %s: %s", path, strerror(-code));
        }
        return code;
    }
    pw_core_add_listener(c->core, &c->core_listener, &core_events, c);
    c->settings_id = SPA_ID_INVALID;
    c->registry = pw_core_get_registry(c->core, PW_VERSION_REGISTRY, 0);
    if (!c->registry) {
        snprintf(error, error_size, "cannot list the server's objects");
        return -ENOMEM;
    }
    pw_registry_add_listener(c->registry, &c->registry_listener, &registry_events, c);
    int result = round_trip(c, deadline_us);
    if (result == 0 && rate_wanted && c->settings_id != SPA_ID_INVALID) {
        c->settings = pw_registry_bind(c->registry, c->settings_id, PW_TYPE_INTERFACE_Metadata, PW_VERSION_METADATA, 0);
        if (c->settings) {
            pw_metadata_add_listener((struct pw_metadata *)c->settings, &c->settings_listener, &settings_events, c);
            result = round_trip(c, deadline_us);
        }
    }
    if (result < 0) {
        snprintf(error, error_size, "%s", result == -ETIMEDOUT ? "the PipeWire server did not answer in time"
                                          : c->failure ? c->failure_text : strerror(-result));
        return result;
    }
    /* Nothing more is asked of the registry: its events would only wake the loop. */
    if (c->settings) pw.proxy_destroy(c->settings);
    pw.proxy_destroy((struct pw_proxy *)c->registry);
    c->settings = NULL;
    c->registry = NULL;
    return 0;
}

/* The graph's rate now: its forced rate, else its clock rate, else the configured default. */
static unsigned int clock_rate(const connection *c) {
    if (c->forced_rate) return c->forced_rate;
    if (c->settings_rate) return c->settings_rate;
    return c->default_rate ? c->default_rate : 48000;
}

int noti_pw_survey(const char *remote, int timeout_ms, noti_pw_server *server,
                   void (*sink)(void *user, const char *name, const char *description), void *user, char *error,
                   size_t error_size) {
    connection c = {.sink = sink, .sink_user = user};
    int result = connect_server(&c, remote, 1, monotonic_us() + (int64_t)timeout_ms * 1000, error, error_size);
    if (result == 0) {
        snprintf(server->version, sizeof server->version, "%s", c.version);
        snprintf(server->name, sizeof server->name, "%s", c.name);
        server->clock_rate = clock_rate(&c);
    }
    disconnect(&c);
    return result;
}

/* ALSA's names for SPA's channel positions (SPA names them after ALSA), both ways. */
static const struct {
    const char *name;
    uint32_t position;
} speakers[] = {
    {"MONO", SPA_AUDIO_CHANNEL_MONO}, {"FL", SPA_AUDIO_CHANNEL_FL},     {"FR", SPA_AUDIO_CHANNEL_FR},
    {"FC", SPA_AUDIO_CHANNEL_FC},     {"LFE", SPA_AUDIO_CHANNEL_LFE},   {"SL", SPA_AUDIO_CHANNEL_SL},
    {"SR", SPA_AUDIO_CHANNEL_SR},     {"FLC", SPA_AUDIO_CHANNEL_FLC},   {"FRC", SPA_AUDIO_CHANNEL_FRC},
    {"RC", SPA_AUDIO_CHANNEL_RC},     {"RL", SPA_AUDIO_CHANNEL_RL},     {"RR", SPA_AUDIO_CHANNEL_RR},
    {"TC", SPA_AUDIO_CHANNEL_TC},     {"TFL", SPA_AUDIO_CHANNEL_TFL},   {"TFC", SPA_AUDIO_CHANNEL_TFC},
    {"TFR", SPA_AUDIO_CHANNEL_TFR},   {"TRL", SPA_AUDIO_CHANNEL_TRL},   {"TRC", SPA_AUDIO_CHANNEL_TRC},
    {"TRR", SPA_AUDIO_CHANNEL_TRR},   {"RLC", SPA_AUDIO_CHANNEL_RLC},   {"RRC", SPA_AUDIO_CHANNEL_RRC},
    {"FLW", SPA_AUDIO_CHANNEL_FLW},   {"FRW", SPA_AUDIO_CHANNEL_FRW},   {"FLH", SPA_AUDIO_CHANNEL_FLH},
    {"FCH", SPA_AUDIO_CHANNEL_FCH},   {"FRH", SPA_AUDIO_CHANNEL_FRH},   {"TFLC", SPA_AUDIO_CHANNEL_TFLC},
    {"TFRC", SPA_AUDIO_CHANNEL_TFRC}, {"TSL", SPA_AUDIO_CHANNEL_TSL},   {"TSR", SPA_AUDIO_CHANNEL_TSR},
    {"LLFE", SPA_AUDIO_CHANNEL_LLFE}, {"RLFE", SPA_AUDIO_CHANNEL_RLFE}, {"BC", SPA_AUDIO_CHANNEL_BC},
    {"BLC", SPA_AUDIO_CHANNEL_BLC},   {"BRC", SPA_AUDIO_CHANNEL_BRC},
};

/* The speakers of WAVE's channel mask, in its bit order (ALSA's rear are WAVE's back). */
static const uint32_t wave_order[] = {
    SPA_AUDIO_CHANNEL_FL,  SPA_AUDIO_CHANNEL_FR,  SPA_AUDIO_CHANNEL_FC,  SPA_AUDIO_CHANNEL_LFE, SPA_AUDIO_CHANNEL_RL,
    SPA_AUDIO_CHANNEL_RR,  SPA_AUDIO_CHANNEL_FLC, SPA_AUDIO_CHANNEL_FRC, SPA_AUDIO_CHANNEL_RC,  SPA_AUDIO_CHANNEL_SL,
    SPA_AUDIO_CHANNEL_SR,  SPA_AUDIO_CHANNEL_TC,  SPA_AUDIO_CHANNEL_TFL, SPA_AUDIO_CHANNEL_TFC, SPA_AUDIO_CHANNEL_TFR,
    SPA_AUDIO_CHANNEL_TRL, SPA_AUDIO_CHANNEL_TRC, SPA_AUDIO_CHANNEL_TRR,
};

static uint32_t position_named(const char *name) {
    for (size_t i = 0; name && i < SPA_N_ELEMENTS(speakers); i++) {
        if (strcmp(speakers[i].name, name) == 0) return speakers[i].position;
    }
    return SPA_ID_INVALID;
}

static const char *name_of_position(uint32_t position) {
    for (size_t i = 0; i < SPA_N_ELEMENTS(speakers); i++) {
        if (speakers[i].position == position) return speakers[i].name;
    }
    return NULL;  /* AUX: no speaker */
}

/* A take-back's progress: asked by the render thread, applied by the process callback. */
enum { CUT_NONE = 0, CUT_ASKED = 1, CUT_APPLIED = 2 };

/*
 * The stream. Three threads share it, each with its own part:
 * - the render thread (the noti_pw_* calls but open and close) writes the ring and asks;
 * - libpipewire's data thread runs the process callback (PW_STREAM_FLAG_RT_PROCESS) at each
 *   graph cycle, which takes one cycle from the ring into the buffer the server asked for, so
 *   that the server holds nothing ahead of the cycle it plays (a stop is heard within it);
 * - the stream's loop thread (ours) runs the connection: the server's messages (the graph
 *   starting and stopping, links, errors), the stream's events, and the render thread's requests.
 *   The server waits for a client's answers (a sink does not start while a stream on it owes
 *   one, for any client): the loop must run all the time, not only inside the render thread's
 *   calls.
 * They meet through atomics and two eventfds: no locks, and the render thread never calls
 * libpipewire.
 */
struct noti_pw {
    connection connection;
    struct pw_stream *stream;
    struct spa_hook stream_listener;
    pthread_t loop_thread;
    int loop_thread_started;
    int control_fd;  /* wakes the loop thread: a request, or the end */
    int wake_fd;     /* wakes the render thread: room, a take-back applied, a cycle while draining, lost, interrupted */
    struct spa_source *control;
    int format;
    unsigned int rate, channels;
    size_t frame_bytes;
    /* The ring: frame k at k % ring_frames. The render thread writes frames and then moves
     * `written`; the process callback reads from `given` and then moves it. Its room is
     * `buffer_frames`, or a graph cycle and a period where the graph's cycle is longer (else the
     * render thread, waiting for a period of room, and the callback, waiting for a whole cycle,
     * would wait for each other). */
    unsigned char *ring;
    uint64_t ring_frames, buffer_frames, period_frames;
    _Atomic uint64_t written, given;
    _Atomic uint64_t cycle_frames;  /* what the server asked for last (the graph's quantum) */
    /* A take-back: `cut_fade` frames asked (CUT_ASKED); the ring ends at `cut_end` once the
     * callback faded them (CUT_APPLIED), until the render thread takes that end as its own. */
    uint64_t cut_fade;
    _Atomic uint64_t cut_end;
    atomic_int cut;
    atomic_int draining;    /* the callback gives the ring's last frames, less than a cycle, too */
    _Atomic uint64_t cycles;  /* the callback's calls: a graph cycle each while the node runs */
    atomic_int discarding;  /* dropped: the callback discards what the ring holds */
    atomic_int given_since_active;
    atomic_int waiting;     /* the render thread is (about to be) blocked on wake_fd */
    int active;             /* the render thread's: the node asked to run (from open, or a write, to a drain) */
    uint64_t drain_mark;    /* the render thread's: `cycles` when a drain had given the ring */
    /* Requests to the loop thread: the node's state, the end. */
    atomic_int want_active, quit;
    int applied_active;     /* the loop thread's */
    atomic_int opened;      /* the stream reached PAUSED: the server has it */
    atomic_int lost;        /* a negative errno once the stream failed or the server went away */
    char lost_text[160];    /* written before `lost` */
    /* A stop asked the render thread to look now (consumed by the wait it ends); the stream is
     * being closed (every wait ends, the drain too). */
    atomic_int woken, closing;
};

static void signal_fd(int fd) {
    /* Fails only when the counter would overflow, which leaves it readable anyway. */
    (void)eventfd_write(fd, 1);
}

/* The loop thread's: the stream or the connection failed (once; the first reason stays). */
static void mark_lost(noti_pw *p, int code, const char *reason) {
    if (atomic_load(&p->lost)) return;
    snprintf(p->lost_text, sizeof p->lost_text, "%s", reason);
    atomic_store(&p->lost, code);
    signal_fd(p->wake_fd);
}

/* The connection failed (the server went away, or refused this client). */
static void on_connection_failed(void *data) {
    noti_pw *p = data;
    mark_lost(p, p->connection.failure, p->connection.failure_text);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    (void)old;
    noti_pw *p = data;
    if (state == PW_STREAM_STATE_PAUSED || state == PW_STREAM_STATE_STREAMING) atomic_store(&p->opened, 1);
    if (state == PW_STREAM_STATE_ERROR || state == PW_STREAM_STATE_UNCONNECTED) {
        /* UNCONNECTED follows the core's error when the server went away: that one says more. */
        if (p->connection.failure) mark_lost(p, p->connection.failure, p->connection.failure_text);
        else mark_lost(p, -ENOTCONN, error ? error : "the server dropped the stream");
    }
}

static uint64_t ring_limit(const noti_pw *p, uint64_t cycle) {
    uint64_t limit = cycle + p->period_frames;
    if (limit < p->buffer_frames) limit = p->buffer_frames;
    return limit < p->ring_frames ? limit : p->ring_frames;
}

/* Copies `count` frames out of the ring from index `at`, in the runs its wrapping leaves (or
 * into it, with `store`). */
static void copy_ring(noti_pw *p, unsigned char *frames, uint64_t at, uint64_t count, int store) {
    while (count > 0) {
        uint64_t slot = at % p->ring_frames;
        uint64_t run = p->ring_frames - slot < count ? p->ring_frames - slot : count;
        unsigned char *kept = p->ring + slot * p->frame_bytes;
        size_t bytes = (size_t)(run * p->frame_bytes);
        if (store) memcpy(kept, frames, bytes); else memcpy(frames, kept, bytes);
        frames += bytes;
        at += run;
        count -= run;
    }
}

/* Scales `count` frames of the stream's format at `frames` by a ramp falling from just under 1
 * (frame `first` of a fade `length` long) to 0 at the fade's last frame. */
static void fade(noti_pw *p, unsigned char *frames, uint64_t first, uint64_t count, uint64_t length) {
    for (uint64_t frame = 0; frame < count; frame++) {
        float gain = (float)(length - 1 - (first + frame)) / (float)length;
        unsigned char *samples = frames + frame * p->frame_bytes;
        for (unsigned int channel = 0; channel < p->channels; channel++) {
            switch (p->format) {
            case NOTI_PW_FLOAT32: ((float *)samples)[channel] *= gain; break;
            case NOTI_PW_S32: ((int32_t *)samples)[channel] = (int32_t)((double)((int32_t *)samples)[channel] * gain); break;
            default: ((int16_t *)samples)[channel] = (int16_t)((float)((int16_t *)samples)[channel] * gain); break;
            }
        }
    }
}

/* The data thread's, at each graph cycle that needs sound (real-time: no allocation, no lock,
 * no call that blocks). Gives the server a whole cycle from the ring, or the ring's last frames
 * while draining; with less, an empty buffer (the server plays silence for the cycle, as for any
 * stream that is late). */
static void on_process(void *data) {
    noti_pw *p = data;
    atomic_fetch_add_explicit(&p->cycles, 1, memory_order_relaxed);
    uint64_t given = atomic_load_explicit(&p->given, memory_order_relaxed);
    /* The take-back's state before `written`: settle_cut moves `written` back before it clears
     * the state, so an end read after a cleared state is the settled one. */
    int cut = atomic_load_explicit(&p->cut, memory_order_acquire);
    uint64_t end = atomic_load_explicit(&p->written, memory_order_acquire);
    int news = 0;
    if (cut == CUT_ASKED) {
        /* The render thread asked for it only with more than a cycle beyond the fade held. */
        uint64_t length = p->cut_fade < end - given ? p->cut_fade : end - given;
        for (uint64_t done = 0; done < length;) {
            uint64_t slot = (given + done) % p->ring_frames;
            uint64_t run = p->ring_frames - slot < length - done ? p->ring_frames - slot : length - done;
            fade(p, p->ring + slot * p->frame_bytes, done, run, length);
            done += run;
        }
        atomic_store_explicit(&p->cut_end, given + length, memory_order_relaxed);
        atomic_store_explicit(&p->cut, CUT_APPLIED, memory_order_release);
        cut = CUT_APPLIED;
        news = 1;
    }
    if (cut == CUT_APPLIED) {
        uint64_t cut_end = atomic_load_explicit(&p->cut_end, memory_order_relaxed);
        if (cut_end < end) end = cut_end;
    }
    int draining = atomic_load_explicit(&p->draining, memory_order_relaxed);
    uint64_t cycle = atomic_load_explicit(&p->cycle_frames, memory_order_relaxed);
    if (!cycle) cycle = p->period_frames;
    if (atomic_load_explicit(&p->discarding, memory_order_relaxed)) {
        given = end;
    } else if (end > given) {
        /* The cycle's length is known only from the buffer: the first cycle after the open, or
         * one longer than the last, would otherwise take a short ring for a whole cycle. */
        struct pw_buffer *buffer = pw.stream_dequeue_buffer(p->stream);
        struct spa_data *out = buffer ? &buffer->buffer->datas[0] : NULL;
        if (out && out->data) {
            uint64_t capacity = out->maxsize / p->frame_bytes;
            if (buffer->requested) cycle = buffer->requested;
            if (cycle > capacity) cycle = capacity;
            atomic_store_explicit(&p->cycle_frames, cycle, memory_order_relaxed);
        }
        if (out && out->data && (end - given >= cycle || draining)) {
            uint64_t count = end - given < cycle ? end - given : cycle;
            copy_ring(p, out->data, given, count, 0);
            given += count;
            /* A drain's last frames fill their cycle with silence: a short buffer's frames
             * would wait in the server's converter for the next cycle, which never comes. */
            memset((unsigned char *)out->data + count * p->frame_bytes, 0, (size_t)((cycle - count) * p->frame_bytes));
            out->chunk->offset = 0;
            out->chunk->stride = (int32_t)p->frame_bytes;
            out->chunk->size = (uint32_t)(cycle * p->frame_bytes);
            buffer->size = cycle;
            atomic_store_explicit(&p->given_since_active, 1, memory_order_relaxed);
        } else if (out) {
            /* Short of a cycle (or unmapped): the whole cycle is silent, and the sound goes on,
             * whole, at the next one, rather than with a silence inside it. */
            out->chunk->size = 0;
        }
        if (buffer) pw.stream_queue_buffer(p->stream, buffer);
    }
    /* The store and the load below, against the render thread's store of `waiting` and its look
     * at `given`: one of the two sees the other's (sequentially consistent), so no wake-up is lost. */
    atomic_store(&p->given, given);
    if (atomic_load(&p->waiting)) {
        uint64_t held = atomic_load_explicit(&p->written, memory_order_relaxed) - given;
        uint64_t limit = ring_limit(p, cycle);
        if (news || draining || (held < limit && limit - held >= p->period_frames)) signal_fd(p->wake_fd);
    }
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .process = on_process,
};

/* The loop thread's: what the render thread asked (noti_pw_write, noti_pw_drain, noti_pw_drop). */
static void on_control(void *data, int fd, uint32_t mask) {
    (void)mask;
    noti_pw *p = data;
    eventfd_t count;
    (void)eventfd_read(fd, &count);
    int active = atomic_load(&p->want_active);
    if (active != p->applied_active) {
        pw.stream_set_active(p->stream, active);
        p->applied_active = active;
    }
}

static void *run_loop(void *data) {
    noti_pw *p = data;
    pw_loop_enter(p->connection.loop);
    while (!atomic_load(&p->quit)) {
        int result = pw_loop_iterate(p->connection.loop, -1);
        if (result < 0 && result != -EINTR) {
            /* A loop that cannot wait would spin: the stream is lost, and this thread only
             * waits for the end. */
            mark_lost(p, -EIO, "the stream's loop failed");
            struct pollfd end = {.fd = p->control_fd, .events = POLLIN};
            while (!atomic_load(&p->quit)) poll(&end, 1, -1);
        }
    }
    /* The teardown is this thread's too: it has the loop entered. */
    if (p->control) pw_loop_destroy_source(p->connection.loop, p->control);
    if (p->stream) pw.stream_destroy(p->stream);
    p->stream = NULL;
    disconnect(&p->connection);
    return NULL;
}

static int stream_opened(connection *c, int argument) {
    (void)argument;
    noti_pw *p = SPA_CONTAINER_OF(c, noti_pw, connection);
    return atomic_load(&p->opened) || atomic_load(&p->lost);
}

/* Closes what `noti_pw_open` had opened, with `reason` (if the error does not say it yet). */
static noti_pw *fail_open(noti_pw *p, int code, const char *reason, char *error, size_t error_size, int *result) {
    if (reason) snprintf(error, error_size, "%s", reason);
    *result = code;
    noti_pw_close(p);
    return NULL;
}

noti_pw *noti_pw_open(const noti_pw_request *request, noti_pw_agreed *agreed, int timeout_ms, char *error,
                      size_t error_size, int *code) {
    static const enum spa_audio_format formats[] = {SPA_AUDIO_FORMAT_F32, SPA_AUDIO_FORMAT_S32, SPA_AUDIO_FORMAT_S16};
    static const size_t sample_bytes[] = {4, 4, 2};
    if (request->format < 0 || request->format > 2 || request->channels < 1 || request->channels > NOTI_PW_MAX_CHANNELS
        || request->rate > NOTI_PW_MAX_RATE || request->buffer_us < 1 || request->period_us < 1
        || request->buffer_us > 10000000 || request->period_us > request->buffer_us) {
        snprintf(error, error_size, "the stream asked for is not one the server plays");
        *code = -EINVAL;
        return NULL;
    }
    uint32_t positions[NOTI_PW_MAX_CHANNELS];
    for (unsigned int channel = 0; channel < request->channels; channel++) {
        if (request->positions) {
            positions[channel] = position_named(request->positions[channel]);
            if (positions[channel] == SPA_ID_INVALID) {
                snprintf(error, error_size, "no speaker is called '%s'", request->positions[channel]);
                *code = -EINVAL;
                return NULL;
            }
        } else if (request->channels == 1) {
            positions[channel] = SPA_AUDIO_CHANNEL_MONO;
        } else {
            positions[channel] = channel < SPA_N_ELEMENTS(wave_order) ? wave_order[channel]
                                                                      : SPA_AUDIO_CHANNEL_AUX0 + channel - SPA_N_ELEMENTS(wave_order);
        }
    }
    noti_pw *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(error, error_size, "out of memory");
        *code = -ENOMEM;
        return NULL;
    }
    p->control_fd = p->wake_fd = -1;
    p->control_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    p->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (p->control_fd < 0 || p->wake_fd < 0) return fail_open(p, -errno, "cannot make an eventfd", error, error_size, code);
    int64_t deadline = monotonic_us() + (int64_t)timeout_ms * 1000;
    p->connection.failed = on_connection_failed;
    p->connection.failed_user = p;
    p->connection.target = request->target;
    int result = connect_server(&p->connection, request->remote, request->rate == 0, deadline, error, error_size);
    if (result < 0) return fail_open(p, result, NULL, error, error_size, code);
    /* A sink named but not there: refused, as PulseAudio refuses it. The session manager would
     * send the stream to the default sink instead (a sound where the user said not to play). */
    if (request->target && !p->connection.target_found) {
        char path[sizeof ((struct sockaddr_un *)0)->sun_path];
        noti_pw_server_socket_path(request->remote, path, sizeof path);
        snprintf(error, error_size, "the PipeWire server at %s has no sink of that name", path);
        return fail_open(p, -ENODEV, NULL, error, error_size, code);
    }

    p->format = request->format;
    p->rate = request->rate ? request->rate : clock_rate(&p->connection);
    p->channels = request->channels;
    p->frame_bytes = sample_bytes[request->format] * request->channels;
    p->period_frames = (uint64_t)p->rate * request->period_us / 1000000;
    p->buffer_frames = (uint64_t)p->rate * request->buffer_us / 1000000;
    if (p->period_frames < 1) p->period_frames = 1;
    if (p->buffer_frames < p->period_frames) p->buffer_frames = p->period_frames;
    /* Room for the longest graph cycle the server allows beside the buffer (see ring_limit). */
    p->ring_frames = p->buffer_frames + p->period_frames + (p->connection.quantum_limit ? p->connection.quantum_limit : 8192);
    p->ring = malloc((size_t)(p->ring_frames * p->frame_bytes));
    p->control = pw_loop_add_io(p->connection.loop, p->control_fd, SPA_IO_IN, false, on_control, p);
    if (!p->ring || !p->control) return fail_open(p, -ENOMEM, "out of memory", error, error_size, code);

    /* The caller's properties, then the latency and the target. */
    struct spa_dict_item items[35];
    uint32_t count = 0;
    const char *name = "noti-play";
    for (const char *const *pair = request->properties; pair && pair[0] && pair[1] && count < 32; pair += 2) {
        items[count++] = SPA_DICT_ITEM_INIT(pair[0], pair[1]);
        if (strcmp(pair[0], PW_KEY_NODE_NAME) == 0) name = pair[1];
    }
    /* The graph's cycle asked for: a period (the server may run shorter cycles for others). */
    char latency[32];
    snprintf(latency, sizeof latency, "%u/%u", (unsigned int)p->period_frames, p->rate);
    items[count++] = SPA_DICT_ITEM_INIT(PW_KEY_NODE_LATENCY, latency);
    if (request->target) {
        items[count++] = SPA_DICT_ITEM_INIT(PW_KEY_TARGET_OBJECT, request->target);
        /* Should the sink go away before the link or while it plays, the session manager
         * destroys the stream (which fails the voice) rather than moving it to another sink. */
        items[count++] = SPA_DICT_ITEM_INIT(PW_KEY_NODE_DONT_RECONNECT, "true");
    }
    struct spa_dict dict = SPA_DICT_INIT(items, count);
    p->stream = pw.stream_new(p->connection.core, name, pw.properties_new_dict(&dict));
    if (!p->stream) return fail_open(p, -ENOMEM, "cannot make a stream", error, error_size, code);
    pw.stream_add_listener(p->stream, &p->stream_listener, &stream_events, p);

    struct spa_audio_info_raw info = {.format = formats[request->format], .rate = p->rate, .channels = request->channels};
    memcpy(info.position, positions, request->channels * sizeof positions[0]);
    uint8_t pod[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(pod, sizeof pod);
    const struct spa_pod *params[] = {spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info)};
    /* Active from the start, though nothing is written yet: the session manager links an
     * active stream while the first sound is decoded; one connected inactive was linked only
     * once the first write made it active, about 40 ms later (the first write's first cycle came
     * 47-50 ms after it in 4 runs of 6, 7-10 ms connected active). A drain sets it inactive:
     * linked, it starts again within 6 ms. */
    p->active = p->applied_active = 1;
    atomic_store(&p->want_active, 1);
    result = pw.stream_connect(p->stream, PW_DIRECTION_OUTPUT, PW_ID_ANY,
                               PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
    if (result >= 0) result = run_until(&p->connection, stream_opened, 0, deadline);
    if (result >= 0 && atomic_load(&p->lost)) result = atomic_load(&p->lost);
    if (result < 0) {
        const char *reason = result == -ETIMEDOUT ? "the PipeWire server did not take the stream in time"
                             : atomic_load(&p->lost) ? p->lost_text : strerror(-result);
        snprintf(error, error_size, "the PipeWire server refused the stream: %s", reason);
        return fail_open(p, result == -ETIMEDOUT ? result : -ENOTCONN, NULL, error, error_size, code);
    }

    /* The data thread meets the graph's deadline at each cycle: SCHED_FIFO, one above the render
     * thread's 20 (RenderThread.requestRealtimeScheduling, which has the ring's margin); refused
     * quietly, as the render thread's is, without CAP_SYS_NICE or an rtprio limit. */
    struct pw_data_loop *data_loop = pw.context_get_data_loop(p->connection.context);
    struct spa_thread *data_thread = data_loop ? pw.data_loop_get_thread(data_loop) : NULL;
    if (data_thread) {
        struct sched_param priority = {.sched_priority = 21};
        (void)pthread_setschedparam((pthread_t)(uintptr_t)data_thread, SCHED_FIFO, &priority);
    }

    /* From here the loop thread runs the loop. */
    pw_loop_leave(p->connection.loop);
    result = pthread_create(&p->loop_thread, NULL, run_loop, p);
    if (result != 0) {
        pw_loop_enter(p->connection.loop);
        return fail_open(p, -result, "cannot start the stream's thread", error, error_size, code);
    }
    p->loop_thread_started = 1;
    pthread_setname_np(p->loop_thread, "noti-pw-loop");  /* only ERANGE, which this name is not */

    agreed->rate = p->rate;
    agreed->buffer_frames = (unsigned int)p->buffer_frames;
    agreed->period_frames = (unsigned int)p->period_frames;
    for (unsigned int channel = 0; channel < NOTI_PW_MAX_CHANNELS; channel++) {
        agreed->speakers[channel] = channel < request->channels ? name_of_position(positions[channel]) : NULL;
    }
    snprintf(agreed->server_version, sizeof agreed->server_version, "%s", p->connection.version);
    return p;
}

void noti_pw_close(noti_pw *p) {
    if (!p) return;
    if (p->loop_thread_started) {
        atomic_store(&p->quit, 1);
        signal_fd(p->control_fd);
        pthread_join(p->loop_thread, NULL);  /* it tears the stream and the connection down */
    } else {
        /* A failed open, on the thread that entered the loop. */
        if (p->control) pw_loop_destroy_source(p->connection.loop, p->control);
        if (p->stream) pw.stream_destroy(p->stream);
        disconnect(&p->connection);
    }
    if (p->control_fd >= 0) close(p->control_fd);
    if (p->wake_fd >= 0) close(p->wake_fd);
    free(p->ring);
    free(p);
}

/* The render thread's side. */

static int lost(noti_pw *p) { return atomic_load(&p->lost); }

/* Takes a take-back the callback applied as the ring's end. */
static void settle_cut(noti_pw *p) {
    if (atomic_load_explicit(&p->cut, memory_order_acquire) != CUT_APPLIED) return;
    atomic_store_explicit(&p->written, atomic_load_explicit(&p->cut_end, memory_order_relaxed), memory_order_relaxed);
    atomic_store_explicit(&p->cut, CUT_NONE, memory_order_release);
}

/* The frames the render thread may write now: none while a take-back waits for the callback. */
static uint64_t room(noti_pw *p) {
    settle_cut(p);
    if (atomic_load_explicit(&p->cut, memory_order_relaxed) != CUT_NONE) return 0;
    uint64_t held = atomic_load_explicit(&p->written, memory_order_relaxed) - atomic_load(&p->given);
    uint64_t limit = ring_limit(p, atomic_load_explicit(&p->cycle_frames, memory_order_relaxed));
    return held < limit ? limit - held : 0;
}

/* Asks the loop thread to start or stop the node. */
static void set_active(noti_pw *p, int active) {
    p->active = active;
    atomic_store(&p->want_active, active);
    signal_fd(p->control_fd);
}

/* Whether a wait is to end: a stop woke it (once), or the stream is closing. */
static int woken(noti_pw *p) { return atomic_load(&p->closing) || atomic_exchange(&p->woken, 0); }

/* Blocks until `ready(p)`, a loss, `deadline_us` (0: none), or (with `wakeable`) an interrupt.
 * Returns whether `ready(p)` held. */
static int wait_until(noti_pw *p, int (*ready)(noti_pw *), int64_t deadline_us, int wakeable) {
    int done = 0;
    for (;;) {
        /* Before looking: the callback, having moved `given`, then sees this and wakes us. */
        atomic_store(&p->waiting, 1);
        if ((done = ready(p)) || lost(p) || (wakeable ? woken(p) : atomic_load(&p->closing))) break;
        int timeout = -1;
        if (deadline_us) {
            int64_t left = deadline_us - monotonic_us();
            if (left <= 0) break;
            timeout = wait_ms(left);
        }
        struct pollfd wake = {.fd = p->wake_fd, .events = POLLIN};
        poll(&wake, 1, timeout);
        eventfd_t count;
        (void)eventfd_read(p->wake_fd, &count);
    }
    atomic_store(&p->waiting, 0);
    return done;
}

static int has_room(noti_pw *p) { return room(p) > 0; }
static int has_period(noti_pw *p) { return room(p) >= p->period_frames; }

long noti_pw_write(noti_pw *p, const void *frames, long count) {
    if (lost(p)) return lost(p);
    if (!p->active) {
        /* The first write, or the first since a drain: the node runs again. */
        atomic_store(&p->given_since_active, 0);
        set_active(p, 1);
    }
    if (!wait_until(p, has_room, 0, 1)) return lost(p) ? lost(p) : -EAGAIN;
    uint64_t written = atomic_load_explicit(&p->written, memory_order_relaxed);
    uint64_t taken = (uint64_t)count < room(p) ? (uint64_t)count : room(p);
    copy_ring(p, (unsigned char *)frames, written, taken, 1);
    atomic_store_explicit(&p->written, written + taken, memory_order_release);
    return (long)taken;
}

void noti_pw_wait_for_room(noti_pw *p, int milliseconds) {
    wait_until(p, has_period, monotonic_us() + (int64_t)milliseconds * 1000 + 1, 1);
}

int noti_pw_lost(noti_pw *p) {
    return atomic_load(&p->lost);
}

void noti_pw_prepare(noti_pw *p) {
    atomic_store(&p->draining, 0);
    atomic_store(&p->discarding, 0);
}

static int ring_given(noti_pw *p) {
    settle_cut(p);
    return atomic_load_explicit(&p->cut, memory_order_relaxed) == CUT_NONE
        && atomic_load(&p->given) == atomic_load_explicit(&p->written, memory_order_relaxed);
}

/* The cycle a drain waits for: one that begins after the cycle that took the ring's last frames. */
static int next_cycle_began(noti_pw *p) { return atomic_load_explicit(&p->cycles, memory_order_relaxed) > p->drain_mark; }

void noti_pw_drain(noti_pw *p) {
    if (lost(p) || !p->active) return;
    /* The ring's last frames, then the cycle that plays them: the server holds nothing ahead
     * (the callback gives what the cycle asks for, as it asks), so once the next cycle has
     * begun, the sink has had every frame. (Not pw_stream_flush's drain: an RT_PROCESS stream
     * that drained is never asked for sound again.) Only closing ends the waits early (a stop
     * must not: the drain is what lets its fade be heard). */
    atomic_store(&p->draining, 1);
    if (wait_until(p, ring_given, 0, 0) && atomic_load(&p->given_since_active)) {
        p->drain_mark = atomic_load_explicit(&p->cycles, memory_order_relaxed);
        wait_until(p, next_cycle_began, 0, 0);
    }
    atomic_store(&p->draining, 0);
    /* Idle: the node leaves the graph's cycle (no wake-up a cycle while no sound plays). */
    if (!lost(p)) set_active(p, 0);
}

void noti_pw_drop(noti_pw *p) {
    /* The callback discards the rest, until noti_pw_prepare. */
    atomic_store(&p->discarding, 1);
    if (!lost(p) && p->active) set_active(p, 0);
}

long noti_pw_take_back(noti_pw *p, long fade_frames) {
    settle_cut(p);
    if (lost(p) || fade_frames < 1 || atomic_load_explicit(&p->cut, memory_order_relaxed) != CUT_NONE) return -1;
    /* The callback may be taking a cycle right now; the fade begins after it. */
    uint64_t cycle = atomic_load_explicit(&p->cycle_frames, memory_order_relaxed);
    uint64_t held = atomic_load_explicit(&p->written, memory_order_relaxed) - atomic_load(&p->given);
    if (held < (uint64_t)fade_frames + 2 * (cycle ? cycle : p->period_frames)) return -1;
    p->cut_fade = (uint64_t)fade_frames;
    atomic_store_explicit(&p->cut, CUT_ASKED, memory_order_release);
    return fade_frames;
}

void noti_pw_interrupt(noti_pw *p, int closing) {
    if (closing) atomic_store(&p->closing, 1);
    atomic_store(&p->woken, 1);
    signal_fd(p->wake_fd);
}
