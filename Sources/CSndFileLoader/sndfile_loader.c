#include <stddef.h>
#include "library_loader.h"
#include "sndfile_loader.h"

static struct {
    SNDFILE *(*open_fd)(int, int, SF_INFO *, int);
    int (*close)(SNDFILE *);
    sf_count_t (*readf_float)(SNDFILE *, float *, sf_count_t);
    sf_count_t (*seek)(SNDFILE *, sf_count_t, int);
    int (*command)(SNDFILE *, int, void *, int);
} api;

static const noti_symbol symbols[] = {
    { "sf_open_fd", (void **)&api.open_fd },
    { "sf_close", (void **)&api.close },
    { "sf_readf_float", (void **)&api.readf_float },
    { "sf_seek", (void **)&api.seek },
    { "sf_command", (void **)&api.command },
    { NULL, NULL },
};

static noti_library libsndfile = NOTI_LIBRARY("libsndfile.so.1", "libsndfile (libsndfile.so.1) is not installed", symbols);

const char *noti_sndfile_load(void) { return noti_library_load(&libsndfile); }

SNDFILE *noti_sf_open_fd(int fd, int mode, SF_INFO *info, int close_desc) { return api.open_fd(fd, mode, info, close_desc); }
int noti_sf_close(SNDFILE *file) { return api.close(file); }
sf_count_t noti_sf_readf_float(SNDFILE *file, float *frames, sf_count_t count) { return api.readf_float(file, frames, count); }
sf_count_t noti_sf_seek(SNDFILE *file, sf_count_t frames, int whence) { return api.seek(file, frames, whence); }
int noti_sf_command(SNDFILE *file, int command, void *data, int size) { return api.command(file, command, data, size); }
