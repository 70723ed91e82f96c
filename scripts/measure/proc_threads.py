"""Per-thread readings of a running process from /proc, for the measurement scripts
(measure-library.py, measure-listen.py). A thread that ends between listing and reading is
left out; callers that poll keep its last value."""
import os


def each_thread(pid, read):
    """{tid: read(folder)} for every thread of `pid` now, `folder` being /proc/PID/task/TID."""
    values = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return values
    for tid in tids:
        try:
            values[int(tid)] = read(f"/proc/{pid}/task/{tid}")
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
    return values


def _name_and_switches(folder):
    with open(f"{folder}/status") as status:
        lines = status.read().splitlines()
    name = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("Name:")), "?")
    return name, sum(int(line.split()[1]) for line in lines if "ctxt_switches:" in line)


def context_switches(pid):
    """{tid: (thread name, voluntary + nonvoluntary context switches)} of each thread of `pid`."""
    return each_thread(pid, _name_and_switches)


def _name_and_runtime(folder):
    with open(f"{folder}/comm") as comm, open(f"{folder}/schedstat") as stat:
        return comm.read().strip(), int(stat.read().split()[0])


def thread_runtimes(pid):
    """{tid: (thread name, ns on a CPU)} of each thread of `pid` (schedstat: exact, not ticks)."""
    return each_thread(pid, _name_and_runtime)


def _is_realtime(folder):
    with open(f"{folder}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[38] in ("1", "2")  # field 41, policy


def realtime_threads(pid):
    """How many threads of `pid` run under SCHED_FIFO or SCHED_RR now."""
    return sum(each_thread(pid, _is_realtime).values())
