// The least a Swift program does to play a click on ALSA: open default, set S16 stereo 44.1 kHz,
// write 0.1 s of a 1 kHz tone, drain. The floor under noti-play's start latency and memory.
import CALSA
import Glibc

var pcm: OpaquePointer?
guard snd_pcm_open(&pcm, "default", SND_PCM_STREAM_PLAYBACK, 0) == 0 else { exit(1) }
guard snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 2, 44100, 1, 60_000) == 0 else { exit(1) }
var samples = [Int16](repeating: 0, count: 4410 * 2)
for frame in 0..<4410 {
    let value = Int16(8000 * sin(2 * Double.pi * 1000 * Double(frame) / 44100))
    samples[2 * frame] = value
    samples[2 * frame + 1] = value
}
_ = snd_pcm_writei(pcm, samples, 4410)
snd_pcm_drain(pcm)
snd_pcm_close(pcm)
