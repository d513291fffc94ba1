"""How a record reads to someone who ran it: its state, why it stopped, its shell exit status,
and the supervision facts of the exec_command family (deadline, quiet time, log bytes).

Pure functions of a record (and, for the log facts, the registry's paths), in the core:
the `exec_command` and `process` vocabularies and the command line's `exec`, `poll` and
`wait` describe a job the same way without one importing another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jobs_tui.engine.records.model import EndReason, JobRecord, JobStatus, now_ms

from . import regfiles

if TYPE_CHECKING:
    from .paths import RegistryPaths


def state(record: JobRecord) -> str:
    """running, exited, failed, killed, timed_out or unknown."""
    if record.status is JobStatus.KILLED and record.end_reason == EndReason.DEADLINE.value:
        return "timed_out"
    return record.status.value


def stop_reason(record: JobRecord) -> str | None:
    """Why it stopped: exit, signal, killed, timed_out, owner_gone, unknown (None: running)."""
    if record.running:
        return None
    if record.status is JobStatus.UNKNOWN:
        return "unknown"
    reason = record.end_reason or EndReason.EXIT.value
    if reason == EndReason.DEADLINE.value:
        return "timed_out"
    if reason == EndReason.KILL.value:
        return "killed"
    if reason == EndReason.OWNER_GONE.value:
        return "owner_gone"
    if record.status is JobStatus.KILLED:
        return "signal"  # died of a signal nobody here sent
    return "exit"


def exit_status_code(record: JobRecord) -> int | None:
    """The shell convention: the exit code, or 128+N for a job killed by signal N."""
    if record.exit_code is not None:
        return record.exit_code
    if record.status is JobStatus.EXITED:
        return 0
    if record.exit_status is not None and record.exit_status < 0:
        return 128 - record.exit_status
    if record.signal:
        import signal

        try:
            return 128 + int(signal.Signals[record.signal])
        except KeyError:
            return None
    return None


def failure(record: JobRecord) -> str | None:
    """What went wrong, in a few words (None for a job that succeeded or still runs)."""
    kind = state(record)
    if kind == "timed_out":
        seconds = f"{(record.timeout_ms or 0) / 1000:.3f}".rstrip("0").rstrip(".")
        return f"stopped by its {seconds} s lifetime limit"  # 1.5 s, not a rounded 2 s
    if kind == "killed":
        return f"killed by {record.signal}"
    if kind == "unknown":
        return "its exit code was not recorded"
    if kind == "failed":
        return f"exited with code {record.exit_code}"
    return None


def iso_utc(ms: float | None) -> str | None:
    if ms is None:
        return None
    import time  # not datetime: a short call does not need it

    moment = time.gmtime(int(ms) // 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S.", moment) + f"{int(ms) % 1000:03d}Z"


def last_output_ms(paths: RegistryPaths, record: JobRecord) -> float:
    """When the job last wrote: the log's mtime (its start if it never wrote)."""
    try:
        return max(regfiles.stat(paths.log(record.id)).st_mtime * 1000, record.started_at)
    except OSError:
        return float(record.started_at)


def retained_bytes(paths: RegistryPaths, record: JobRecord) -> int:
    total = 0
    for path in (paths.log(record.id), paths.previous_log(record.id)):
        try:
            total += regfiles.stat(path).st_size
        except OSError:
            continue
    return total


def supervision(
    paths: RegistryPaths,
    record: JobRecord,
    *,
    stopping: bool = False,
    log_end: int | None = None,
) -> dict[str, Any]:
    """{state, stop_reason, deadline_utc, quiet_ms, log_bytes, log_truncated, cleanup}.

    `stopping`: a kill of this running job is under way (the caller knows); `log_end`:
    the end of the output as a read just saw it (newer than the record's count)."""
    stopping = stopping and record.running
    now = record.finished_at if record.finished_at is not None else now_ms()
    log_bytes = max(record.log_bytes, log_end or 0)
    deadline = record.started_at + record.timeout_ms if record.timeout_ms else None
    if record.running:
        cleanup = "pending" if stopping else None
    elif record.end_reason in ("kill", "deadline", "owner-gone"):
        cleanup = "unconfirmed"
    else:
        cleanup = "not_needed"
    return {
        "state": "stopping" if stopping else state(record),
        "stop_reason": stop_reason(record),
        "deadline_utc": iso_utc(deadline),
        "quiet_ms": max(0, int(now - last_output_ms(paths, record))),
        "log_bytes": log_bytes,
        "log_truncated": bool(record.log_lost_bytes) or log_bytes > retained_bytes(paths, record),
        "cleanup": cleanup,
    }
