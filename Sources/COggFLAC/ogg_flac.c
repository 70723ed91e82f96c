#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <FLAC/stream_decoder.h>
#include "library_loader.h"
#include "ogg_flac.h"

/* libFLAC's functions, typed by its own header (never linked: __typeof__ is not a reference). */
static struct {
    __typeof__(&FLAC__stream_decoder_new) new_decoder;
    __typeof__(&FLAC__stream_decoder_delete) delete_decoder;
    __typeof__(&FLAC__stream_decoder_init_ogg_stream) init_ogg_stream;
    __typeof__(&FLAC__stream_decoder_process_until_end_of_metadata) process_until_end_of_metadata;
    __typeof__(&FLAC__stream_decoder_process_single) process_single;
    __typeof__(&FLAC__stream_decoder_get_state) get_state;
    __typeof__(&FLAC__stream_decoder_reset) reset;
} flac;

static const noti_symbol symbols[] = {
    { "FLAC__stream_decoder_new", (void **)&flac.new_decoder },
    { "FLAC__stream_decoder_delete", (void **)&flac.delete_decoder },
    { "FLAC__stream_decoder_init_ogg_stream", (void **)&flac.init_ogg_stream },
    { "FLAC__stream_decoder_process_until_end_of_metadata", (void **)&flac.process_until_end_of_metadata },
    { "FLAC__stream_decoder_process_single", (void **)&flac.process_single },
    { "FLAC__stream_decoder_get_state", (void **)&flac.get_state },
    { "FLAC__stream_decoder_reset", (void **)&flac.reset },
    { NULL, NULL },
};

static noti_library libflac = NOTI_LIBRARY(
    "libFLAC.so.12", "libFLAC (libFLAC.so.12), which decodes Ogg FLAC sounds, is not installed", symbols);

const char *noti_ogg_flac_load(void) { return noti_library_load(&libflac); }

/* An Ogg page: a 27-byte header, a segment table of up to 255 bytes, up to 255 * 255 bytes. */
#define OGG_HEADER_BYTES 27
#define OGG_PAGE_MAX (OGG_HEADER_BYTES + 255 + 255 * 255)

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

int noti_is_ogg_flac(const unsigned char *start, size_t count) {
    if (count < OGG_HEADER_BYTES || memcmp(start, "OggS", 4) != 0 || start[4] != 0) return 0;
    size_t packet = OGG_HEADER_BYTES + start[26];
    /* The first page begins the stream (flag 2); FLAC's mapping puts 0x7F "FLAC" 1 first. */
    return (start[5] & 2) && count >= packet + 6 && memcmp(start + packet, "\x7F" "FLAC\x01", 6) == 0;
}

struct noti_ogg_flac {
    FLAC__StreamDecoder *decoder;
    int fd;
    uint64_t byte_count, position;
    noti_ogg_flac_info info;
    /* Whether STREAMINFO was read (a rewind reads it again: that copy is ignored). */
    int has_streaminfo;
    unsigned long long streaminfo_frames;
    /* Frames handed out since the first. */
    long long delivered;
    /* The FLAC frame decoded last, interleaved, and how much of it was handed out. */
    float *block;
    size_t block_capacity;
    unsigned block_frames, block_used;
    /* Why the decoder stopped or complained (the first reason), or NULL. */
    const char *problem;
};

/* Input: the descriptor, read at our own position with pread. */
static FLAC__StreamDecoderReadStatus on_read(const FLAC__StreamDecoder *decoder, FLAC__byte buffer[], size_t *bytes, void *data) {
    (void)decoder;
    noti_ogg_flac *s = data;
    ssize_t n;
    do n = pread(s->fd, buffer, *bytes, (off_t)s->position);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        *bytes = 0;
        s->problem = s->problem ? s->problem : "the file cannot be read";
        return FLAC__STREAM_DECODER_READ_STATUS_ABORT;
    }
    *bytes = (size_t)n;
    s->position += (uint64_t)n;
    return n == 0 ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_CONTINUE;
}

static FLAC__StreamDecoderSeekStatus on_seek(const FLAC__StreamDecoder *decoder, FLAC__uint64 offset, void *data) {
    (void)decoder;
    noti_ogg_flac *s = data;
    if (offset > s->byte_count) return FLAC__STREAM_DECODER_SEEK_STATUS_ERROR;
    s->position = offset;
    return FLAC__STREAM_DECODER_SEEK_STATUS_OK;
}

static FLAC__StreamDecoderTellStatus on_tell(const FLAC__StreamDecoder *decoder, FLAC__uint64 *offset, void *data) {
    (void)decoder;
    *offset = ((noti_ogg_flac *)data)->position;
    return FLAC__STREAM_DECODER_TELL_STATUS_OK;
}

static FLAC__StreamDecoderLengthStatus on_length(const FLAC__StreamDecoder *decoder, FLAC__uint64 *length, void *data) {
    (void)decoder;
    *length = ((noti_ogg_flac *)data)->byte_count;
    return FLAC__STREAM_DECODER_LENGTH_STATUS_OK;
}

static FLAC__bool on_eof(const FLAC__StreamDecoder *decoder, void *data) {
    (void)decoder;
    noti_ogg_flac *s = data;
    return s->position >= s->byte_count;
}

static void on_metadata(const FLAC__StreamDecoder *decoder, const FLAC__StreamMetadata *metadata, void *data) {
    (void)decoder;
    noti_ogg_flac *s = data;
    if (metadata->type != FLAC__METADATA_TYPE_STREAMINFO || s->has_streaminfo) return;
    const FLAC__StreamMetadata_StreamInfo *info = &metadata->data.stream_info;
    s->info.sample_rate = info->sample_rate;
    s->info.channels = info->channels;
    s->info.bits_per_sample = info->bits_per_sample;
    s->streaminfo_frames = info->total_samples;
    s->has_streaminfo = 1;
}

/* Each FLAC frame, converted as it arrives: a sample of B bits over 2^(B-1) (exact for up to 24). */
static FLAC__StreamDecoderWriteStatus on_write(const FLAC__StreamDecoder *decoder, const FLAC__Frame *frame,
                                               const FLAC__int32 *const planes[], void *data) {
    (void)decoder;
    noti_ogg_flac *s = data;
    unsigned channels = frame->header.channels, frames = frame->header.blocksize, bits = frame->header.bits_per_sample;
    if (channels != s->info.channels) {
        s->problem = "a FLAC frame has another channel count than the stream";
        return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT;
    }
    if (bits < 4 || bits > 32) {
        s->problem = "a FLAC frame has an impossible sample size";
        return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT;
    }
    /* FLAC's limits bound this: 65535 frames of 8 channels, 2 MiB. */
    size_t needed = (size_t)frames * channels;
    if (needed > s->block_capacity) {
        float *grown = realloc(s->block, needed * sizeof(float));
        if (!grown) {
            s->problem = "out of memory for a FLAC frame";
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT;
        }
        s->block = grown;
        s->block_capacity = needed;
    }
    float scale = 1.0f / (float)(1ull << (bits - 1));
    for (unsigned c = 0; c < channels; c++) {
        const FLAC__int32 *plane = planes[c];
        for (unsigned i = 0; i < frames; i++) s->block[(size_t)i * channels + c] = (float)plane[i] * scale;
    }
    s->block_frames = frames;
    s->block_used = 0;
    return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE;
}

/* libFLAC reports damage here and goes on (a frame with a bad CRC comes as silence): noti-play
 * plays none of a damaged file rather than a guess. */
static void on_error(const FLAC__StreamDecoder *decoder, FLAC__StreamDecoderErrorStatus status, void *data) {
    (void)decoder;
    noti_ogg_flac *s = data;
    if (s->problem) return;
    switch (status) {
    case FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC: s->problem = "its FLAC data is damaged (lost sync)"; break;
    case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_HEADER: s->problem = "a FLAC frame header is damaged"; break;
    case FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH: s->problem = "a FLAC frame is damaged (its CRC does not match)"; break;
    case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_METADATA: s->problem = "its FLAC metadata is damaged"; break;
    default: s->problem = "its FLAC stream cannot be decoded"; break;
    }
}

/* Why the decoder stopped, for a process call that returned false without a reason of ours. */
static const char *state_problem(FLAC__StreamDecoderState state) {
    switch (state) {
    case FLAC__STREAM_DECODER_OGG_ERROR: return "its Ogg stream is damaged";
    case FLAC__STREAM_DECODER_MEMORY_ALLOCATION_ERROR: return "libFLAC ran out of memory";
    default: return "libFLAC cannot decode it";
    }
}

/* Ogg's page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, starting at 0, over the page
 * with its checksum field as zeros. */
static uint32_t ogg_crc(const unsigned char *page, size_t count) {
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t r = i << 24;
        for (int k = 0; k < 8; k++) r = r & 0x80000000u ? r << 1 ^ 0x04C11DB7u : r << 1;
        table[i] = r;
    }
    uint32_t crc = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned char byte = (i >= 22 && i < 26) ? 0 : page[i];
        crc = crc << 8 ^ table[(crc >> 24 ^ byte) & 0xFF];
    }
    return crc;
}

/* The granule position (for FLAC, the frames up to its end) of the stream's last complete page
 * with one, found in the file's last OGG_PAGE_MAX bytes: -1 if there is none. */
static long long last_granule(noti_ogg_flac *s, uint32_t serial) {
    size_t window = s->byte_count < OGG_PAGE_MAX ? (size_t)s->byte_count : OGG_PAGE_MAX;
    unsigned char *tail = malloc(window ? window : 1);
    if (!tail) return -1;
    size_t filled = 0;
    while (filled < window) {
        ssize_t n = pread(s->fd, tail + filled, window - filled, (off_t)(s->byte_count - window + filled));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        filled += (size_t)n;
    }
    long long granule = -1;
    for (size_t at = filled >= OGG_HEADER_BYTES ? filled - OGG_HEADER_BYTES + 1 : 0; at-- > 0;) {
        const unsigned char *page = tail + at;
        if (memcmp(page, "OggS", 4) != 0 || page[4] != 0 || le32(page + 14) != serial) continue;
        size_t header = OGG_HEADER_BYTES + page[26], body = 0;
        if (at + header > filled) continue;
        for (unsigned i = 0; i < page[26]; i++) body += page[OGG_HEADER_BYTES + i];
        if (at + header + body > filled || ogg_crc(page, header + body) != le32(page + 22)) continue;
        uint64_t position = le64(page + 6);
        /* All ones: no packet ends on this page; an earlier one has the position. */
        if (position == UINT64_MAX) continue;
        granule = position > (uint64_t)INT64_MAX ? -1 : (long long)position;
        break;
    }
    free(tail);
    return granule;
}

noti_ogg_flac *noti_ogg_flac_open(int fd, long long byte_count, noti_ogg_flac_info *info, const char **error) {
    noti_ogg_flac *s = calloc(1, sizeof *s);
    if (!s || !(s->decoder = flac.new_decoder())) {
        free(s);
        *error = "libFLAC ran out of memory";
        return NULL;
    }
    s->fd = fd;
    s->byte_count = byte_count > 0 ? (uint64_t)byte_count : 0;
    FLAC__StreamDecoderInitStatus status = flac.init_ogg_stream(
        s->decoder, on_read, on_seek, on_tell, on_length, on_eof, on_write, on_metadata, on_error, s);
    const char *problem = NULL;
    if (status == FLAC__STREAM_DECODER_INIT_STATUS_UNSUPPORTED_CONTAINER) problem = "libFLAC.so.12 was built without Ogg";
    else if (status != FLAC__STREAM_DECODER_INIT_STATUS_OK) problem = "libFLAC cannot start a decoder";
    else if (!flac.process_until_end_of_metadata(s->decoder)) problem = s->problem ? s->problem : state_problem(flac.get_state(s->decoder));
    else if (s->problem) problem = s->problem;
    else if (!s->has_streaminfo) problem = "its FLAC stream has no STREAMINFO";
    else if (s->info.sample_rate == 0) problem = "its FLAC stream has no sample rate";
    /* 36 bits: it always fits. */
    if (!problem) s->info.frames = (long long)s->streaminfo_frames;
    if (!problem && s->info.frames == 0) {
        unsigned char first[OGG_HEADER_BYTES];
        ssize_t n = pread(fd, first, sizeof first, 0);
        s->info.frames = n == (ssize_t)sizeof first ? last_granule(s, le32(first + 14)) : -1;
        if (s->info.frames < 0) problem = "its length is stated nowhere (no FLAC total, no Ogg granule position)";
    }
    if (problem) {
        *error = problem;
        noti_ogg_flac_close(s);
        return NULL;
    }
    *info = s->info;
    return s;
}

long noti_ogg_flac_read(noti_ogg_flac *s, float *frames, long count, const char **error) {
    long done = 0;
    unsigned channels = s->info.channels;
    while (done < count && s->delivered < s->info.frames) {
        if (s->block_used == s->block_frames) {
            if (flac.get_state(s->decoder) == FLAC__STREAM_DECODER_END_OF_STREAM) break;
            s->block_used = s->block_frames = 0;
            FLAC__bool decoded = flac.process_single(s->decoder);
            if (s->problem || !decoded) {
                *error = s->problem ? s->problem : state_problem(flac.get_state(s->decoder));
                return -1;
            }
            continue;
        }
        long long wanted = s->info.frames - s->delivered;
        long n = (long)(s->block_frames - s->block_used);
        if (n > count - done) n = count - done;
        if (n > wanted) n = (long)wanted;
        memcpy(frames + (size_t)done * channels, s->block + (size_t)s->block_used * channels, (size_t)n * channels * sizeof(float));
        s->block_used += (unsigned)n;
        s->delivered += n;
        done += n;
    }
    return done;
}

int noti_ogg_flac_rewind(noti_ogg_flac *s, const char **error) {
    s->block_used = s->block_frames = 0;
    s->delivered = 0;
    if (s->problem || !flac.reset(s->decoder)) {
        *error = s->problem ? s->problem : "libFLAC cannot start it again";
        return -1;
    }
    return 0;
}

void noti_ogg_flac_close(noti_ogg_flac *s) {
    if (!s) return;
    flac.delete_decoder(s->decoder);
    free(s->block);
    free(s);
}
