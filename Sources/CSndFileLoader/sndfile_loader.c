#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include "sndfile_loader.h"

static struct {
    SNDFILE *(*open_fd)(int, int, SF_INFO *, int);
    int (*close)(SNDFILE *);
    sf_count_t (*readf_float)(SNDFILE *, float *, sf_count_t);
    sf_count_t (*seek)(SNDFILE *, sf_count_t, int);
    int (*command)(SNDFILE *, int, void *, int);
} api;
static const char *failure;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlsym's object pointer as a function pointer, the way POSIX allows it. */
#define RESOLVE(library, field, symbol) (*(void **)(&api.field) = dlsym(library, symbol))

static void load(void) {
    /* RTLD_LOCAL: its symbols stay out of the host's namespace. Never closed: noti-play may
     * decode with it at any time, and unloading codec libraries is a known source of crashes. */
    void *library = dlopen("libsndfile.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        failure = "libsndfile (libsndfile.so.1) is not installed";
        return;
    }
    if (!RESOLVE(library, open_fd, "sf_open_fd") || !RESOLVE(library, close, "sf_close")
        || !RESOLVE(library, readf_float, "sf_readf_float") || !RESOLVE(library, seek, "sf_seek")
        || !RESOLVE(library, command, "sf_command")) {
        failure = "libsndfile.so.1 lacks a function noti-play needs";
    }
}

const char *noti_sndfile_load(void) {
    /* Fails only for an invalid once-control, which this static one is not. */
    pthread_once(&once, load);
    return failure;
}

SNDFILE *noti_sf_open_fd(int fd, int mode, SF_INFO *info, int close_desc) { return api.open_fd(fd, mode, info, close_desc); }
int noti_sf_close(SNDFILE *file) { return api.close(file); }
sf_count_t noti_sf_readf_float(SNDFILE *file, float *frames, sf_count_t count) { return api.readf_float(file, frames, count); }
sf_count_t noti_sf_seek(SNDFILE *file, sf_count_t frames, int whence) { return api.seek(file, frames, whence); }
int noti_sf_command(SNDFILE *file, int command, void *data, int size) { return api.command(file, command, data, size); }
