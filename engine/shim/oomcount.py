"""The kernel's out-of-memory kills, counted (issue 27, feature 3: who ended a job).

Two counters: the job's cgroup's (v2 `memory.events` `oom_kill`: processes of that cgroup
killed by any OOM killer; a v1 memory cgroup's `memory.oom_control` has the same line), and
the machine's (`/proc/vmstat` `oom_kill`, every OOM kill since boot). The shim reads both
once the job runs and again when it dies of SIGKILL: the cgroup's moving is certain, the
machine's moving at the job's SIGKILL is likely (another process may have been the one).

Stdlib only (the shim's). Not read before the ready line (a start must stay fast): a job
the OOM killer ends within its first milliseconds is not seen.
"""

import os


def _counter(path: str, name: bytes) -> int | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        raw = os.read(fd, 65536)
    except OSError:
        return None
    finally:
        os.close(fd)
    for line in raw.splitlines():
        key, _, value = line.partition(b" ")
        if key == name:
            try:
                return int(value)
            except ValueError:
                return None
    return None


def cgroup_kills(directory: str | None) -> int | None:
    """`oom_kill` of a cgroup directory (v2 memory.events, v1 memory.oom_control)."""
    if not directory:
        return None
    for name in ("memory.events", "memory.oom_control"):
        found = _counter(os.path.join(directory, name), b"oom_kill")
        if found is not None:
            return found
    return None


def machine_kills() -> int | None:
    """`oom_kill` of /proc/vmstat (Linux 4.13+), or None."""
    return _counter("/proc/vmstat", b"oom_kill")


class OomCount:
    """Both counters when the job started; `moved()` after its SIGKILL says which moved."""

    __slots__ = ("cgroup", "cgroup_before", "machine_before")

    def __init__(self, cgroup: str | None) -> None:
        self.cgroup = cgroup
        self.cgroup_before = cgroup_kills(cgroup)
        self.machine_before = machine_kills()

    def moved(self) -> dict | None:
        """`{"source": "cgroup"|"machine", "kills": n}` if a counter moved, else None."""
        now = cgroup_kills(self.cgroup)
        if self.cgroup_before is not None and now is not None and now > self.cgroup_before:
            return {"source": "cgroup", "kills": now - self.cgroup_before}
        now = machine_kills()
        if self.machine_before is not None and now is not None and now > self.machine_before:
            return {"source": "machine", "kills": now - self.machine_before}
        return None
