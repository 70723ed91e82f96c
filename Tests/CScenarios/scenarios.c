/*
 * C scenarios that check libnoti-play's threading contract (the comment at the top of
 * noti-play.h) the way a notification daemon written in C uses the library.
 *
 *   scenarios SCENARIO DEVICE SOUNDS_FOLDER [--requests N] [--time-scale N]
 *             [--capture FILE --expect-bytes N]
 *
 *   SCENARIO       free-while-playing | four-threads | cancel-in-callback | free-in-callback |
 *                  blocking-device | slow-callback
 *   DEVICE         the ALSA device of the context, e.g. file:FILE=/dev/null,FORMAT=raw
 *                  (blocking-device: a file: device on a FIFO without reader, whose open blocks;
 *                  slow-callback: file:FILE=CAPTURE,FORMAT=raw, the file given with --capture)
 *   SOUNDS_FOLDER  the app folder of the context; it holds short.caf (about 0.1 s) and
 *                  second.caf (1 s), both mono, both at the same rate
 *   --requests N   four-threads: requests per thread (default 50); free-while-playing makes 4 N
 *                  silenced requests. Smaller under valgrind, which is slow.
 *   --time-scale N multiplies the bounds on how long a call may take, 500 ms for a play call
 *                  and noti_play_new, 1000 ms for noti_play_free (default 1): for valgrind, whose
 *                  runs look for memory errors; the plain and ASan runs hold the bounds.
 *   --capture FILE, --expect-bytes N
 *                  slow-callback: the device's capture file, and the bytes short.caf and then
 *                  second.caf make there (frames x max(2, channels) x 4: stereo at least, FLOAT)
 *
 * Every check prints one line, "ok ..." or "FAIL ...", and the program exits 0 only when every
 * check held (1 otherwise, 64 on a usage error). A watchdog ends a scenario that hangs (a
 * deadlock, a call that blocks) after 60 s with a FAIL line and exit status 3.
 *
 * Built with pkg-config's flags for noti-play; uses only noti-play.h, pthreads and libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <noti-play.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- Checks ---------------------------------------------------------------------------- */

static int failures;

/* Prints "ok MESSAGE" or "FAIL MESSAGE"; returns `condition`. */
__attribute__((format(printf, 2, 3)))
static int check(int condition, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    printf("%s ", condition ? "ok" : "FAIL");
    vprintf(format, arguments);
    printf("\n");
    fflush(stdout);
    va_end(arguments);
    if (!condition) failures++;
    return condition;
}

/* Prints an information line (no verdict). */
__attribute__((format(printf, 1, 2)))
static void note(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    printf("# ");
    vprintf(format, arguments);
    printf("\n");
    fflush(stdout);
    va_end(arguments);
}

/* CLOCK_MONOTONIC in milliseconds. */
static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

static void sleep_ms(long milliseconds) {
    struct timespec t = { milliseconds / 1000, (milliseconds % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static const char *result_name(noti_play_result result) {
    switch (result) {
    case NOTI_PLAY_FINISHED: return "FINISHED";
    case NOTI_PLAY_CANCELLED: return "CANCELLED";
    case NOTI_PLAY_SILENCED: return "SILENCED";
    case NOTI_PLAY_FAILED: return "FAILED";
    case NOTI_PLAY_PREEMPTED: return "PREEMPTED";
    case NOTI_PLAY_REPLACED: return "REPLACED";
    }
    return "(not a noti_play_result)";
}

/* Ends a scenario that hangs: a deadlock or a blocking call must fail the test, not stall it. */
static void *watchdog(void *unused) {
    (void)unused;
    sleep_ms(60 * 1000);
    printf("FAIL watchdog: the scenario did not end within 60 s (a deadlock or a blocking call)\n");
    fflush(stdout);
    _exit(3);
}

/* ---- Every id and its callbacks --------------------------------------------------------- */

/*
 * One record per id: whether a play call returned it, and the callbacks that answered it. A
 * callback may come before the play call's caller has recorded the id, so either side creates
 * the record; the verdict comes at the end.
 */
typedef struct {
    uint64_t id;
    int returned;               /* a play call returned this id */
    int ringtone;               /* it was a ringtone (loops: never FINISHED) */
    int silenced_expected;      /* requested while quiet was on, not critical */
    int critical;
    int callbacks;              /* callbacks received for it */
    noti_play_result result;    /* the first callback's */
    char detail[200];           /* the first callback's */
    void *expected_data;        /* the user_data given to the play call */
    void *received_data;        /* the user_data the first callback got */
    int detail_was_null;
} sound_record;

enum { max_sounds = 4096 };
static sound_record sounds[max_sounds];
static int sound_count;
static int table_full;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed;  /* on CLOCK_MONOTONIC: set up in main */

/* The record of `id`, created when new. Call with `lock` held. */
static sound_record *record_locked(uint64_t id) {
    for (int i = 0; i < sound_count; i++)
        if (sounds[i].id == id) return &sounds[i];
    if (sound_count == max_sounds) { table_full = 1; return NULL; }
    sound_record *record = &sounds[sound_count++];
    memset(record, 0, sizeof *record);
    record->id = id;
    return record;
}

/* Notes that a play call returned `id` (> 0) for `user_data`. */
static void record_returned(uint64_t id, void *user_data, int ringtone, int silenced_expected, int critical) {
    pthread_mutex_lock(&lock);
    sound_record *record = record_locked(id);
    if (record) {
        record->returned++;
        record->expected_data = user_data;
        record->ringtone = ringtone;
        record->silenced_expected = silenced_expected;
        record->critical = critical;
    }
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* The id a play call returned, or 0 until then. */
static uint64_t returned_id(uint64_t *slot) {
    pthread_mutex_lock(&lock);
    uint64_t id = *slot;
    pthread_mutex_unlock(&lock);
    return id;
}

/* ---- Who calls back, and when ----------------------------------------------------------- */

static atomic_int in_callback;             /* callbacks running now */
static atomic_int overlapping_callbacks;   /* callbacks that began while another ran */
static atomic_int callback_tid;            /* the thread of the first callback */
static atomic_int callback_thread_changes; /* callbacks from another thread than the first's */
static atomic_int callbacks_on_caller;     /* callbacks on a thread that makes play calls */
static atomic_int callbacks_total;
static atomic_int free_returned;           /* noti_play_free has returned */
static atomic_int callbacks_after_free;    /* callbacks that began after that */

enum { max_callers = 16 };
static atomic_int caller_tids[max_callers];

/* Registers the calling thread as one that makes play calls: no callback may run on it. */
static void register_caller(void) {
    int tid = (int)gettid();
    for (int i = 0; i < max_callers; i++) {
        int empty = 0;
        if (atomic_compare_exchange_strong(&caller_tids[i], &empty, tid)) return;
    }
}

static void enter_callback(void) {
    atomic_fetch_add(&callbacks_total, 1);
    if (atomic_load(&free_returned)) atomic_fetch_add(&callbacks_after_free, 1);
    if (atomic_fetch_add(&in_callback, 1) != 0) atomic_fetch_add(&overlapping_callbacks, 1);
    int tid = (int)gettid();
    int first = 0;
    if (!atomic_compare_exchange_strong(&callback_tid, &first, tid) && first != tid)
        atomic_fetch_add(&callback_thread_changes, 1);
    for (int i = 0; i < max_callers; i++)
        if (atomic_load(&caller_tids[i]) == tid) atomic_fetch_add(&callbacks_on_caller, 1);
}

static void leave_callback(void) {
    atomic_fetch_sub(&in_callback, 1);
}

/* Records one callback in the table. */
static void record_callback(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    pthread_mutex_lock(&lock);
    sound_record *record = record_locked(id);
    if (record) {
        if (record->callbacks == 0) {
            record->result = result;
            record->received_data = user_data;
            record->detail_was_null = detail == NULL;
            snprintf(record->detail, sizeof record->detail, "%s", detail ? detail : "(null)");
        }
        record->callbacks++;
    }
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* The callback most scenarios use: records the call and nothing else. */
static void recording_callback(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    enter_callback();
    record_callback(id, result, detail, user_data);
    leave_callback();
}

/* Returned ids not yet answered. Call with `lock` held. */
static int unanswered_locked(void) {
    int count = 0;
    for (int i = 0; i < sound_count; i++)
        if (sounds[i].returned && sounds[i].callbacks == 0) count++;
    return count;
}

/* Whether at least `returned` ids were returned and every returned id was answered. Call with
   `lock` held. */
static int answered_locked(int returned) {
    int count = 0;
    for (int i = 0; i < sound_count; i++) count += sounds[i].returned ? 1 : 0;
    return count >= returned && unanswered_locked() == 0;
}

static int answered_now(int returned) {
    pthread_mutex_lock(&lock);
    int done = answered_locked(returned);
    pthread_mutex_unlock(&lock);
    return done;
}

/* Waits until at least `returned` ids were returned and every returned id was answered, or
   `seconds` passed; returns whether that happened. */
static int wait_all_answered(int returned, int seconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += seconds;
    pthread_mutex_lock(&lock);
    int done = 0;
    for (;;) {
        done = answered_locked(returned);
        if (done) break;
        if (pthread_cond_timedwait(&changed, &lock, &deadline) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&lock);
    return done;
}

/*
 * The verdict on the table. `all_answered`: every returned id must have had its callback (else
 * at most one: a context freed first drops callbacks). Always: no id answered twice, no callback
 * for an id no play call returned, the user_data given, a detail, a result of the enum.
 */
static void check_exactly_once(int all_answered) {
    pthread_mutex_lock(&lock);
    int returned = 0, answered = 0, unanswered = 0, twice = 0, unknown = 0, returned_twice = 0;
    int wrong_data = 0, null_detail = 0, bad_result = 0;
    for (int i = 0; i < sound_count; i++) {
        sound_record *record = &sounds[i];
        if (record->returned) returned++;
        if (record->returned > 1) {
            returned_twice++;
            printf("#   id %llu returned by %d play calls\n", (unsigned long long)record->id, record->returned);
        }
        if (record->callbacks > 0) answered++;
        if (record->returned && record->callbacks == 0) {
            unanswered++;
            if (all_answered && unanswered <= 5) printf("#   id %llu was never answered\n", (unsigned long long)record->id);
        }
        if (record->callbacks > 1) {
            twice++;
            printf("#   id %llu answered %d times (first: %s '%s')\n", (unsigned long long)record->id,
                   record->callbacks, result_name(record->result), record->detail);
        }
        if (record->callbacks > 0 && !record->returned) {
            unknown++;
            printf("#   callback for id %llu, which no play call returned (%s '%s')\n",
                   (unsigned long long)record->id, result_name(record->result), record->detail);
        }
        if (record->callbacks > 0 && record->returned && record->received_data != record->expected_data) wrong_data++;
        if (record->callbacks > 0 && record->detail_was_null) null_detail++;
        if (record->callbacks > 0 && (record->result < NOTI_PLAY_FINISHED || record->result > NOTI_PLAY_REPLACED)) bad_result++;
    }
    int full = table_full;
    pthread_mutex_unlock(&lock);
    check(!full, "the id table held every id (%d)", max_sounds);
    if (all_answered)
        check(unanswered == 0, "every returned id was answered (%d ids, %d unanswered)", returned, unanswered);
    else
        note("%d of %d returned ids were answered before the context was freed", answered, returned);
    check(twice == 0, "no id was answered twice (%d were)", twice);
    check(unknown == 0, "no callback for an id no play call returned (%d)", unknown);
    check(returned_twice == 0, "no id was returned by two play calls (%d were)", returned_twice);
    check(wrong_data == 0, "every callback got the user_data of its play call (%d did not)", wrong_data);
    check(null_detail == 0, "every callback got a detail string, not NULL (%d got NULL)", null_detail);
    check(bad_result == 0, "every result is a noti_play_result (%d were not)", bad_result);
}

/* What every scenario checks about how callbacks came. */
static void check_callback_threads(void) {
    check(atomic_load(&overlapping_callbacks) == 0, "callbacks came one at a time (%d overlapped another)",
          atomic_load(&overlapping_callbacks));
    check(atomic_load(&callback_thread_changes) == 0, "callbacks came from one thread (%d from another)",
          atomic_load(&callback_thread_changes));
    check(atomic_load(&callbacks_on_caller) == 0,
          "no callback ran on a thread that makes play calls, inside the call (%d did)",
          atomic_load(&callbacks_on_caller));
}

/* "None blocks": a play call (or noti_play_new) must return within call_limit_ms, noti_play_free
   within free_limit_ms. --time-scale multiplies both (valgrind runs everything 20 to 50 times
   slower: its runs look for memory errors; the plain and ASan runs hold the bounds). */
static double call_limit_ms = 500.0;
static double free_limit_ms = 1000.0;

/* Frees the context, timed; sets `free_returned` as soon as it returns. */
static double timed_free(noti_play *player) {
    double start = now_ms();
    noti_play_free(player);
    double took = now_ms() - start;
    atomic_store(&free_returned, 1);
    return took;
}

/* ---- The scenarios ---------------------------------------------------------------------- */

typedef struct {
    const char *device;
    const char *folder;
    int requests;          /* four-threads: per thread */
    const char *capture;   /* slow-callback */
    long long expect_bytes;
} options;

/* The context of every scenario: DEVICE, and SOUNDS_FOLDER as its app folder. */
static noti_play *new_player(const options *o) {
    const char *folders[] = { o->folder };
    double start = now_ms();
    noti_play *player = noti_play_new(o->device, folders, 1);
    double took = now_ms() - start;
    check(player != NULL, "noti_play_new returned a context");
    check(took < call_limit_ms, "noti_play_new returned in %.3f ms (< %.0f)", took, call_limit_ms);
    if (!player) exit(1);
    return player;
}

/* A block the callbacks write into: freed right after noti_play_free returns, so that valgrind
   and AddressSanitizer catch a callback that runs later. */
typedef struct {
    unsigned magic;
    int calls;
} heap_data;

static atomic_int slow_callbacks;  /* free-while-playing's second round: callbacks take 20 ms */

static void touching_callback(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    enter_callback();
    heap_data *data = user_data;
    if (data->magic != 0x5eed) printf("#   callback for id %llu: user_data overwritten\n", (unsigned long long)id);
    data->calls++;
    record_callback(id, result, detail, user_data);
    if (atomic_load(&slow_callbacks)) {
        sleep_ms(20);
        data->calls++;  /* touched again at the end: free must have waited for this callback */
    }
    leave_callback();
}

/* Forgets the ids and the callback thread of a context that was freed, for the next one. */
static void reset_tracking(void) {
    pthread_mutex_lock(&lock);
    sound_count = 0;
    pthread_mutex_unlock(&lock);
    atomic_store(&callback_tid, 0);
    atomic_store(&free_returned, 0);
    atomic_store(&callbacks_total, 0);
    /* Already checked: the next round's checks count afresh. */
    atomic_store(&overlapping_callbacks, 0);
    atomic_store(&callback_thread_changes, 0);
    atomic_store(&callbacks_on_caller, 0);
}

/* One round of free-while-playing; `mid_delivery`: free once callbacks are being delivered. */
static void free_while_playing_round(const options *o, int mid_delivery) {
    noti_play *player = new_player(o);
    heap_data *data = malloc(sizeof *data);
    data->magic = 0x5eed;
    data->calls = 0;
    atomic_store(&slow_callbacks, mid_delivery);
    noti_play_set_quiet(player, 1);
    int silenced = 4 * o->requests, refused = 0;
    double slowest = 0;
    for (int i = 0; i < silenced; i++) {
        char *error = NULL;
        double start = now_ms();
        uint64_t id = noti_play_name(player, "short.caf", 1.0f, 0, touching_callback, data, &error);
        double took = now_ms() - start;
        if (took > slowest) slowest = took;
        if (id == 0) {
            if (refused++ == 0) note("noti_play_name refused: %s", error ? error : "(no message)");
            noti_play_free_string(error);
        } else {
            record_returned(id, data, 0, 1, 0);
        }
    }
    check(refused == 0, "%d quiet requests returned ids (%d refused)", silenced - refused, refused);
    int critical = 3;
    for (int i = 0; i < critical; i++) {
        char *error = NULL;
        double start = now_ms();
        uint64_t id = noti_play_name(player, "second.caf", 0.5f, NOTI_PLAY_CRITICAL, touching_callback, data, &error);
        double took = now_ms() - start;
        if (took > slowest) slowest = took;
        if (!check(id > 0, "critical request %d returned an id", i + 1)) {
            note("refused: %s", error ? error : "(no message)");
            noti_play_free_string(error);
        } else {
            record_returned(id, data, 0, 0, 1);
        }
    }
    check(slowest < call_limit_ms, "the slowest play call took %.3f ms (< %.0f)", slowest, call_limit_ms);
    if (mid_delivery) {
        double start = now_ms();
        /* The third callback has begun and sleeps: free comes in the middle of it. */
        while (atomic_load(&callbacks_total) < 3 && now_ms() - start < 10000) {
            struct timespec pause = { 0, 100000 };
            nanosleep(&pause, NULL);
        }
        check(atomic_load(&callbacks_total) >= 3 && atomic_load(&in_callback) == 1,
              "callbacks were being delivered (%d so far, one running) when noti_play_free was called",
              atomic_load(&callbacks_total));
    }

    double took = timed_free(player);
    int running = atomic_load(&in_callback);
    free(data);  /* the caller's again */
    note("noti_play_free took %.3f ms", took);
    check(took < free_limit_ms, "noti_play_free returned within %.0f ms (%.3f ms), without waiting for the device or callbacks",
          free_limit_ms, took);
    check(running == 0, "no callback was running when noti_play_free returned (%d were)", running);
    sleep_ms(300);
    check(atomic_load(&callbacks_after_free) == 0, "no callback began after noti_play_free returned (%d did)",
          atomic_load(&callbacks_after_free));

    check_exactly_once(0);
    pthread_mutex_lock(&lock);
    int loud = 0, critical_silenced = 0;
    for (int i = 0; i < sound_count; i++) {
        if (sounds[i].callbacks == 0) continue;
        if (sounds[i].silenced_expected && sounds[i].result != NOTI_PLAY_SILENCED) {
            if (loud++ < 3) printf("#   id %llu: %s '%s'\n", (unsigned long long)sounds[i].id,
                                   result_name(sounds[i].result), sounds[i].detail);
        }
        if (sounds[i].critical && sounds[i].result == NOTI_PLAY_SILENCED) critical_silenced++;
    }
    pthread_mutex_unlock(&lock);
    check(loud == 0, "every quiet request answered was SILENCED (%d were not)", loud);
    check(critical_silenced == 0, "no critical request was SILENCED (%d were)", critical_silenced);
    check_callback_threads();
}

/*
 * free-while-playing: quiet on, 4 N requests that are silenced and a few critical 1 s sounds
 * (critical passes quiet), then noti_play_free: first at once, while the requests are still on
 * their way; then, with another context, in the middle of a callback (of 20 ms each), the
 * third one delivered.
 * It returns in milliseconds, after the callback running at that moment, and no callback runs
 * after it returned (the user_data block is freed then: a late callback is a use-after-free that
 * valgrind and ASan report).
 */
static void free_while_playing(const options *o) {
    register_caller();
    note("round 1: noti_play_free at once");
    free_while_playing_round(o, 0);
    reset_tracking();
    note("round 2: noti_play_free while callbacks are being delivered");
    free_while_playing_round(o, 1);
}

/* four-threads: one thread's requests. */
typedef struct {
    noti_play *player;
    int index;
    int requests;
    int refused_unexpectedly;  /* a valid request that returned 0 */
    int accepted_invalid;      /* an invalid one that returned an id */
    int missing_message;       /* an invalid one without an error message */
    double slowest_ms;
} requester;

/* Accounts for one play call of `r` that began at `start`: its duration, its id or its refusal. */
static uint64_t accepted(requester *r, uint64_t id, char **error, double start, int ringtone) {
    double took = now_ms() - start;
    if (took > r->slowest_ms) r->slowest_ms = took;
    if (id == 0) {
        if (r->refused_unexpectedly++ == 0)
            printf("#   thread %d: a valid request was refused: %s\n", r->index, *error ? *error : "(no message)");
        noti_play_free_string(*error);
        *error = NULL;
    } else {
        record_returned(id, r, ringtone, 0, 0);
    }
    return id;
}

static void *requester_thread(void *argument) {
    requester *r = argument;
    register_caller();
    noti_play *p = r->player;
    uint64_t own[64] = { 0 };
    int owned = 0;
    const char *categories[] = { "im.received", "email.arrived", "device.added", "x-unknown.category" };
    for (int i = 0; i < r->requests; i++) {
        uint64_t id = 0;
        char *error = NULL;
        double start = now_ms();
        switch (i % 10) {
        case 0: case 1: case 2:
            id = accepted(r, noti_play_name(p, "short.caf", 0.8f, 0, recording_callback, r, &error), &error, start, 0);
            break;
        case 3: case 4: {
            noti_play_request request = NOTI_PLAY_REQUEST_INIT;
            request.app_name = "scenarios";
            request.desktop_entry = "org.example.Scenarios";
            request.category = categories[(i / 10 + r->index) % 4];
            id = accepted(r, noti_play_notify(p, &request, recording_callback, r, &error), &error, start, 0);
            break;
        }
        case 5:  /* quiet on and off, from every thread */
            noti_play_set_quiet(p, (i / 10 + r->index) % 2);
            start = now_ms();
            id = accepted(r, noti_play_name(p, "short.caf", 1.0f, 0, recording_callback, r, &error), &error, start, 0);
            break;
        case 6:  /* cancelled at once: possibly before it plays */
            id = accepted(r, noti_play_name(p, "second.caf", 1.0f, 0, recording_callback, r, &error), &error, start, 0);
            noti_play_cancel(p, id);
            break;
        case 7:  /* a ringtone, cancelled soon */
            id = accepted(r, noti_play_name(p, "short.caf", 1.0f, NOTI_PLAY_RINGTONE, recording_callback, r, &error), &error, start, 1);
            sleep_ms(2 + i % 5);
            noti_play_cancel(p, id);
            break;
        case 8:  /* the default sound, paused and resumed, and a cancel of an earlier id of ours */
            id = accepted(r, noti_play_default(p, 1.0f, 0, recording_callback, r, &error), &error, start, 0);
            noti_play_pause(p, id);
            noti_play_resume(p, id);
            if (owned > 3) noti_play_cancel(p, own[(owned - 3) % 64]);
            break;
        case 9: {  /* a request that can never play: 0, a message, no callback; then a suppressed one */
            uint64_t refused = noti_play_name(p, "../short.caf", 1.0f, 0, recording_callback, r, &error);
            if (refused != 0) { r->accepted_invalid++; record_returned(refused, r, 0, 0, 0); }
            if (error == NULL) r->missing_message++;
            noti_play_free_string(error);
            error = NULL;
            noti_play_request request = NOTI_PLAY_REQUEST_INIT;
            request.suppress_sound = 1;
            start = now_ms();
            id = accepted(r, noti_play_notify(p, &request, recording_callback, r, &error), &error, start, 0);
            break;
        }
        }
        if (id) own[owned++ % 64] = id;
    }
    return NULL;
}

/*
 * four-threads: 4 threads make N requests each (names, notifications with a category, quiet
 * toggles, cancels, ringtones cancelled, the default, refused names). Every id is answered
 * exactly once, with its user_data; a refused request returns 0, a message and no callback.
 */
static void four_threads(const options *o) {
    register_caller();
    noti_play *player = new_player(o);
    enum { thread_count = 4 };
    requester requesters[thread_count];
    pthread_t threads[thread_count];
    for (int t = 0; t < thread_count; t++) {
        requesters[t] = (requester){ .player = player, .index = t, .requests = o->requests };
        pthread_create(&threads[t], NULL, requester_thread, &requesters[t]);
    }
    for (int t = 0; t < thread_count; t++) pthread_join(threads[t], NULL);
    noti_play_set_quiet(player, 0);
    int refused = 0, accepted_invalid = 0, missing_message = 0;
    double slowest = 0;
    for (int t = 0; t < thread_count; t++) {
        refused += requesters[t].refused_unexpectedly;
        accepted_invalid += requesters[t].accepted_invalid;
        missing_message += requesters[t].missing_message;
        if (requesters[t].slowest_ms > slowest) slowest = requesters[t].slowest_ms;
    }
    check(refused == 0, "every valid request returned an id (%d returned 0)", refused);
    check(accepted_invalid == 0, "every sound name that is a path returned 0 (%d returned an id)", accepted_invalid);
    check(missing_message == 0, "every refused request stored an error message (%d did not)", missing_message);
    check(slowest < call_limit_ms, "the slowest play call took %.3f ms (< %.0f)", slowest, call_limit_ms);

    double start = now_ms();
    int answered = wait_all_answered(0, 30);
    check(answered, "every id was answered within 30 s (%.0f ms after the last request)", now_ms() - start);
    sleep_ms(200);  /* a second callback for an id would come now */
    check_exactly_once(1);

    pthread_mutex_lock(&lock);
    int ringtone_finished = 0, failed = 0;
    for (int i = 0; i < sound_count; i++) {
        if (sounds[i].callbacks == 0) continue;
        if (sounds[i].ringtone && sounds[i].result == NOTI_PLAY_FINISHED) ringtone_finished++;
        if (sounds[i].result == NOTI_PLAY_FAILED && failed++ < 3)
            printf("#   id %llu FAILED: %s\n", (unsigned long long)sounds[i].id, sounds[i].detail);
    }
    int total = sound_count;
    pthread_mutex_unlock(&lock);
    note("%d ids in all", total);
    check(ringtone_finished == 0, "no ringtone FINISHED: it loops until cancelled (%d did)", ringtone_finished);
    check(failed == 0, "no request FAILED (%d did)", failed);
    check_callback_threads();

    double took = timed_free(player);
    note("noti_play_free took %.3f ms", took);
    check(took < free_limit_ms, "noti_play_free returned within %.0f ms (%.3f ms)", free_limit_ms, took);
}

/* cancel-in-callback: which sound a callback is for, by its user_data. */
typedef struct {
    const char *role;
} role;

static role ringtone_role = { "ringtone" }, short_role = { "short" }, third_role = { "third" };
static noti_play *cancel_player;
static uint64_t ringtone_id, short_id, third_id;  /* under `lock` */
static int inner_calls_ok = 1;

static void cancel_in_callback_callback(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    enter_callback();
    if (user_data == &short_role) {
        /* Every function may be called here: the ringtone is paused, resumed and cancelled, a
           third sound starts, a refused call returns its message. None may block. */
        noti_play *p = cancel_player;
        uint64_t ringtone = returned_id(&ringtone_id);
        double start = now_ms();
        noti_play_pause(p, ringtone);
        noti_play_resume(p, ringtone);
        noti_play_set_quiet(p, 0);
        char *error = NULL;
        if (noti_play_name(p, "../short.caf", 1.0f, 0, cancel_in_callback_callback, &third_role, &error) != 0) inner_calls_ok = 0;
        if (error == NULL) inner_calls_ok = 0;
        noti_play_free_string(error);
        if (noti_play_version() == NULL) inner_calls_ok = 0;
        noti_play_cancel(p, ringtone);
        error = NULL;
        uint64_t third = noti_play_name(p, "short.caf", 1.0f, 0, cancel_in_callback_callback, &third_role, &error);
        double took = now_ms() - start;
        printf("# inside the short sound's callback: pause, resume, set_quiet, a refused call, version, cancel, a play: %.3f ms\n", took);
        if (took >= call_limit_ms) inner_calls_ok = 0;
        if (third == 0) {
            printf("#   the third sound was refused: %s\n", error ? error : "(no message)");
            noti_play_free_string(error);
            inner_calls_ok = 0;
        } else {
            pthread_mutex_lock(&lock);
            third_id = third;
            pthread_mutex_unlock(&lock);
            record_returned(third, &third_role, 0, 0, 0);
        }
    }
    record_callback(id, result, detail, user_data);
    leave_callback();
}

/*
 * cancel-in-callback: a ringtone loops; a short sound's callback cancels it and starts a third
 * sound. All three are answered exactly once (ringtone CANCELLED, the others FINISHED): no
 * deadlock between a callback and the calls it makes.
 */
static void cancel_in_callback(const options *o) {
    register_caller();
    noti_play *player = new_player(o);
    cancel_player = player;
    char *error = NULL;
    uint64_t ringtone = noti_play_name(player, "short.caf", 1.0f, NOTI_PLAY_RINGTONE, cancel_in_callback_callback, &ringtone_role, &error);
    if (!check(ringtone > 0, "the ringtone returned an id")) { note("%s", error ? error : "(no message)"); exit(1); }
    pthread_mutex_lock(&lock);
    ringtone_id = ringtone;
    pthread_mutex_unlock(&lock);
    record_returned(ringtone, &ringtone_role, 1, 0, 0);
    uint64_t short_sound = noti_play_name(player, "short.caf", 1.0f, 0, cancel_in_callback_callback, &short_role, &error);
    if (!check(short_sound > 0, "the short sound returned an id")) { note("%s", error ? error : "(no message)"); exit(1); }
    pthread_mutex_lock(&lock);
    short_id = short_sound;
    pthread_mutex_unlock(&lock);
    record_returned(short_sound, &short_role, 0, 0, 0);

    double start = now_ms();
    int answered = wait_all_answered(3, 30);
    check(answered, "the ringtone, the short sound and the third sound were answered within 30 s (%.0f ms)", now_ms() - start);
    sleep_ms(200);
    check_exactly_once(1);
    check(inner_calls_ok, "every call inside the callback returned at once, as documented");

    pthread_mutex_lock(&lock);
    sound_record *r = record_locked(ringtone_id), *s = record_locked(short_id);
    sound_record *t = third_id ? record_locked(third_id) : NULL;
    noti_play_result rr = r->result, sr = s->result, tr = t ? t->result : NOTI_PLAY_FAILED;
    int rc = r->callbacks, sc = s->callbacks, tc = t ? t->callbacks : 0;
    char rd[200], sd[200], td[200];
    snprintf(rd, sizeof rd, "%s", r->detail);
    snprintf(sd, sizeof sd, "%s", s->detail);
    snprintf(td, sizeof td, "%s", t ? t->detail : "");
    pthread_mutex_unlock(&lock);
    check(rc == 1 && rr == NOTI_PLAY_CANCELLED, "the ringtone was CANCELLED (%d callback(s), %s '%s')", rc, result_name(rr), rd);
    check(sc == 1 && sr == NOTI_PLAY_FINISHED, "the short sound FINISHED (%d callback(s), %s '%s')", sc, result_name(sr), sd);
    check(t != NULL && tc == 1 && tr == NOTI_PLAY_FINISHED, "the third sound FINISHED (%d callback(s), %s '%s')", tc, result_name(tr), td);
    check_callback_threads();

    double took = timed_free(player);
    check(took < free_limit_ms, "noti_play_free returned within %.0f ms (%.3f ms)", free_limit_ms, took);
}

/* free-in-callback: the first callback frees its own context. */
static _Atomic(noti_play *) freeing_player;
static atomic_int freed_inside;
static double free_inside_ms;

static void freeing_callback(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    enter_callback();
    heap_data *data = user_data;
    data->calls++;
    record_callback(id, result, detail, user_data);
    noti_play *player = atomic_exchange(&freeing_player, NULL);  /* the first callback frees */
    if (player) {
        double start = now_ms();
        noti_play_free(player);
        free_inside_ms = now_ms() - start;
        atomic_store(&free_returned, 1);
        atomic_store(&freed_inside, 1);
    }
    leave_callback();
}

/*
 * free-in-callback: noti_play_free of the context from inside one of its callbacks returns,
 * a looping ringtone's callback is dropped, and no callback runs after it.
 */
static void free_in_callback(const options *o) {
    register_caller();
    noti_play *player = new_player(o);
    atomic_store(&freeing_player, player);
    heap_data *ringtone_data = malloc(sizeof *ringtone_data), *short_data = malloc(sizeof *short_data);
    *ringtone_data = (heap_data){ 0x5eed, 0 };
    *short_data = (heap_data){ 0x5eed, 0 };
    char *error = NULL;
    uint64_t ringtone = noti_play_name(player, "short.caf", 1.0f, NOTI_PLAY_RINGTONE, freeing_callback, ringtone_data, &error);
    if (!check(ringtone > 0, "the ringtone returned an id")) { note("%s", error ? error : "(no message)"); exit(1); }
    record_returned(ringtone, ringtone_data, 1, 0, 0);
    uint64_t short_sound = noti_play_name(player, "short.caf", 1.0f, 0, freeing_callback, short_data, &error);
    if (!check(short_sound > 0, "the short sound returned an id")) { note("%s", error ? error : "(no message)"); exit(1); }
    record_returned(short_sound, short_data, 0, 0, 0);

    double start = now_ms();
    while (!atomic_load(&freed_inside) && now_ms() - start < 30000) sleep_ms(10);
    int returned = atomic_load(&freed_inside);
    check(returned, "noti_play_free, called inside a callback, returned (within 30 s)");
    if (returned) {
        note("noti_play_free inside the callback took %.3f ms", free_inside_ms);
        check(free_inside_ms < free_limit_ms, "noti_play_free inside the callback returned within %.0f ms (%.3f ms)", free_limit_ms, free_inside_ms);
    }
    sleep_ms(300);
    check(atomic_load(&callbacks_after_free) == 0, "no callback began after noti_play_free returned (%d did)",
          atomic_load(&callbacks_after_free));
    check(short_data->calls == 1 && ringtone_data->calls == 0,
          "the short sound was answered once and the ringtone, which loops, never (%d and %d callbacks)",
          short_data->calls, ringtone_data->calls);
    free(ringtone_data);
    free(short_data);
    check_exactly_once(0);
    check_callback_threads();
}

/* blocking-device: one sound's outcome. */
static noti_play_result blocked_result;
static char blocked_detail[512];
static atomic_int blocked_answered;
static double blocked_answered_at;

static void blocked_callback(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    enter_callback();
    if (user_data == &blocked_result && !atomic_load(&blocked_answered)) {
        blocked_result = result;
        snprintf(blocked_detail, sizeof blocked_detail, "%s", detail ? detail : "(null)");
        blocked_answered_at = now_ms();
        atomic_store(&blocked_answered, 1);
    }
    record_callback(id, result, detail, user_data);
    leave_callback();
}

/*
 * blocking-device: the device's open never returns (a FIFO without reader). Play calls still
 * return at once; after 5 s the request FAILED with "did not open within"; a second play is
 * accepted, and noti_play_free returns at once although the open is still stuck.
 */
static void blocking_device(const options *o) {
    register_caller();
    noti_play *player = new_player(o);
    char *error = NULL;
    double start = now_ms();
    uint64_t id = noti_play_name(player, "short.caf", 1.0f, 0, blocked_callback, &blocked_result, &error);
    double took = now_ms() - start;
    note("noti_play_name on a device whose open blocks returned in %.3f ms", took);
    check(took < call_limit_ms, "noti_play_name returned in %.3f ms (< %.0f) although the device does not open", took, call_limit_ms);
    if (!check(id > 0, "noti_play_name returned an id")) { note("%s", error ? error : "(no message)"); exit(1); }
    record_returned(id, &blocked_result, 0, 0, 0);

    while (!atomic_load(&blocked_answered) && now_ms() - start < 10000) sleep_ms(10);
    int answered = atomic_load(&blocked_answered);
    if (check(answered, "the request was answered within 10 s")) {
        note("answered after %.0f ms: %s '%s'", blocked_answered_at - start, result_name(blocked_result), blocked_detail);
        check(blocked_result == NOTI_PLAY_FAILED, "it FAILED (%s)", result_name(blocked_result));
        check(strstr(blocked_detail, "did not open within") != NULL, "its detail says the device did not open in time: '%s'", blocked_detail);
        check(strchr(blocked_detail, '\n') == NULL, "its detail is one line");
    }

    start = now_ms();
    uint64_t second = noti_play_name(player, "short.caf", 1.0f, 0, blocked_callback, NULL, &error);
    took = now_ms() - start;
    check(took < call_limit_ms, "a second play returned in %.3f ms (< %.0f)", took, call_limit_ms);
    if (check(second > 0, "the second play returned an id")) record_returned(second, NULL, 0, 0, 0);
    else { note("%s", error ? error : "(no message)"); noti_play_free_string(error); }

    took = timed_free(player);
    note("noti_play_free with the device's open still stuck took %.3f ms", took);
    check(took < free_limit_ms, "noti_play_free returned within %.0f ms (%.3f ms) although the open is stuck", free_limit_ms, took);
    sleep_ms(300);
    check(atomic_load(&callbacks_after_free) == 0, "no callback began after noti_play_free returned (%d did)",
          atomic_load(&callbacks_after_free));
    check_exactly_once(0);
    check_callback_threads();
}

/* slow-callback: A's callback sleeps 5 s. */
static role a_role = { "A" }, b_role = { "B" };
static atomic_int a_callback_began;
static double a_callback_began_at;

static void slow_callback(uint64_t id, noti_play_result result, const char *detail, void *user_data) {
    enter_callback();
    if (user_data == &a_role) {
        a_callback_began_at = now_ms();
        atomic_store(&a_callback_began, 1);
        sleep_ms(5000);
    }
    record_callback(id, result, detail, user_data);
    leave_callback();
}

static long long file_size(const char *path) {
    struct stat info;
    return stat(path, &info) == 0 ? (long long)info.st_size : 0;
}

/*
 * slow-callback: sound A's callback sleeps 5 s. B, a 1 s sound started while it sleeps, plays
 * to its end all the same: the capture (a device without a clock) reaches the bytes of A and B
 * within 4 s. A callback delays other callbacks, never the sound.
 *
 * B starts once A's callback has begun, so that A's frames are all written before B's and the
 * capture holds exactly A then B (the device stays open between them: ALSA's file plugin
 * truncates the file when it opens).
 */
static void slow_callback_scenario(const options *o) {
    register_caller();
    noti_play *player = new_player(o);
    char *error = NULL;
    uint64_t a = noti_play_name(player, "short.caf", 1.0f, 0, slow_callback, &a_role, &error);
    if (!check(a > 0, "sound A returned an id")) { note("%s", error ? error : "(no message)"); exit(1); }
    record_returned(a, &a_role, 0, 0, 0);
    double start = now_ms();
    while (!atomic_load(&a_callback_began) && now_ms() - start < 10000) sleep_ms(2);
    if (!check(atomic_load(&a_callback_began), "A's callback began within 10 s")) exit(1);

    start = now_ms();
    uint64_t b = noti_play_name(player, "second.caf", 1.0f, 0, slow_callback, &b_role, &error);
    double took = now_ms() - start;
    check(took < call_limit_ms, "B's play call, made while A's callback sleeps, returned in %.3f ms (< %.0f)", took, call_limit_ms);
    if (!check(b > 0, "sound B returned an id")) { note("%s", error ? error : "(no message)"); exit(1); }
    record_returned(b, &b_role, 0, 0, 0);

    /* Until both are answered: the capture's size every 20 ms. A capture that grows past twice
       A and B means a device fed without end (silence, a loop): free at once, before it fills
       the disk. */
    long long size = 0;
    double reached = -1;
    int asleep = 0, runaway = 0;
    for (;;) {
        size = file_size(o->capture);
        if (reached < 0 && size >= o->expect_bytes) {
            reached = now_ms() - start;
            asleep = now_ms() - a_callback_began_at < 5000;
        }
        if (size > 2 * o->expect_bytes) { runaway = 1; break; }
        if ((reached >= 0 && answered_now(2)) || now_ms() - start > 30000) break;
        sleep_ms(20);
    }
    if (runaway) {
        check(0, "the capture stays within A and B: it grew to %lld bytes (A and B make %lld); freeing the context", size, o->expect_bytes);
        timed_free(player);
        return;
    }
    if (reached >= 0)
        note("the capture held all %lld bytes %.0f ms after B started (A's callback still asleep: %s)",
             o->expect_bytes, reached, asleep ? "yes" : "no");
    else
        note("the capture held %lld of %lld bytes", size, o->expect_bytes);
    if (reached >= 0)
        check(reached <= 4000 && asleep, "all of A and B reached the device within 4 s while A's callback slept (%.0f ms)", reached);
    else
        check(0, "all of A and B reached the device within 4 s while A's callback slept (never: %lld of %lld bytes)",
              size, o->expect_bytes);

    check(answered_now(2), "A and B were answered within 30 s");
    sleep_ms(100);
    check_exactly_once(1);
    check(file_size(o->capture) == o->expect_bytes, "the capture holds exactly A and B: %lld bytes (expected %lld)",
          file_size(o->capture), o->expect_bytes);
    pthread_mutex_lock(&lock);
    sound_record *ra = record_locked(a), *rb = record_locked(b);
    noti_play_result ar = ra->result, br = rb->result;
    pthread_mutex_unlock(&lock);
    check(ar == NOTI_PLAY_FINISHED, "A FINISHED (%s)", result_name(ar));
    check(br == NOTI_PLAY_FINISHED, "B FINISHED (%s)", result_name(br));
    check_callback_threads();

    took = timed_free(player);
    check(took < free_limit_ms, "noti_play_free returned within %.0f ms (%.3f ms)", free_limit_ms, took);
}

/* ---- main --------------------------------------------------------------------------------- */

static int usage(void) {
    fprintf(stderr, "usage: scenarios free-while-playing|four-threads|cancel-in-callback|free-in-callback|"
                    "blocking-device|slow-callback DEVICE SOUNDS_FOLDER [--requests N] [--time-scale N]\n"
                    "    [--capture FILE --expect-bytes N]\n");
    return 64;
}

int main(int argc, char **argv) {
    if (argc < 4) return usage();
    int time_scale = 1;
    options o = { .device = argv[2], .folder = argv[3], .requests = 50, .capture = NULL, .expect_bytes = -1 };
    for (int i = 4; i < argc; i++) {
        if (i + 1 >= argc) return usage();
        if (strcmp(argv[i], "--requests") == 0) o.requests = atoi(argv[++i]);
        else if (strcmp(argv[i], "--time-scale") == 0) time_scale = atoi(argv[++i]);
        else if (strcmp(argv[i], "--capture") == 0) o.capture = argv[++i];
        else if (strcmp(argv[i], "--expect-bytes") == 0) o.expect_bytes = atoll(argv[++i]);
        else return usage();
    }
    if (o.requests < 1 || o.requests > 400 || time_scale < 1) return usage();
    call_limit_ms *= time_scale;
    free_limit_ms *= time_scale;

    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&changed, &attributes);
    pthread_condattr_destroy(&attributes);
    pthread_t dog;
    pthread_create(&dog, NULL, watchdog, NULL);
    pthread_detach(dog);

    const char *scenario = argv[1];
    note("scenario %s, noti-play %s (header %d.%d.%d), device %s", scenario, noti_play_version(),
         NOTI_PLAY_VERSION_MAJOR, NOTI_PLAY_VERSION_MINOR, NOTI_PLAY_VERSION_PATCH, o.device);
    if (strcmp(scenario, "free-while-playing") == 0) free_while_playing(&o);
    else if (strcmp(scenario, "four-threads") == 0) four_threads(&o);
    else if (strcmp(scenario, "cancel-in-callback") == 0) cancel_in_callback(&o);
    else if (strcmp(scenario, "free-in-callback") == 0) free_in_callback(&o);
    else if (strcmp(scenario, "blocking-device") == 0) blocking_device(&o);
    else if (strcmp(scenario, "slow-callback") == 0) {
        if (!o.capture || o.expect_bytes <= 0) return usage();
        slow_callback_scenario(&o);
    } else return usage();

    printf("%s: %d check(s) failed\n", scenario, failures);
    fflush(stdout);
    return failures == 0 ? 0 : 1;
}
