#ifndef NOTI_SNDFILE_LOADER_H
#define NOTI_SNDFILE_LOADER_H

/*
 * libsndfile, loaded the first time a sound needs it (an Ogg or FLAC theme sound, a format only
 * it reads) rather than with noti-play: it brings seven codec libraries (FLAC, Vorbis, Opus,
 * mpg123, LAME...) that most processes never use. Its types and constants come from its header;
 * its functions are called through noti_sf_*, which are valid once noti_sndfile_load() has
 * returned NULL.
 */
#include <sndfile.h>

/* Loads libsndfile.so.1 once (thread-safe). NULL when it is loaded, else a one-line reason. */
const char *noti_sndfile_load(void);

SNDFILE *noti_sf_open_fd(int fd, int mode, SF_INFO *info, int close_desc);
int noti_sf_close(SNDFILE *file);
sf_count_t noti_sf_readf_float(SNDFILE *file, float *frames, sf_count_t count);
sf_count_t noti_sf_seek(SNDFILE *file, sf_count_t frames, int whence);
int noti_sf_command(SNDFILE *file, int command, void *data, int size);

#endif
