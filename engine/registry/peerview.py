"""How this session shows a peer's running record: finished once its end file says so,
unknown once its processes are gone; nothing of the peer's is ever written."""

from __future__ import annotations

import time
from collections.abc import Callable

from jobs_tui.engine.records.model import JobRecord, JobStatus, outcome
from jobs_tui.engine.records.sanitize import last_line
from jobs_tui.engine.shim import procs

from . import regfiles
from .exitfiles import read_exit
from .paths import RegistryPaths
from .reconcile import launching, who_ended


def settle_view(paths: RegistryPaths, record: JobRecord, report: Callable[[str], object]) -> None:
    """Show a peer's finished job as finished, without writing anything of theirs."""
    if not record.running:
        return
    info = read_exit(paths, record.id, record.status_path, problems=report)
    if info is not None:
        status, code, sig = outcome(info.exit_status, info.reason, info.signal, procs.signal_name)
        record.status, record.exit_code, record.signal = status, code, sig
        record.exit_status, record.end_reason = info.exit_status, info.reason
        record.finished_at = info.finished_at or record.started_at
        line = last_line(info.tail) if info.tail else ""
        if line:
            record.last_line = line
        if info.lost_bytes is not None and info.lost_bytes > record.log_lost_bytes:
            record.log_lost_bytes = info.lost_bytes
        record.log_note = info.log_note[:80] if info.log_note else record.log_note
        record.ended_by = who_ended(info, procs.signal_name)
    elif record.pid is None and record.shim_pid is None:
        # Recorded before its shim reported ready: running while it may still come up
        # or its shim listens (its owner fills the pids in); unknown after that.
        if not launching(record, int(time.time() * 1000)) and not (
            regfiles.exists(paths.socket(record.id))
        ):
            record.status = JobStatus.UNKNOWN
            record.finished_at = record.finished_at or record.started_at
    elif not procs.same_process(record.pid, record.start_token) and not procs.same_process(
        record.shim_pid, record.shim_token
    ):
        record.status = JobStatus.UNKNOWN
        record.finished_at = record.finished_at or record.started_at
