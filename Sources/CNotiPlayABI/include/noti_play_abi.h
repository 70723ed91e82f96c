/* The C library's structs as the C compiler lays them out: CAPI.swift reads what a host passes
 * through these, never at offsets of its own, so a 32-bit build or a field added or reordered in
 * noti-play.h cannot be misread. Not installed; only noti-play.h is. */
#ifndef NOTI_PLAY_ABI_H
#define NOTI_PLAY_ABI_H

#include "../../NotiPlayC/noti-play.h"

/* Copies the host's struct into `out`: each field its `size` field covers whole, the rest from
 * the header's _INIT defaults (a host built against an older, shorter struct). Returns 0, or -1
 * when `size` is too small to hold the size field itself. */
int noti_abi_read_request(const void *caller, noti_play_request *out);
int noti_abi_read_options(const void *caller, noti_play_options *out);
int noti_abi_read_settings(const void *caller, noti_play_settings *out);

/* The program's name without its folder (glibc's program_invocation_short_name): what a host
 * that does not name itself is called on the sound server. */
const char *noti_abi_program_name(void);

#endif
