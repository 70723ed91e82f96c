#ifndef NOTI_LIBRARY_LOADER_H
#define NOTI_LIBRARY_LOADER_H

/*
 * A shared library noti-play loads the first time it needs it rather than linking it (libsndfile
 * and its seven codec libraries, libFLAC): dlopen'ed once, thread-safe, RTLD_LOCAL (its symbols
 * stay out of the host's namespace), never closed (codec libraries keep state, and unloading them
 * is a known source of crashes). Each loader lists the functions it calls once, in one table of
 * symbols, and gets a one-line reason when the library cannot be used.
 */
#include <pthread.h>

typedef struct {
    /* The symbol as the library exports it. */
    const char *name;
    /* Where its address goes: a function pointer's storage, as `void **` (POSIX makes dlsym's
     * object pointer usable as a function pointer). */
    void **slot;
} noti_symbol;

typedef struct {
    /* The file dlopen looks for ("libFLAC.so.12"). */
    const char *soname;
    /* The reason when it is not installed: what it is and what needs it. */
    const char *missing;
    /* Its functions, ended by { NULL, NULL }. */
    const noti_symbol *symbols;
    /* Private to noti_library_load. */
    pthread_mutex_t lock;
    int tried;
    const char *failure;
    char reason[192];
} noti_library;

#define NOTI_LIBRARY(soname, missing, symbols) \
    { (soname), (missing), (symbols), PTHREAD_MUTEX_INITIALIZER, 0, 0, { 0 } }

/* Loads `library` and resolves every symbol of its table, the first time it is called for it;
 * later calls (from any thread) return the same answer at once. NULL when every function is
 * there, else a one-line reason ("libsndfile.so.1 lacks sf_open_fd, which noti-play calls"). */
const char *noti_library_load(noti_library *library);

#endif
