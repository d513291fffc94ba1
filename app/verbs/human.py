"""Human output of the command-line verbs, in the transcript grammar of the `job` tool.

Rows and outcome lines come from `jobs_tui.engine.records.format` (the screens use the same).
A record may come from another session's registry file, so every string of it that
is shown passes the one-line sanitizer first (`shown`): no escape sequence, control
character or bidi override from a file reaches the terminal.
"""

from __future__ import annotations

import dataclasses

from jobs_tui.engine.records import format as fmt
from jobs_tui.engine.records.format import earlier_note, summary
from jobs_tui.engine.records.model import JobRecord, now_ms
from jobs_tui.engine.records.sanitize import sanitize_line

from ..printing import displayable

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any


def safe(text: str, limit: int = 200) -> str:
    """One line fit for a terminal: sanitized, and surrogates as U+FFFD."""
    return displayable(sanitize_line(text, limit))


def shown(record: JobRecord) -> JobRecord:
    """A copy of `record` whose displayed strings are safe for a terminal."""
    return dataclasses.replace(
        record,
        id=safe(record.id, 20),
        label=safe(record.label, 120) or "?",
        signal=safe(record.signal, 20) if record.signal is not None else None,
        session_id=safe(record.session_id, 80),
        last_line=safe(record.last_line),
        phase_detail=safe(record.phase_detail, 400) if record.phase_detail else None,
    )


def record_of(details: dict[str, Any]) -> JobRecord:
    return JobRecord.from_json(details["job"])


def outcome_line(record: JobRecord, now: float) -> str:
    return fmt.outcome_line(shown(record), now)


def status_line(record: JobRecord, now: float) -> str:
    """`status`'s line: the outcome, then what the log lost (`… · 4096 bytes lost: disk
    full`), the figures every reader shows from the same record."""
    line = outcome_line(record, now)
    lost = fmt.lost_note(record)
    return f"{line} · {safe(lost, 120)}" if lost else line


def ended_line(record: JobRecord) -> str | None:
    """`ended  killed · SIGTERM · by the command line (session cli)`: `status`'s second
    line for a finished job (the session name is a file's: sanitized)."""
    words = fmt.ended_words(record)
    return f"ended  {safe(words, 200)}" if words else None


def row(record: JobRecord, now: float, *, peer: bool = False) -> str:
    return fmt.row(shown(record), now, peer=peer)


def start_line(record: JobRecord) -> str:
    badges = [b for b, on in (("detached", record.detached), ("wake", record.wake)) if on]
    if record.tty:
        badges.append("tty")
    elif record.stdin:
        badges.append("stdin")
    return " · ".join([outcome_line(record, now_ms()), *badges])


def list_lines(records: list[JobRecord], session_id: str) -> list[str]:
    now = now_ms()
    lines = [summary(records, session_id)]
    lines += [row(r, now, peer=r.session_id != session_id) for r in records]
    return lines


def pruned_lines(pruned: int, max_jobs: int) -> list[str]:
    """`… 12 older finished jobs were pruned (max_jobs 20)`, under the rows, when any were."""
    if pruned <= 0:
        return []
    jobs, were = ("job", "was") if pruned == 1 else ("jobs", "were")
    return [f"… {pruned} older finished {jobs} {were} pruned (max_jobs {max_jobs})"]


def logs_lines(details: dict[str, Any]) -> list[str]:
    """`… 412 earlier lines` (or `… lines 11-20 of 250` for a page), then the text."""
    text = details.get("logs", "")
    body = text[:-1] if text.endswith("\n") else text
    lines: list[str] = []
    if "offset" in details:
        if body:
            first, count = details["offset"], body.count("\n") + 1
            lines.append(f"… lines {first + 1}-{first + count} of {details.get('totalLines')}")
    elif details.get("truncated"):
        lines.append(earlier_note(details.get("earlierLines"), details.get("earlierBytes", 0)))
    if details.get("note"):
        lines.append(f"note: {details['note']}")
    lines.append(body if text else "No output yet.")
    return lines


def send_line(details: dict[str, Any]) -> str:
    parts = [outcome_line(record_of(details), now_ms()), f"sent {details.get('sent', 0)}"]
    if details.get("stdinClosed"):
        parts.append("stdin closed")
    return " · ".join(parts)


def kill_line(details: dict[str, Any]) -> str:
    record = record_of(details)
    parts = [outcome_line(record, now_ms())]
    if details.get("signalled"):
        parts.append(f"{details.get('signal')} sent")
    if details.get("adopted"):
        parts.append("taken over from another session")
    if details.get("leftoversKilled"):
        parts.append(f"{details['leftoversKilled']} leftover process(es) killed")
    return " · ".join(parts)


def clear_lines(details: dict[str, Any]) -> list[str]:
    cleared = [JobRecord.from_json(j) for j in details.get("jobs", [])]
    if not cleared:
        return ["Nothing to clear."]
    now = now_ms()
    return [f"cleared {len(cleared)}", *(row(r, now) for r in cleared)]


def exec_status_line(running: bool, record: JobRecord) -> str:
    """The outcome line under an exec/poll's output, and how to go on."""
    line = outcome_line(record, now_ms())
    if running:
        line += f" · still running; `jobs-tui poll {record.id}` for more output"
    return line
