"""How a job's state reads on screen: its colours, a kill under way, its outcome, a pane's title.

Shared by the list's detail pane and the two panes' title lines (`▸ j3  build  running ·
12.0s`), so a job reads the same wherever it is shown and no pane imports another.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content

from jobs_tui.engine.records.format import duration, elapsed_ms, glyph, outcome
from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.records.sanitize import sanitize_line

STATUS_STYLES = {
    JobStatus.RUNNING: "bold $text-primary",
    JobStatus.EXITED: "$success",
    JobStatus.FAILED: "bold $error",
    JobStatus.KILLED: "$warning",
    JobStatus.UNKNOWN: "$text-muted",
}
STOPPING_STYLE = "bold $warning"

Parts = list[str | tuple[str, str]]


@dataclass(frozen=True)
class Stopping:
    """A kill under way: since when (epoch ms), and its signal when this session sent it."""

    since: float
    signal: str | None = None

    @classmethod
    def of(cls, record: JobRecord) -> Stopping | None:
        """What the record itself says (another process of the session may be killing it)."""
        if record.stopping and record.stopping_at is not None:
            return cls(record.stopping_at)
        return None


def outcome_text(record: JobRecord, now_ms: float, stopping: Stopping | None = None) -> str:
    """`▸ running · 3.2s`, or `▸ stopping · SIGTERM sent 1.2s ago · 3.2s` during a kill.

    Sanitized: a peer's registry file may put anything in `signal`.
    """
    if stopping is None or not record.running:
        return sanitize_line(outcome(record, now_ms), 300)
    took = duration(elapsed_ms(record, now_ms))
    sent = f"{stopping.signal or 'kill'} sent {duration(now_ms - stopping.since)} ago"
    return f"{glyph(record)} stopping · {sent} · {took}"


def title_key(record: JobRecord | None, now_ms: float, repaint_ms: int) -> object:
    """What a header title shows changes only with this: redraw it when the key moves."""
    state = (
        None
        if record is None
        else (record.status, record.session_id, record.finished_at, record.stopping_at)
    )
    return state, int(now_ms // max(100, repaint_ms))


def title_content(record: JobRecord | None, job_id: str, now_ms: float, *, peer: bool) -> Content:
    """`▸ j3  build  running · 12.0s`, tagged `peer` for another session's job."""
    if record is None:
        return Content.styled(f"{job_id} (cleared)", "bold $text-muted")
    stopping = Stopping.of(record)
    _mark, _, rest = outcome_text(record, now_ms, stopping).partition(" ")
    parts: Parts = [
        (glyph(record), STOPPING_STYLE if stopping else STATUS_STYLES[record.status]),
        " ",
        (record.id, "bold"),
        "  ",
        (sanitize_line(record.label, 80), "bold"),
        "  ",
        (rest, "$text-muted"),
    ]
    if peer:
        parts.append(("  peer", "italic $text-secondary"))
    return Content.assemble(*parts)
