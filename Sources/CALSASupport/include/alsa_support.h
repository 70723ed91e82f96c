#ifndef NOTI_PLAY_ALSA_SUPPORT_H
#define NOTI_PLAY_ALSA_SUPPORT_H

/// libasound prints its own diagnostics to stderr through a variadic handler, which Swift
/// cannot define. These route them into a per-thread buffer instead, so noti-play can fold
/// ALSA's words into its single error line ("Unknown PCM nosuchdevice").
///
/// They use alsa-lib's thread-local handler (snd_lib_error_set_local), never the process-wide
/// one (snd_lib_error_set_handler): that one belongs to the program noti-play runs in (a host
/// daemon may log ALSA's diagnostics its own way). alsa-lib calls the thread-local handler only
/// while the process-wide one is its default, so:
///   - a host that set no handler: ALSA's diagnostics during noti-play's calls are captured,
///     never printed, and noti-play's error lines carry them;
///   - a host that set its own: that handler receives them, as it asked to for every ALSA call
///     in its process, and noti-play's error lines give snd_strerror's words alone.

/// Captures ALSA's diagnostics on this thread until the matching noti_alsa_capture_end, and
/// forgets an earlier diagnostic. Pairs nest; the outermost end gives this thread back the
/// thread-local handler it had (the caller's thread may be the host's).
void noti_alsa_capture_begin(void);
void noti_alsa_capture_end(void);

/// The last diagnostic libasound reported on this thread, or "" (cleared by the call).
const char *noti_alsa_take_diagnostic(void);

/// The speaker of each channel of an open stream (after hw_params), as snd_pcm_get_chmap gives
/// it: copies up to `capacity` positions (snd_pcm_chmap_position values, with their flag bits)
/// into `positions` and returns how many the map holds, or 0 when the device gives none. The map
/// ends in a flexible array, which Swift cannot index. (`struct _snd_pcm` is snd_pcm_t, named
/// without alsa/asoundlib.h, which is the CALSA module's.)
struct _snd_pcm;
int noti_alsa_channel_map(struct _snd_pcm *pcm, unsigned int *positions, unsigned int capacity);

/// Which sound server's ALSA plugin plays the stream, by the name the plugin (an ioplug PCM)
/// gives itself on its dump's first line: alsa-plugins' PulseAudio plugin (no channel map, yet
/// ALSA's order), or pipewire-alsa's. NOTI_ALSA_NO_SERVER_PLUGIN for any other PCM.
enum noti_alsa_server_plugin { NOTI_ALSA_NO_SERVER_PLUGIN = 0, NOTI_ALSA_PULSE_PLUGIN = 1, NOTI_ALSA_PIPEWIRE_PLUGIN = 2 };
int noti_alsa_server_plugin(struct _snd_pcm *pcm);

/// snd_pcm_open for playback, except that a PCM defined as pipewire-alsa's (`type pipewire`)
/// opens with `role` (PipeWire's media.role) set in its definition, where that plugin reads its
/// stream's role: the configuration is copied and changed for this open only.
int noti_alsa_open_playback(struct _snd_pcm **pcm, const char *name, int mode, const char *role);

/// An eventfd for noti_alsa_wait's `interrupt_fd` (non-blocking, close-on-exec), or a negated errno.
int noti_alsa_interrupt_fd(void);

/// Makes `fd` (from noti_alsa_interrupt_fd) readable for good: every wait on it ends at once.
/// Any thread; it never blocks.
void noti_alsa_interrupt(int fd);

/// The most poll descriptors a PCM may have for noti_alsa_wait (which keeps them on its stack).
enum { NOTI_ALSA_MOST_POLL_DESCRIPTORS = 16 };

/// What noti_alsa_wait saw.
enum noti_alsa_wait_result { NOTI_ALSA_TIMED_OUT = 0, NOTI_ALSA_READY = 1, NOTI_ALSA_INTERRUPTED = 2 };

/// Waits, for `milliseconds` at most, until `pcm` has room for `avail_min` frames (the avail_min
/// its software parameters set), or an error for the next call to report, or `interrupt_fd` is
/// readable.
/// Never longer: a PCM whose wake-up never comes (a plugin that lost it, a sound server stopped
/// behind its plugin) costs one wait, after which the caller looks at the device again. Returns
/// a noti_alsa_wait_result, or a negated errno (the descriptors could not be had or read).
int noti_alsa_wait(struct _snd_pcm *pcm, int interrupt_fd, unsigned long avail_min, int milliseconds);

/// Lets what was written to `pcm` play out, then stops it (snd_pcm_drop): a prepared stream
/// holding less than its start threshold is started; then it waits, in steps of `step_ms` at
/// most, while the stream runs and its delay shrinks. It gives up once the delay has not shrunk
/// for `give_up_ms`, and ends at once when `interrupt_fd` is readable. Not snd_pcm_drain: the
/// plugins of sound servers (pipewire-alsa, the pulse plugin) wait inside it for their server's
/// word without a timeout, in either mode, and a stopped server never gives it.
void noti_alsa_play_out(struct _snd_pcm *pcm, int interrupt_fd, unsigned int rate, int step_ms, int give_up_ms);

#endif
