#ifndef NOTI_OGG_FLAC_H
#define NOTI_OGG_FLAC_H

/*
 * FLAC in an Ogg stream (the `.oga` sounds of some themes, deepin's among them), decoded by
 * libFLAC, loaded the first time such a sound is opened (libFLAC.so.12, not linked; its header
 * only, from libflac-dev). libsndfile 1.2.0 refuses these files ("unknown error in flac decoder").
 *
 * The file is read through the descriptor noti-play opened and checked, with pread (its offset is
 * never used or moved), never through its path. One stream is used by one thread at a time.
 */
#include <stddef.h>

typedef struct noti_ogg_flac noti_ogg_flac;

/* The most bytes noti_is_ogg_flac looks at: an Ogg page header with its segment table, and the
 * start of the first packet. */
#define NOTI_OGG_FLAC_SNIFF_BYTES 288

/* Whether a file that starts with these `count` bytes is Ogg FLAC: its first Ogg page begins a
 * stream whose first packet is FLAC's Ogg mapping header (0x7F "FLAC", mapping version 1). */
int noti_is_ogg_flac(const unsigned char *start, size_t count);

/* Loads libFLAC.so.12 once (thread-safe). NULL when it is loaded, else a one-line reason. */
const char *noti_ogg_flac_load(void);

typedef struct {
    unsigned sample_rate, channels, bits_per_sample;
    /* As the file states it: FLAC's STREAMINFO total, or when that is 0 (ffmpeg writes 0), the
     * granule position of the stream's last Ogg page. Reading stops there. */
    long long frames;
} noti_ogg_flac_info;

/* The reasons below (`error`) are static one-line strings. */

/* Opens the stream in the `byte_count` bytes of `fd` (valid until noti_ogg_flac_close; not closed
 * by it) and reads its metadata. NULL with the reason in `error` when it cannot be decoded. Call
 * noti_ogg_flac_load first. */
noti_ogg_flac *noti_ogg_flac_open(int fd, long long byte_count, noti_ogg_flac_info *info, const char **error);

/* Decodes up to `count` frames into `frames` (interleaved, full scale +-1.0). The frames decoded:
 * fewer only at the end of the stream; -1 with the reason in `error` when it is damaged. */
long noti_ogg_flac_read(noti_ogg_flac *stream, float *frames, long count, const char **error);

/* Starts again from the first frame (a ringtone's loop). 0, or -1 with the reason in `error`. */
int noti_ogg_flac_rewind(noti_ogg_flac *stream, const char **error);

void noti_ogg_flac_close(noti_ogg_flac *stream);

#endif
