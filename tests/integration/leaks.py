"""What tests of leaked processes share: a job's processes found by its marker, and the
respawning script of issue 22 (it ignores TERM, forks `sleep 600` without end, and a part
of it leaves the job's session)."""

from __future__ import annotations

import os

from jobs_tui.engine.shim.procs import MARKER_ENV, job_marker

RESPAWN = (
    "trap '' TERM; setsid sh -c 'trap \"\" TERM; while :; do sleep 600 & done' & "
    "while :; do sleep 600 & sleep 0.01; done"
)


def marked(registry_dir: str, job_id: str) -> list[int]:
    """Live (not zombie) processes whose environment carries the job's marker."""
    entry = f"{MARKER_ENV}={job_marker(registry_dir, job_id)}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                env = fh.read()
            with open(f"/proc/{name}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in (b"Z", b"X") and entry in env.split(b"\0"):
            found.append(int(name))
    return found


def sleeps_named(text: str) -> list[int]:
    """Live processes whose command line is exactly `text` (split on spaces)."""
    want = text.encode().split(b" ")
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                argv = fh.read().rstrip(b"\0").split(b"\0")
            with open(f"/proc/{name}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if argv == want and state not in (b"Z", b"X"):
            found.append(int(name))
    return found


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
