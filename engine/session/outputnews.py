"""What a shim's output event tells about a job, taken into its record (one rule for the
event-loop Supervisor and the command line's quick exec)."""

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
