"""What a shim's events tell about a job, taken into its record: its output (byte counts,
lost bytes, the log's note, the latest line) and, for a declared job, its phase (the
screen's `waiting for db`, `restarting 2/5`, and the pid of the command running now: a
restart by the shim changes it; the id and log stay). One rule for the event-loop
Supervisor and the command line's quick exec."""

from __future__ import annotations

from typing import Any

from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import last_line


def take_output(record: JobRecord, message: dict[str, Any]) -> tuple[bool, bool]:
    """Byte counts, lost bytes, the log's note and the latest line, as the shim says.

    Returns (a field worth writing at once changed, the last line changed): a printing
    job's last line changes every second, and each caller decides when that is written.
    """
    changed = False
    if isinstance(message.get("bytes"), int):
        record.log_bytes = message["bytes"]
    lost = message.get("lostBytes")
    if isinstance(lost, int) and lost > record.log_lost_bytes:
        record.log_lost_bytes = lost
        changed = True
    note = message.get("logNote")
    if isinstance(note, str) and note != record.log_note:
        record.log_note = note[:80]
        changed = True
    tail = message.get("tail")
    line = last_line(tail) if isinstance(tail, str) else ""
    if line and line != record.last_line:
        record.last_line = line
        return changed, True
    return changed, False


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    """A detail the shim wrote (a probe's result, a marker line): raw, bounded; every door
    that shows it sanitizes it, as it does the job's output."""
    return value[:500] if isinstance(value, str) and value else None


def apply_phase(record: JobRecord, message: dict[str, Any]) -> bool:
    """Take the phase fields of `message` (shim/protocol.py's PhaseFields); True if the
    record changed. A message without them (not a declared job's) changes nothing."""
    phase = message.get("phase")
    if not isinstance(phase, str):
        return False
    waiting = message.get("waitingFor")
    names = [n for n in waiting if isinstance(n, str)] if isinstance(waiting, list) else []
    name = message.get("name")
    values: dict[str, Any] = {
        "phase": phase[:32],
        "waiting_for": ", ".join(names)[:500] or None,
        "restarts": _int(message.get("restarts")),
        "last_exit": _int(message.get("lastExit")),
        "max_restarts": _int(message.get("maxRestarts")),
        "phase_detail": _text(message.get("phaseDetail")),
        "declared_name": name[:120] if isinstance(name, str) and name else record.declared_name,
    }
    pid = _int(message.get("pid"))
    if pid is not None and pid > 0 and pid != record.pid:
        token = message.get("startToken")
        values["pid"] = pid
        values["start_token"] = token if isinstance(token, str) else None
    changed = False
    for attr, value in values.items():
        if getattr(record, attr) != value:
            setattr(record, attr, value)
            changed = True
    return changed
