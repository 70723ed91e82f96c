#ifndef NOTI_PLAY_ALSA_SUPPORT_H
#define NOTI_PLAY_ALSA_SUPPORT_H

/// libasound prints its own diagnostics to stderr through a variadic handler, which Swift
/// cannot define. These route them into a per-thread buffer instead, so noti-play can fold
/// ALSA's words into its single error line ("Unknown PCM nosuchdevice").

/// Installs the capturing handler (idempotent).
void noti_alsa_capture_diagnostics(void);

/// The last diagnostic libasound reported on this thread, or "" (cleared by the call).
const char *noti_alsa_take_diagnostic(void);

#endif
