"""Jobs whose command ended but whose shim could not write their exit files yet.

On a full disk (or quota) a shim keeps the exit status in memory and stays until it can
write `<id>.status` and `<id>.end` (see shim/ending.py). Until then every record of the job
says running, and a reader that settles nothing (the command line's `list` and `status`)
would show it so. `shown` gives what such a reader shows instead: the shim is asked over
its socket (a `state` request) and the copy shows its outcome, or, when it does not
answer in time, `ended · exit code not yet written: disk full`. Nothing is written: the
job's records are settled by the sessions, once there is room. On a full disk the shims
of running jobs are asked too, for what their logs lost (within ASK_BUDGET_S in all):
the session that started a job may have ended before the disk filled.

In JSON the copy carries `exitNotWritten` (why: "disk full", or "not writable"), with
status `unknown` and exitCode null when the shim did not answer.
"""

from __future__ import annotations

import json
import time

from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.registry import regfiles
from jobs_tui.engine.registry.exitfiles import ExitInfo, read_exit
from jobs_tui.engine.registry.paths import RegistryPaths
from jobs_tui.engine.registry.reconcile import finish
from jobs_tui.engine.shim import procs
from jobs_tui.engine.shim.logwriter import DISK_FULL
from jobs_tui.engine.shim.protocol import OP_STATE, exit_info_fields

from .shimnews import take_output

ASK_TIMEOUT_S = 0.5  # a shim answers in a millisecond: one stopped or swamped is not waited for
ASK_BUDGET_S = 1.0  # running jobs asked for their losses on a full disk: no longer than this
STATE_LIMIT = 1 << 20
LOW_ROOM_BYTES = 4 << 20  # less free than this: shims are asked what their logs lost


def shown(paths: RegistryPaths, records: list[JobRecord]) -> list[JobRecord]:
    """`records`, each one whose command ended unwritten replaced by a copy saying so;
    on a full disk, each running one with what its shim counts as lost (the session that
    started it may have ended before: the record could not learn it since)."""
    full = _no_room(paths)
    deadline = time.monotonic() + ASK_BUDGET_S
    out = []
    for record in records:
        if ended_unwritten(paths, record):
            record = _shown(paths, record)
        elif full and record.running and time.monotonic() < deadline:
            record = _with_losses(paths, record)
        out.append(record)
    return out


def _with_losses(paths: RegistryPaths, record: JobRecord) -> JobRecord:
    state = ask_state(regfiles.reach(paths.socket(record.id)))
    if state is None or state.get("running") is not True:
        return record
    view = record.copy()
    take_output(view, state)
    return view


def ended_unwritten(paths: RegistryPaths, record: JobRecord) -> bool:
    """Running on record, its command gone, its shim alive, and no status file."""
    if not record.running or record.pid is None or record.shim_pid is None:
        return False
    if procs.same_process(record.pid, record.start_token):
        return False
    if not procs.same_process(record.shim_pid, record.shim_token):
        return False  # no shim: the sessions settle it (swept, or from its files)
    return read_exit(paths, record.id, record.status_path) is None


def _shown(paths: RegistryPaths, record: JobRecord) -> JobRecord:
    view = record.copy()
    state = ask_state(regfiles.reach(paths.socket(record.id)))
    written = read_exit(paths, record.id, record.status_path)
    if written is not None:  # it was only just ending: its files say it all now
        finish(view, written, _now_ms(), procs.signal_name)
        return view
    if state is not None and state.get("running") is False:
        take_output(view, state)
        status, reason, sig, at = exit_info_fields(state)
        finish(view, ExitInfo(status, reason, sig, at), _now_ms(), procs.signal_name)
        view.exit_not_written = why_unwritten(paths, view)
        if view.exit_code is not None or view.signal is not None:
            return view
    view = record.copy()
    finish(view, None, _now_ms(), procs.signal_name)  # ended; how is not known here
    view.finished_at = None  # still counting: it is not over for its records
    view.exit_not_written = why_unwritten(paths, record)
    return view


def why_unwritten(paths: RegistryPaths, record: JobRecord) -> str:
    """`disk full` when the log (or its shim) said so or the directory has no block left;
    else `not writable` (a quota, a read-only remount: the shim retries every second)."""
    return DISK_FULL if record.log_note == DISK_FULL or _no_room(paths) else "not writable"


def _no_room(paths: RegistryPaths) -> bool:
    """The registry's file system is full, or nearly (one statvfs: cheap). Nearly: a disk
    a log filled gets a few pages back as soon as anyone deletes a file (the session that
    started the job, ending), and the output lost stays lost; a roomy disk is never it."""
    try:
        found = regfiles.statvfs_dir(paths.root)
    except OSError:
        return False
    return found.f_bavail * found.f_frsize < LOW_ROOM_BYTES


def ask_state(path: str, timeout: float = ASK_TIMEOUT_S) -> dict | None:
    """The shim's `state` reply, or None (not listening, no answer in `timeout`)."""
    import socket  # here: a short `list` loads it only for a job that ended unwritten

    deadline = time.monotonic() + timeout
    data = b""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(path)
            conn.sendall(json.dumps({"op": OP_STATE}).encode() + b"\n")
            while b"\n" not in data and len(data) < STATE_LIMIT:
                conn.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
        reply = json.loads(data.partition(b"\n")[0])
    except (OSError, ValueError, RecursionError):
        return None
    return reply if isinstance(reply, dict) else None


def _now_ms() -> int:
    return int(time.time() * 1000)
