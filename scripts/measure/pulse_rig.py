"""A private PulseAudio server with a null sink named `measure`, for the measurement scripts."""
import os, subprocess


def start_pulse(folder, exit_idle_seconds):
    """Starts the server in `folder` (its socket, state, log and an asound.conf whose default
    PCM is ALSA's pulse plugin); returns the environment a client plays to it with."""
    script = f"""load-module module-native-protocol-unix socket={folder}/native auth-anonymous=1
load-module module-null-sink sink_name=measure rate=44100 channels=2 norewinds=1
set-default-sink measure
"""
    with open(f"{folder}/default.pa", "w") as file:
        file.write(script)
    with open(f"{folder}/asound.conf", "w") as file:
        file.write("pcm.!default { type pulse }\nctl.!default { type pulse }\n")
    env = dict(os.environ, HOME=folder, PULSE_RUNTIME_PATH=f"{folder}/run", PULSE_STATE_PATH=f"{folder}/state",
               DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent")
    subprocess.run(["pulseaudio", "-n", "-F", f"{folder}/default.pa", "--daemonize=yes", f"--exit-idle-time={exit_idle_seconds}",
                    f"--log-target=file:{folder}/pulse.log", "--use-pid-file=yes"], env=env, check=True)
    return dict(os.environ, PULSE_SERVER=f"unix:{folder}/native", ALSA_CONFIG_PATH=f"{folder}/asound.conf",
                DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent", PULSE_RUNTIME_PATH=f"{folder}/client")


def stop_pulse(folder):
    """Kills the server `start_pulse` started in `folder`, if it still runs."""
    try:
        with open(f"{folder}/run/pid") as file:
            os.kill(int(file.read().split()[0]), 9)
    except (OSError, ValueError, IndexError):
        pass
