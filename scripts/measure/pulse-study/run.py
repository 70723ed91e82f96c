#!/usr/bin/env python3
"""Private PulseAudio (as scripts/measure/playback.py sets it up: native socket, anonymous auth,
null sinks, a 5 ms parec on the monitor) and the CPU / stop measurements.
usage: run.py cpu [RUNS]        CPU per case
       run.py stop [RUNS]       stop latency cases
       run.py one SINK LAT_MS -- CMD...   one recorded run (debug)"""
import json, os, signal, statistics, subprocess, sys, time
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "pulse")
RATE = 48000

def start_pulse(keep=("norw", "rw")):
    os.makedirs(FOLDER, exist_ok=True)
    sinks = ""
    for name, rewinds in [("norw", False), ("rw", True), ("norw_big", False), ("rw_big", True)]:
        sinks += (f"load-module module-null-sink sink_name={name} rate=48000 channels=2 format=float32le"
                  f"{' norewinds=1' if not rewinds else ''}\n")
    open(f"{FOLDER}/default.pa", "w").write(
        f"load-module module-native-protocol-unix socket={FOLDER}/native auth-anonymous=1\n{sinks}set-default-sink norw\n")
    open(f"{FOLDER}/asound.conf", "w").write("pcm.!default { type pulse }\nctl.!default { type pulse }\n")
    env = dict(os.environ, HOME=FOLDER, PULSE_RUNTIME_PATH=f"{FOLDER}/run", PULSE_STATE_PATH=f"{FOLDER}/state",
               DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent")
    server = subprocess.Popen(["pulseaudio", "-n", "-F", f"{FOLDER}/default.pa", "--daemonize=no", "--exit-idle-time=-1",
                               f"--log-target=file:{FOLDER}/pulse.log", "--use-pid-file=no"], env=env)
    for _ in range(100):
        if os.path.exists(f"{FOLDER}/native"): break
        time.sleep(0.05)
    client = dict(os.environ, PULSE_SERVER=f"unix:{FOLDER}/native", ALSA_CONFIG_PATH=f"{FOLDER}/asound.conf",
                  DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent", PULSE_RUNTIME_PATH=f"{FOLDER}/client", HOME=FOLDER)
    keepers = [subprocess.Popen(["parec", "-d", f"{s}.monitor", "--latency-msec=5", "--raw", "/dev/null"], env=client)
               for s in keep]
    time.sleep(2.2)  # the null sink renders 2 s blocks until a low-latency reader is connected
    return server, keepers, client

def proc_cpu_ms(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

def run(cmd, env, server):
    s0 = proc_cpu_ms(server.pid)
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    out, err = child.stdout.read().decode(), child.stderr.read().decode()
    if status != 0: sys.exit(f"{cmd} failed: {status} {err}")
    info = json.loads(out.strip().splitlines()[-1]) if out.strip().startswith("{") else {}
    return dict(cpu=(usage.ru_utime + usage.ru_stime) * 1000, user=usage.ru_utime * 1000, sys=usage.ru_stime * 1000,
                wall=wall * 1000, server=proc_cpu_ms(server.pid) - s0, nvcsw=usage.ru_nvcsw, info=info, err=err)

def make_wav():
    """The programs' own sound (pa_play dump) as a 32-bit float WAV for aplay."""
    path = f"{HERE}/ten.wav"
    if not os.path.exists(path):
        import struct
        subprocess.run(["./pa_play", "dump"], check=True)
        data = open(f"{HERE}/sound.f32", "rb").read()
        hdr = b"RIFF" + struct.pack("<I", 4 + 26 + 8 + len(data)) + b"WAVE"
        hdr += b"fmt " + struct.pack("<IHHIIHHH", 18, 3, 2, RATE, RATE * 8, 8, 32, 0)
        hdr += b"data" + struct.pack("<I", len(data))
        open(path, "wb").write(hdr + data)
    return path

CPU_CASES = {
    "(0) making the sound only (pa_play none)": ["./pa_play", "none"],
    "(a) ALSA pulse plugin 20 ms x 3 (noti-play calls)": ["./alsa_play", "20000", "3"],
    "(b) aplay default buffer": ["aplay", "-q", "WAV"],
    "(b) aplay --period-time=20000 --buffer-time=60000": ["aplay", "-q", "--period-time=20000", "--buffer-time=60000", "WAV"],
    "(c) pa_simple tlength 60 ms": ["./pa_play", "simple", "60"],
    "(c) pa_simple tlength 200 ms": ["./pa_play", "simple", "200"],
    "(c) pa_simple tlength 500 ms": ["./pa_play", "simple", "500"],
    "(d) threaded mainloop tlength 500 ms": ["./pa_play", "async", "500"],
    "(d') threaded mainloop tlength 60 ms": ["./pa_play", "async", "60"],
    "(e) pa_mainloop on own thread tlength 500 ms": ["./pa_play", "poll", "500"],
}

def cpu(runs, only=None):
    server, keepers, client = start_pulse(keep=("norw",))
    env = dict(client, PULSE_SINK="norw")
    wav = make_wav()
    try:
        s0 = proc_cpu_ms(server.pid); time.sleep(10); idle = proc_cpu_ms(server.pid) - s0
        print(f"load average {os.getloadavg()[0]:.2f}; median of {runs}; server CPU idle (5 ms monitor reader only) {idle:.0f} ms per 10 s", flush=True)
        print(f"{'case':52}{'CPU ms':>8}{'user':>7}{'sys':>7}{'wall ms':>9}{'server ms':>10}{'ctxsw':>7}  all CPU")
        for name, cmd in CPU_CASES.items():
            if only and only not in name: continue
            cmd = [wav if c == "WAV" else c for c in cmd]
            rs = [run(cmd, env, server) for _ in range(runs)]
            med = lambda k: statistics.median(r[k] for r in rs)
            print(f"{name:52}{med('cpu'):8.1f}{med('user'):7.1f}{med('sys'):7.1f}{med('wall'):9.0f}{med('server'):10.0f}"
                  f"{med('nvcsw'):7.0f}  {[round(r['cpu']) for r in rs]} {rs[0]['info']}", flush=True)
    finally:
        for k in keepers: k.kill()
        server.terminate(); server.wait()

_lookup = None
def positions(x):
    """Sound position of each recorded sample (exact float match), -1 where none (silence, fade)."""
    global _lookup
    if _lookup is None:
        if not os.path.exists(f"{HERE}/sound.f32"): subprocess.run(["./pa_play", "dump"], check=True)
        v = np.fromfile(f"{HERE}/sound.f32", dtype="<f4").view("<u8")
        order = np.argsort(v, kind="stable")
        _lookup = (v[order], order)
    keys, order = _lookup
    b = x
    i = np.clip(np.searchsorted(keys, b), 0, len(keys) - 1)
    return np.where(keys[i] == b, order[i], -1)

def analyze(path, info):
    """Output timeline of the recording against the stop: j_p is the output sample at which the sound
    position p (heard at the stop, per the program) was played."""
    raw = np.fromfile(path, dtype="<f4")
    raw = raw[:len(raw) // 2 * 2]
    x = raw[0::2]
    nz = np.nonzero(np.abs(x) > 1e-6)[0]
    if len(nz) == 0: return dict(error="silent")
    s0, s1 = nz[0], nz[-1]
    pos = positions(raw.view("<u8"))
    p = info["pos_at_stop"]
    mapped = np.nonzero(pos >= 0)[0]
    # the first discontinuity in the original sound: a skip or a repeat of positions
    jumps = mapped[1:][np.diff(pos[mapped]) != 1]
    first_jump = jumps[0] if len(jumps) else None
    hit = np.nonzero(pos == p)[0]
    jp = hit[0] if len(hit) else s0 + (p - pos[s0])
    last_orig = mapped[-1]
    quiet = np.abs(x[s0:s1 + 1]) <= 1e-6
    gaps = np.diff(np.flatnonzero(np.diff(np.concatenate(([0], quiet.astype(int), [0])))))[0::2] if quiet.any() else []
    return dict(lost_start_ms=int(pos[s0]) / 48 if pos[s0] >= 0 else None,
                heard_after_stop_ms=(s1 + 1 - jp) / 48,           # end of any sound, output timeline
                original_after_stop_ms=(last_orig + 1 - jp) / 48,  # unfaded sound still heard after the stop
                last_original_pos_ms=(int(pos[last_orig]) - p) / 48,
                jump=None if first_jump is None else dict(at_ms=(first_jump - jp) / 48,
                     from_ms=(int(pos[first_jump - 1]) - p) / 48, to_ms=(int(pos[first_jump]) - p) / 48),
                fade_at_ms=(info["fade_at"] - p) / 48, max_gap_ms=(max(gaps) / 48 if len(gaps) else 0))

def recorded(cmd, env, server, sink, latency):
    path = f"{HERE}/rec.raw"
    rec = subprocess.Popen(["parec", "-d", f"{sink}.monitor", f"--latency-msec={latency}", "--format=float32le",
                            "--rate=48000", "--channels=2", "--raw", path], env=env)
    time.sleep(0.5)
    r = run(cmd, dict(env, PULSE_SINK=sink), server)
    time.sleep(0.6)
    rec.send_signal(signal.SIGINT); rec.wait()
    r["a"] = analyze(path, r["info"]) if "pos_at_stop" in r["info"] else {}
    return r

STOP_CASES = [
    ("ALSA 20x3, fade after written (noti-play today)", ["./alsa_play", "20000", "3", "5"]),
    ("pa_simple 500, flush + fade@p + drain", ["./pa_play", "simple", "500", "5", "flush"]),
    ("async 500, flush + fade@p + drain", ["./pa_play", "async", "500", "5", "flush"]),
    ("async 500, no flush, fade RELATIVE_ON_READ+5ms + drain", ["./pa_play", "async", "500", "5", "seek", "5"]),
    ("async 500, no flush, fade ABSOLUTE@p+5ms + drain", ["./pa_play", "async", "500", "5", "seekabs", "5"]),
    ("async 500, no flush, fade ABSOLUTE@p+sink+5ms + drain", ["./pa_play", "async", "500", "5", "seekabs_r", "5"]),
]

def stop(runs, only=None, sinks=(("norw", 5), ("rw", 5), ("norw_big", 300), ("rw_big", 300))):
    server, keepers, client = start_pulse()
    try:
        print(f"load average {os.getloadavg()[0]:.2f}; median of {runs}", flush=True)
        for sink, lat in sinks:
            print(f"--- sink {sink} (monitor reader latency {lat} ms)")
            for name, cmd in STOP_CASES:
                if only and only not in name: continue
                rs = [recorded(cmd, client, server, sink, lat) for _ in range(runs)]
                med = lambda f: statistics.median(f(r) for r in rs)
                A = lambda k: (lambda r: r["a"].get(k) if r["a"].get(k) is not None else float("nan"))
                print(f"{name:58} noticed {med(lambda r: r['info']['noticed_ms']):5.1f} | stop->drained "
                      f"{med(lambda r: r['info']['stop_to_drained_ms']):6.1f} | sound ends after stop {med(A('heard_after_stop_ms')):6.1f} "
                      f"[{', '.join('%.1f' % A('heard_after_stop_ms')(r) for r in rs)}] | unfaded after stop {med(A('original_after_stop_ms')):6.1f}"
                      f" | fade content at {med(A('fade_at_ms')):5.1f} vs last unfaded {med(A('last_original_pos_ms')):6.1f}"
                      f" | sink {rs[0]['info'].get('sink_frames', -48) / 48:5.1f} | lost start {med(A('lost_start_ms')):4.1f}"
                      f" | gap {max(A('max_gap_ms')(r) for r in rs):4.1f} | jumps {sum(1 for r in rs if r['a'].get('jump'))}"
                      f" | cpu {med(lambda r: r['cpu']):.0f} | tlength {rs[0]['info'].get('tlength_ms', '-')}", flush=True)
    finally:
        for k in keepers: k.kill()
        server.terminate(); server.wait()

if __name__ == "__main__":
    os.chdir(HERE)
    what = sys.argv[1]
    if len(sys.argv) > 4:  # stop RUNS FILTER SINK[,SINK]
        lat = {"norw": 5, "rw": 5, "norw_big": 300, "rw_big": 300}
        stop(int(sys.argv[2]), sys.argv[3] or None, [(k, lat[k]) for k in sys.argv[4].split(",")]); sys.exit()
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    only = sys.argv[3] if len(sys.argv) > 3 else None
    {"cpu": cpu, "stop": stop}[what](runs, only)
