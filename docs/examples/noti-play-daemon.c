/*
 * A tiny notification-sound daemon in C, on libnoti-play: it reads requests from standard
 * input, one a line, and reports each sound's end on standard output.
 *
 *   gcc noti-play-daemon.c -o noti-play-daemon $(pkg-config --cflags --libs noti-play)
 *
 * Requests:  file PATH [VOLUME] [critical|ringtone]   name NAME [VOLUME] [critical|ringtone]
 *            theme SOUND-NAME                          default [critical|ringtone]
 *            notify HINT=VALUE...  (a notification's hints: app-name, desktop-entry, sound-file,
 *                                   sound-name, category, suppress-sound, urgency, volume; and
 *                                   the words `update` (it has a replaces_id of a notification
 *                                   still shown), `hints-only` and `ringtone`, its flags)
 *            cancel ID   pause ID   resume ID   quiet on|off|auto   limits on|off
 *            wait   version   quit
 * Replies:   "started ID", "error MESSAGE", "version LIBRARY HEADER", and from the library's
 *            thread "ended ID RESULT DETAIL".
 * NOTI_PLAY_DEVICE names the ALSA device (default: "default").
 */
#include <noti-play.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int playing = 0;

static const char *result_name(noti_play_result result) {
    switch (result) {
    case NOTI_PLAY_FINISHED: return "finished";
    case NOTI_PLAY_CANCELLED: return "cancelled";
    case NOTI_PLAY_SILENCED: return "silenced";
    case NOTI_PLAY_PREEMPTED: return "preempted";
    case NOTI_PLAY_REPLACED: return "replaced";
    default: return "failed";
    }
}

static void sound_ended(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    (void)user_data;
    pthread_mutex_lock(&lock);
    printf("ended %llu %s %s\n", (unsigned long long)id, result_name(result), detail);
    fflush(stdout);
    playing--;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* Plays what `notify hint=value ...` asks for; `hints` is the rest of the line. */
static uint64_t notify(noti_play *player, char *hints, char **error) {
    noti_play_request request = NOTI_PLAY_REQUEST_INIT;
    for (char *hint = strtok(hints, " \n"); hint; hint = strtok(NULL, " \n")) {
        char *value = strchr(hint, '=');
        if (strcmp(hint, "update") == 0) request.flags |= NOTI_PLAY_REQUEST_UPDATE;   /* a progress bar's next value */
        else if (strcmp(hint, "hints-only") == 0) request.flags |= NOTI_PLAY_REQUEST_HINTS_ONLY;
        else if (strcmp(hint, "ringtone") == 0) request.flags |= NOTI_PLAY_RINGTONE;
        if (!value) continue;
        *value++ = '\0';
        if (strcmp(hint, "app-name") == 0) request.app_name = value;
        else if (strcmp(hint, "desktop-entry") == 0) request.desktop_entry = value;
        else if (strcmp(hint, "sound-file") == 0) request.sound_file = value;
        else if (strcmp(hint, "sound-name") == 0) request.sound_name = value;
        else if (strcmp(hint, "category") == 0) request.category = value;
        else if (strcmp(hint, "suppress-sound") == 0) request.suppress_sound = strcmp(value, "true") == 0;
        else if (strcmp(hint, "urgency") == 0) request.urgency = atoi(value);
        else if (strcmp(hint, "volume") == 0) request.volume = strtof(value, NULL);
    }
    return noti_play_notify(player, &request, sound_ended, NULL, error);
}

static unsigned flags_from(const char *word) {
    if (word && strcmp(word, "critical") == 0) return NOTI_PLAY_CRITICAL;
    if (word && strcmp(word, "ringtone") == 0) return NOTI_PLAY_RINGTONE;
    return 0;
}

int main(void) {
    const char *folders[] = { getenv("NOTI_PLAY_SOUNDS") };
    noti_play *player = noti_play_new(getenv("NOTI_PLAY_DEVICE"), folders, folders[0] ? 1 : 0);
    if (!player) {
        fprintf(stderr, "noti-play-daemon: the player could not start (no memory, or no thread to be had)\n");
        return 1;
    }
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        char copy[sizeof line];  /* the words after the verb, for notify's hints, before strtok cuts them */
        const char *space = strchr(line, ' ');
        snprintf(copy, sizeof copy, "%s", space ? space + 1 : "");
        char *verb = strtok(line, " \n");
        char *argument = strtok(NULL, " \n");
        char *third = strtok(NULL, " \n");
        char *fourth = strtok(NULL, " \n");
        if (!verb) continue;
        float volume = third && flags_from(third) == 0 ? strtof(third, NULL) : 1.0f;
        unsigned flags = flags_from(fourth ? fourth : third);
        char *error = NULL;
        uint64_t id = 0;
        int starting = (strcmp(verb, "file") == 0 || strcmp(verb, "name") == 0 || strcmp(verb, "theme") == 0) && argument;
        starting = starting || strcmp(verb, "default") == 0 || strcmp(verb, "notify") == 0;
        if (starting) {
            /* The lock is held across the call (which never blocks or waits for a callback): the
             * sound may end before the call returns, and its callback, which takes the lock,
             * then prints after "started". */
            pthread_mutex_lock(&lock);
            if (strcmp(verb, "file") == 0) id = noti_play_file(player, argument, volume, flags, sound_ended, NULL, &error);
            else if (strcmp(verb, "name") == 0) id = noti_play_name(player, argument, volume, flags, sound_ended, NULL, &error);
            else if (strcmp(verb, "theme") == 0) id = noti_play_theme_sound(player, argument, 1.0f, 0, sound_ended, NULL, &error);
            else if (strcmp(verb, "default") == 0) id = noti_play_default(player, 1.0f, flags_from(argument), sound_ended, NULL, &error);
            else id = notify(player, copy, &error);
            if (id) {
                playing++;
                printf("started %llu\n", (unsigned long long)id);
            } else {
                printf("error %s\n", error ? error : "unknown");
            }
            fflush(stdout);
            pthread_mutex_unlock(&lock);
            noti_play_free_string(error);
        } else {
            unsigned long long target = argument ? strtoull(argument, NULL, 10) : 0;
            if (strcmp(verb, "cancel") == 0) noti_play_cancel(player, target);
            else if (strcmp(verb, "pause") == 0) noti_play_pause(player, target);
            else if (strcmp(verb, "resume") == 0) noti_play_resume(player, target);
            else if (strcmp(verb, "quiet") == 0 && argument)
                noti_play_set_quiet(player, strcmp(argument, "on") == 0 ? 1 : strcmp(argument, "off") == 0 ? 0 : -1);
            else if (strcmp(verb, "limits") == 0 && argument) {
                /* The daemon's own settings: no rate limit, or noti-play.conf's and the defaults. */
                noti_play_settings settings = NOTI_PLAY_SETTINGS_INIT;
                if (strcmp(argument, "off") == 0) settings.rate_interval = settings.burst_limit = 0;
                noti_play_configure(player, &settings, NULL);
            } else if (strcmp(verb, "wait") == 0) {
                pthread_mutex_lock(&lock);
                while (playing > 0) pthread_cond_wait(&changed, &lock);
                pthread_mutex_unlock(&lock);
                printf("idle\n");
            } else if (strcmp(verb, "version") == 0) {
                /* The library in use, then the header this program was compiled with. */
                printf("version %s %d.%d.%d\n", noti_play_version(), NOTI_PLAY_VERSION_MAJOR,
                       NOTI_PLAY_VERSION_MINOR, NOTI_PLAY_VERSION_PATCH);
            } else if (strcmp(verb, "quit") == 0) break;
            else printf("error unknown request '%s'\n", verb);
        }
        fflush(stdout);
    }
    noti_play_free(player);
    return 0;
}
