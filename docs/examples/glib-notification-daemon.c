/*
 * The sound part of a notification daemon on GLib (what dunst, swaync and xfce4-notifyd are built
 * on), with libnoti-play: it owns org.freedesktop.Notifications on the session bus, plays each
 * notification's sound from its hints, and closes, pauses and exits as a daemon does.
 *
 *   gcc glib-notification-daemon.c -o glib-notification-daemon \
 *       $(pkg-config --cflags --libs noti-play gio-2.0 gio-unix-2.0)
 *
 * SIGUSR1 pauses it (do-not-disturb: only critical sounds play, and the others playing end),
 * SIGUSR2 resumes, SIGTERM ends it. It prints "ready" once it owns the name, and a line for each
 * sound's end: "ended ID RESULT DETAIL", ID the notification's. A real daemon would show the
 * notifications too; this one only plays them.
 */
#include <gio/gio.h>
#include <glib-unix.h>
#include <noti-play.h>
#include <stdio.h>

static const char *introspection =
    "<node><interface name='org.freedesktop.Notifications'>"
    "<method name='GetCapabilities'><arg type='as' direction='out'/></method>"
    "<method name='Notify'><arg type='s'/><arg type='u'/><arg type='s'/><arg type='s'/><arg type='s'/>"
    "<arg type='as'/><arg type='a{sv}'/><arg type='i'/><arg type='u' direction='out'/></method>"
    "<method name='CloseNotification'><arg type='u'/></method>"
    "<method name='GetServerInformation'><arg type='s' direction='out'/><arg type='s' direction='out'/>"
    "<arg type='s' direction='out'/><arg type='s' direction='out'/></method>"
    "<signal name='NotificationClosed'><arg type='u'/><arg type='u'/></signal>"
    "</interface></node>";

static noti_play *player;
static GMainLoop *loop;
static guint32 last_id;
static GHashTable *sounds; /* notification id -> its sounds' ids (GArray of guint64), while shown */

/* From noti-play's callback thread: print, and nothing else (the main loop owns the table). */
static void ended(uint64_t sound, noti_play_result result, const char *detail, void *data) {
    static const char *names[] = {"finished", "cancelled", "silenced", "failed", "preempted", "replaced"};
    printf("ended %u %s %s\n", GPOINTER_TO_UINT(data), names[result], detail);
    fflush(stdout);
    (void)sound;
}

/* A notification's hints, as the Desktop Notifications Specification gives them, to a request. */
static guint64 play(const char *app_name, GVariant *hints, gboolean update, guint32 id) {
    noti_play_request request = NOTI_PLAY_REQUEST_INIT;
    request.app_name = app_name;
    g_variant_lookup(hints, "desktop-entry", "&s", &request.desktop_entry);
    g_variant_lookup(hints, "sound-file", "&s", &request.sound_file);
    g_variant_lookup(hints, "sound-name", "&s", &request.sound_name);
    g_variant_lookup(hints, "category", "&s", &request.category);
    gboolean suppress = FALSE;
    if (g_variant_lookup(hints, "suppress-sound", "b", &suppress)) request.suppress_sound = suppress;
    guchar urgency = 1;
    if (g_variant_lookup(hints, "urgency", "y", &urgency)) request.urgency = urgency;
    if (update) request.flags |= NOTI_PLAY_REQUEST_UPDATE; /* a progress bar's next value: silent */
    request.notification_id = id;                           /* a call updated while it rings rings once */
    return noti_play_notify(player, &request, ended, GUINT_TO_POINTER(id), NULL);
}

static void called(GDBusConnection *bus, const char *sender, const char *path, const char *interface,
                   const char *method, GVariant *parameters, GDBusMethodInvocation *invocation, gpointer data) {
    (void)sender; (void)interface; (void)data;
    if (g_strcmp0(method, "Notify") == 0) {
        const char *app_name;
        guint32 replaces;
        GVariant *hints;
        g_variant_get(parameters, "(&su&s&s&s^a&s@a{sv}i)", &app_name, &replaces, NULL, NULL, NULL, NULL, &hints, NULL);
        gboolean update = replaces != 0 && g_hash_table_contains(sounds, GUINT_TO_POINTER(replaces));
        guint32 id = update ? replaces : ++last_id;
        guint64 sound = play(app_name, hints, update, id);
        /* Every sound of the notification, its updates' too: a call updated while it rings
         * must still stop ringing when it is closed. */
        GArray *ids = g_hash_table_lookup(sounds, GUINT_TO_POINTER(id));
        if (!ids) g_hash_table_insert(sounds, GUINT_TO_POINTER(id), ids = g_array_new(FALSE, FALSE, sizeof(guint64)));
        if (sound) g_array_append_val(ids, sound);
        g_variant_unref(hints);
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(u)", id));
    } else if (g_strcmp0(method, "CloseNotification") == 0) {
        guint32 id;
        g_variant_get(parameters, "(u)", &id);
        GArray *ids = g_hash_table_lookup(sounds, GUINT_TO_POINTER(id));
        if (!ids) {
            /* The specification: an error for a notification that does not exist (any more). */
            g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.Notifications.Error.NotFound", "");
            return;
        }
        /* A call's ringtone stops with its notification (an id that ended already is ignored). */
        for (guint i = 0; i < ids->len; i++) noti_play_cancel(player, g_array_index(ids, guint64, i));
        g_hash_table_remove(sounds, GUINT_TO_POINTER(id));
        g_dbus_connection_emit_signal(bus, NULL, path, "org.freedesktop.Notifications", "NotificationClosed",
                                      g_variant_new("(uu)", id, 3), NULL);
        g_dbus_method_invocation_return_value(invocation, NULL);
    } else if (g_strcmp0(method, "GetCapabilities") == 0) {
        const char *capabilities[] = {"body", "sound", NULL};
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(^as)", capabilities));
    } else {
        g_dbus_method_invocation_return_value(invocation, g_variant_new("(ssss)", "glib-notification-daemon", "noti-play", "1", "1.2"));
    }
}

static void name_acquired(GDBusConnection *bus, const char *name, gpointer data) {
    (void)bus; (void)name; (void)data;
    printf("ready\n");
    fflush(stdout);
}

static void name_lost(GDBusConnection *bus, const char *name, gpointer data) {
    (void)bus; (void)data;
    fprintf(stderr, "cannot own %s\n", name);
    g_main_loop_quit(loop);
}

static void bus_acquired(GDBusConnection *bus, const char *name, gpointer data) {
    (void)name;
    static const GDBusInterfaceVTable vtable = {called, NULL, NULL, {0}};
    GDBusNodeInfo *node = data;
    g_dbus_connection_register_object(bus, "/org/freedesktop/Notifications", node->interfaces[0], &vtable, NULL, NULL, NULL);
}

/* The pause switch: do-not-disturb in the daemon's own settings (its config would set the rest). */
static gboolean pause_changed(gpointer paused) {
    noti_play_settings settings = NOTI_PLAY_SETTINGS_INIT;
    settings.do_not_disturb = GPOINTER_TO_INT(paused);
    noti_play_configure(player, &settings, NULL);
    return G_SOURCE_CONTINUE;
}

static gboolean quit(gpointer data) {
    (void)data;
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

int main(void) {
    noti_play_options options = NOTI_PLAY_OPTIONS_INIT;
    options.application_name = "glib-notification-daemon";
    char *error = NULL;
    if (!(player = noti_play_new_with_options(&options, &error))) {
        fprintf(stderr, "%s\n", error ? error : "no player");
        return 1;
    }
    char *warnings = noti_play_configuration_warnings(player);  /* the user's noti-play.conf mistakes */
    if (warnings) fputs(warnings, stderr);
    noti_play_free_string(warnings);
    sounds = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
    GDBusNodeInfo *node = g_dbus_node_info_new_for_xml(introspection, NULL);
    guint owner = g_bus_own_name(G_BUS_TYPE_SESSION, "org.freedesktop.Notifications", G_BUS_NAME_OWNER_FLAGS_NONE,
                                 bus_acquired, name_acquired, name_lost, node, NULL);
    loop = g_main_loop_new(NULL, FALSE);
    g_unix_signal_add(SIGUSR1, pause_changed, GINT_TO_POINTER(1));
    g_unix_signal_add(SIGUSR2, pause_changed, GINT_TO_POINTER(0));
    g_unix_signal_add(SIGTERM, quit, NULL);
    g_main_loop_run(loop);
    g_bus_unown_name(owner);
    noti_play_free(player); /* every sound stops; no callback runs after this */
    g_hash_table_destroy(sounds);
    g_dbus_node_info_unref(node);
    g_main_loop_unref(loop);
    return 0;
}
