/*
 * Fake Desktop Notifications server for the `noti-play listen` scenario tests.
 * It owns org.freedesktop.Notifications (and, with --swaync, org.erikreider.swaync.cc)
 * on the bus named by $DBUS_SESSION_BUS_ADDRESS, answers deterministically, and takes
 * commands on stdin ("close ID [REASON]", "dnd on|off", "capabilities LIST", "quit").
 * Build: cc -std=c11 -Wall -Wextra -Werror -O1 -o /tmp/fake-server Tests/ListenScenarios/fake-notification-server.c -lsystemd
 */
#define _GNU_SOURCE

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define PROG "fake-notification-server"

#define NOTIF_NAME "org.freedesktop.Notifications"
#define NOTIF_PATH "/org/freedesktop/Notifications"
#define NOTIF_IFACE "org.freedesktop.Notifications"

#define SWAYNC_NAME "org.erikreider.swaync.cc"
#define SWAYNC_PATH "/org/erikreider/swaync/cc"
#define SWAYNC_IFACE "org.erikreider.swaync.cc"

struct server {
    sd_bus *bus;
    char **caps;       /* NULL-terminated, as sd_bus_message_append_strv wants */
    uint32_t next_id;
    bool swaync;
    bool dnd;
};

static void free_strv(char **v) {
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

/* Splits "a,b,,c" into {"a","b","c",NULL}; empty items are dropped so "" gives an empty list. */
static char **parse_caps(const char *list) {
    size_t n = 1;
    for (const char *p = list; *p; p++)
        if (*p == ',')
            n++;
    char **v = calloc(n + 1, sizeof(char *));
    char *copy = strdup(list);
    if (!v || !copy) {
        free(v);
        free(copy);
        return NULL;
    }
    size_t i = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        v[i] = strdup(tok);
        if (!v[i]) {
            free(copy);
            free_strv(v);
            return NULL;
        }
        i++;
    }
    free(copy);
    return v;
}

/* ---- org.freedesktop.Notifications ---- */

static int method_get_capabilities(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    struct server *s = userdata;
    sd_bus_message *reply = NULL;
    (void)ret_error;

    int r = sd_bus_message_new_method_return(m, &reply);
    if (r >= 0)
        r = sd_bus_message_append_strv(reply, s->caps);
    if (r >= 0)
        r = sd_bus_send(NULL, reply, NULL);
    sd_bus_message_unref(reply);
    return r;
}

static int method_notify(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    struct server *s = userdata;
    const char *app_name, *app_icon, *summary, *body;
    uint32_t replaces_id;
    int32_t expire_timeout;
    (void)ret_error;

    int r = sd_bus_message_read(m, "susss", &app_name, &replaces_id, &app_icon, &summary, &body);
    if (r < 0)
        return r;
    /* Actions and hints are skipped whole: the variant types inside hints vary by client. */
    r = sd_bus_message_skip(m, "asa{sv}");
    if (r < 0)
        return r;
    r = sd_bus_message_read(m, "i", &expire_timeout);
    if (r < 0)
        return r;

    uint32_t id = replaces_id;
    if (id == 0) {
        id = s->next_id++;
        if (s->next_id == 0) /* 0 means "no notification" on the wire, never hand it out */
            s->next_id = 1;
    }
    return sd_bus_reply_method_return(m, "u", id);
}

static int emit_closed(struct server *s, uint32_t id, uint32_t reason) {
    return sd_bus_emit_signal(s->bus, NOTIF_PATH, NOTIF_IFACE, "NotificationClosed", "uu", id, reason);
}

static int method_close_notification(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    struct server *s = userdata;
    uint32_t id;
    (void)ret_error;

    int r = sd_bus_message_read(m, "u", &id);
    if (r < 0)
        return r;
    r = sd_bus_reply_method_return(m, "");
    if (r < 0)
        return r;
    return emit_closed(s, id, 3); /* 3 = closed by a call to CloseNotification */
}

static int method_get_server_information(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)userdata;
    (void)ret_error;
    return sd_bus_reply_method_return(m, "ssss", PROG, "noti-play", "1", "1.2");
}

static const sd_bus_vtable notifications_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_ARGS("GetCapabilities", SD_BUS_NO_ARGS, SD_BUS_RESULT("as", capabilities),
                            method_get_capabilities, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Notify",
                            SD_BUS_ARGS("s", app_name, "u", replaces_id, "s", app_icon, "s", summary,
                                        "s", body, "as", actions, "a{sv}", hints, "i", expire_timeout),
                            SD_BUS_RESULT("u", id), method_notify, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("CloseNotification", SD_BUS_ARGS("u", id), SD_BUS_NO_RESULT,
                            method_close_notification, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("GetServerInformation", SD_BUS_NO_ARGS,
                            SD_BUS_RESULT("s", name, "s", vendor, "s", version, "s", spec_version),
                            method_get_server_information, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_ARGS("NotificationClosed", SD_BUS_ARGS("u", id, "u", reason), 0),
    SD_BUS_SIGNAL_WITH_ARGS("ActionInvoked", SD_BUS_ARGS("u", id, "s", action_key), 0),
    SD_BUS_VTABLE_END,
};

/* ---- org.erikreider.swaync.cc (only the parts noti-play looks at) ---- */

static int method_get_dnd(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    struct server *s = userdata;
    (void)ret_error;
    return sd_bus_reply_method_return(m, "b", (int)s->dnd);
}

static const sd_bus_vtable swaync_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_ARGS("GetDnd", SD_BUS_NO_ARGS, SD_BUS_RESULT("b", dnd), method_get_dnd,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_ARGS("SubscribeV2",
                            SD_BUS_ARGS("u", count, "b", dnd, "b", cc_open, "b", inhibited), 0),
    SD_BUS_SIGNAL_WITH_ARGS("Subscribe", SD_BUS_ARGS("u", count, "b", dnd, "b", cc_open), 0),
    SD_BUS_VTABLE_END,
};

/* ---- stdin commands ---- */

static bool parse_u32(const char *str, uint32_t *out) {
    if (!str || !*str || *str == '-' || *str == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long v = strtoul(str, &end, 10);
    if (errno || *end || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Prints "ok" or "error ..." so a test never waits forever on a bad command. */
static void reply_line(const char *err) {
    if (err)
        printf("error %s\n", err);
    else
        printf("ok\n");
    fflush(stdout);
}

/* Returns true when the program should stop. */
static bool handle_command(struct server *s, char *line) {
    char *save = NULL;
    char *cmd = strtok_r(line, " \t\r", &save);
    int r;

    if (!cmd) /* blank line: nothing to do, nothing to acknowledge */
        return false;

    if (strcmp(cmd, "quit") == 0)
        return true;

    if (strcmp(cmd, "close") == 0) {
        char *id_s = strtok_r(NULL, " \t\r", &save);
        char *reason_s = strtok_r(NULL, " \t\r", &save);
        uint32_t id, reason = 2; /* 2 = dismissed by the user */
        if (!parse_u32(id_s, &id) || (reason_s && !parse_u32(reason_s, &reason)) ||
            strtok_r(NULL, " \t\r", &save)) {
            reply_line("usage: close ID [REASON]");
            return false;
        }
        r = emit_closed(s, id, reason);
    } else if (strcmp(cmd, "dnd") == 0) {
        char *arg = strtok_r(NULL, " \t\r", &save);
        if (!s->swaync) {
            reply_line("dnd needs --swaync");
            return false;
        }
        if (!arg || strtok_r(NULL, " \t\r", &save) ||
            (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0)) {
            reply_line("usage: dnd on|off");
            return false;
        }
        s->dnd = strcmp(arg, "on") == 0;
        r = sd_bus_emit_signal(s->bus, SWAYNC_PATH, SWAYNC_IFACE, "SubscribeV2", "ubbb", (uint32_t)0,
                               (int)s->dnd, 0, 0);
    } else if (strcmp(cmd, "capabilities") == 0) {
        char *list = strtok_r(NULL, " \t\r", &save);
        char **caps = parse_caps(list ? list : "");
        if (!caps) {
            reply_line("out of memory");
            return false;
        }
        free_strv(s->caps);
        s->caps = caps;
        r = 0;
    } else {
        reply_line("unknown command");
        return false;
    }

    if (r < 0) {
        fprintf(stderr, PROG ": %s: %s\n", cmd, strerror(-r));
        reply_line("bus error");
        return false;
    }
    /* Push any signal to the daemon before "ok", so the test may act on it right away. */
    r = sd_bus_flush(s->bus);
    if (r < 0) {
        fprintf(stderr, PROG ": flush: %s\n", strerror(-r));
        reply_line("bus error");
        return false;
    }
    reply_line(NULL);
    return false;
}

/* ---- main ---- */

static void usage(FILE *f) {
    fprintf(f,
            "usage: " PROG " [--capabilities LIST] [--swaync]\n"
            "  --capabilities LIST  comma-separated capabilities (default \"body\")\n"
            "  --swaync             also own " SWAYNC_NAME " with GetDnd/SubscribeV2\n"
            "stdin commands: close ID [REASON] | dnd on|off | capabilities LIST | quit\n");
}

static int poll_timeout_ms(sd_bus *bus) {
    uint64_t until;
    if (sd_bus_get_timeout(bus, &until) < 0 || until == UINT64_MAX)
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    if (until <= now)
        return 0;
    uint64_t ms = (until - now + 999) / 1000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

static int own_name(sd_bus *bus, const char *name) {
    /* Flags 0: fail at once instead of queueing behind an existing owner. */
    int r = sd_bus_request_name(bus, name, 0);
    if (r < 0)
        fprintf(stderr, PROG ": cannot own %s: %s\n", name,
                r == -EEXIST ? "the name already has an owner" : strerror(-r));
    return r;
}

int main(int argc, char **argv) {
    struct server s = {.next_id = 1};
    const char *caps_arg = "body";

    static const struct option opts[] = {
        {"capabilities", required_argument, NULL, 'c'},
        {"swaync", no_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            caps_arg = optarg;
            break;
        case 's':
            s.swaync = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }

    s.caps = parse_caps(caps_arg);
    if (!s.caps) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }

    /* TERM/INT arrive through a signalfd so they are handled inside the poll loop. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
        perror(PROG ": sigprocmask");
        return 1;
    }
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    if (sfd < 0) {
        perror(PROG ": signalfd");
        return 1;
    }
    /* A test that stops reading our stdout must not kill us with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);

    int r = sd_bus_open_user(&s.bus);
    if (r < 0) {
        fprintf(stderr, PROG ": cannot connect to the session bus: %s\n", strerror(-r));
        return 1;
    }

    /* Objects first, names second: a client may call us the instant the name appears. */
    r = sd_bus_add_object_vtable(s.bus, NULL, NOTIF_PATH, NOTIF_IFACE, notifications_vtable, &s);
    if (r >= 0 && s.swaync)
        r = sd_bus_add_object_vtable(s.bus, NULL, SWAYNC_PATH, SWAYNC_IFACE, swaync_vtable, &s);
    if (r < 0) {
        fprintf(stderr, PROG ": cannot register objects: %s\n", strerror(-r));
        return 1;
    }
    if (own_name(s.bus, NOTIF_NAME) < 0)
        return 1;
    if (s.swaync && own_name(s.bus, SWAYNC_NAME) < 0)
        return 1;

    printf("ready\n");
    fflush(stdout);

    char buf[4096];
    size_t len = 0;
    bool stdin_open = true;
    bool quit = false;
    int status = 0;

    while (!quit) {
        for (;;) {
            r = sd_bus_process(s.bus, NULL);
            if (r < 0) {
                fprintf(stderr, PROG ": bus connection failed: %s\n", strerror(-r));
                status = 1;
                goto out;
            }
            if (r == 0)
                break;
        }

        int events = sd_bus_get_events(s.bus);
        if (events < 0) {
            fprintf(stderr, PROG ": bus connection failed: %s\n", strerror(-events));
            status = 1;
            goto out;
        }
        struct pollfd pfd[3] = {
            {.fd = sd_bus_get_fd(s.bus), .events = (short)events},
            {.fd = sfd, .events = POLLIN},
            {.fd = stdin_open ? STDIN_FILENO : -1, .events = POLLIN},
        };
        if (poll(pfd, 3, poll_timeout_ms(s.bus)) < 0) {
            if (errno == EINTR)
                continue;
            perror(PROG ": poll");
            status = 1;
            goto out;
        }

        if (pfd[1].revents) {
            struct signalfd_siginfo si;
            if (read(sfd, &si, sizeof si) > 0)
                break;
        }

        if (pfd[2].revents) {
            ssize_t n = read(STDIN_FILENO, buf + len, sizeof buf - 1 - len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                /* EOF (or a broken stdin) ends the run; a last unterminated line still counts. */
                stdin_open = false;
                quit = true;
                if (len > 0) {
                    buf[len] = '\0';
                    handle_command(&s, buf);
                }
                break;
            }
            len += (size_t)n;
            char *start = buf, *nl;
            while (!quit && (nl = memchr(start, '\n', len - (size_t)(start - buf)))) {
                *nl = '\0';
                quit = handle_command(&s, start);
                start = nl + 1;
            }
            len -= (size_t)(start - buf);
            memmove(buf, start, len);
            if (len == sizeof buf - 1) {
                reply_line("line too long");
                len = 0;
            }
        }
    }

out:
    if (status == 0) {
        if (s.swaync)
            sd_bus_release_name(s.bus, SWAYNC_NAME);
        sd_bus_release_name(s.bus, NOTIF_NAME);
    }
    sd_bus_flush_close_unref(s.bus);
    free_strv(s.caps);
    close(sfd);
    return status;
}
