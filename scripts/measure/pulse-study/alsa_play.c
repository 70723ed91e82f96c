/* (a) noti-play's ALSA calls: blocking PCM, period/buffer near request, start threshold and
 * avail_min one period, loop of snd_pcm_wait(1000) + snd_pcm_writei(one period), then drain.
 * usage: alsa_play PERIOD_US PERIODS [STOP_S]
 * With STOP_S: at STOP_S after the first write, write a 10 ms fade continuing from the write
 * position (what noti-play does), then drain. */
#include <alsa/asoundlib.h>
#include "common.h"

int main(int argc, char **argv) {
    unsigned period_us = atoi(argv[1]), periods = atoi(argv[2]);
    double stop_after = argc > 3 ? atof(argv[3]) : 0;
    make_sound();
    snd_pcm_t *pcm;
    if (snd_pcm_open(&pcm, "default", SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) < 0) return 1;
    snd_pcm_nonblock(pcm, 0);
    snd_pcm_hw_params_t *hw; snd_pcm_hw_params_alloca(&hw);
    snd_pcm_hw_params_any(pcm, hw);
    snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED);
    snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE);
    snd_pcm_hw_params_set_channels(pcm, hw, CH);
    unsigned rate = RATE; int dir = 0;
    snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &dir);
    snd_pcm_uframes_t period = (snd_pcm_uframes_t)RATE * period_us / 1000000, buffer = period * periods;
    snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &dir);
    snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer);
    if (snd_pcm_hw_params(pcm, hw) < 0) return 2;
    snd_pcm_hw_params_get_period_size(hw, &period, &dir);
    snd_pcm_hw_params_get_buffer_size(hw, &buffer);
    snd_pcm_sw_params_t *sw; snd_pcm_sw_params_alloca(&sw);
    snd_pcm_sw_params_current(pcm, sw);
    snd_pcm_sw_params_set_start_threshold(pcm, sw, period);
    snd_pcm_sw_params_set_avail_min(pcm, sw, period);
    snd_pcm_sw_params(pcm, sw);
    long written = 0; double t0 = 0, t_stop = 0, t_noticed = 0; long pos_at_stop = -1, fade_at = -1;
    while (written < SOUND_FRAMES) {
        snd_pcm_wait(pcm, 1000);
        if (stop_after > 0 && t0 > 0 && now_s() >= t0 + stop_after) {
            t_stop = t0 + stop_after; t_noticed = now_s();
            snd_pcm_sframes_t delay = 0; snd_pcm_delay(pcm, &delay);
            pos_at_stop = written - delay; fade_at = written;
            const float *f = make_fade(written);
            long n = 0;
            while (n < FADE_FRAMES) { long r = snd_pcm_writei(pcm, f + 2 * n, FADE_FRAMES - n); if (r < 0) { snd_pcm_recover(pcm, r, 1); continue; } n += r; }
            break;
        }
        long n = SOUND_FRAMES - written < (long)period ? SOUND_FRAMES - written : (long)period;
        long r = snd_pcm_writei(pcm, sound + 2 * written, n);
        if (r < 0) { fprintf(stderr, "xrun %ld\n", r); snd_pcm_recover(pcm, r, 1); continue; }
        if (t0 == 0) t0 = now_s();
        written += r;
    }
    snd_pcm_drain(pcm);
    double t_end = now_s();
    snd_pcm_close(pcm);
    printf("{\"period\": %lu, \"buffer\": %lu", period, buffer);
    if (t_stop > 0)
        printf(", \"pos_at_stop\": %ld, \"fade_at\": %ld, \"noticed_ms\": %.1f, \"stop_to_drained_ms\": %.1f",
               pos_at_stop, fade_at, (t_noticed - t_stop) * 1e3, (t_end - t_stop) * 1e3);
    printf("}\n");
    return 0;
}
