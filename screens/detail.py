"""`DetailPane`: the selected job's command, cwd, outcome, owner and last output line."""

from __future__ import annotations

import os
from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static

from jobs_tui.engine.format import duration, elapsed_ms, glyph, outcome
from jobs_tui.engine.model import JobRecord, JobStatus
from jobs_tui.engine.sanitize import sanitize_line

from .css import stylesheet

FIELD_WIDTH = 9
STATUS_STYLES = {
    JobStatus.RUNNING: "bold $text-primary",
    JobStatus.EXITED: "$success",
    JobStatus.FAILED: "bold $error",
    JobStatus.KILLED: "$warning",
    JobStatus.UNKNOWN: "$text-muted",
}
MUTED = "$text-muted"
STOPPING_STYLE = "bold $warning"


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
    """`▸ running · 3.2s`, or `▸ stopping · SIGTERM sent 1.2s ago · 3.2s` during a kill."""
    if stopping is None or not record.running:
        return outcome(record, now_ms)
    took = duration(elapsed_ms(record, now_ms))
    sent = f"{stopping.signal or 'kill'} sent {duration(now_ms - stopping.since)} ago"
    return f"{glyph(record)} stopping · {sent} · {took}"


def home_short(path: str) -> str:
    """`~/src/app` for a path under the home directory: shorter, and the same for every user."""
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


def flags(record: JobRecord) -> str:
    parts = []
    if record.stdin:
        parts.append("stdin open" if record.running else "had stdin")
    if record.detached:
        parts.append("detached")
    if record.timeout_ms:
        parts.append(f"deadline {duration(record.timeout_ms)}")
    if record.wake:
        parts.append("wake")
    return " · ".join(parts)


def detail_text(
    record: JobRecord,
    now_ms: float,
    *,
    peer: bool,
    stopping: Stopping | None = None,
    last: str | None = None,
) -> Content:
    """The pane's content; every job-supplied string is sanitized to one plain line."""
    parts: list[str | tuple[str, str]] = [
        (record.id, "bold"),
        ("  " + sanitize_line(record.label), "bold"),
    ]

    def field(name: str, value: str, style: str = "") -> None:
        parts.extend(["\n", (f"{name:<{FIELD_WIDTH}}", MUTED), (value or "—", style)])

    field("command", sanitize_line(record.command, 2000))
    field("cwd", home_short(sanitize_line(record.cwd, 1000)))
    state = STOPPING_STYLE if stopping and record.running else STATUS_STYLES[record.status]
    field("outcome", outcome_text(record, now_ms, stopping), state)
    if peer:
        owner = sanitize_line(record.session_id, 80)
        pid = f" · pid {record.pid}" if record.pid else ""
        field("owner", f"another session ({owner}){pid}", "italic $text-secondary")
    extra = flags(record)
    if extra:
        field("flags", extra)
    line = sanitize_line(record.last_line if last is None else last)
    field("last", line or "no output yet", "" if line else MUTED)
    return Content.assemble(*parts)


class DetailPane(Static):
    """Re-rendered on selection change and on the screen's tick; never focused."""

    DEFAULT_CSS = stylesheet("detail.tcss")

    _shown: Content | None = None

    def show(
        self,
        record: JobRecord | None,
        now_ms: float,
        *,
        peer: bool,
        stopping: Stopping | None = None,
        last: str | None = None,
    ) -> None:
        """Repaint only on change, and lay out only when the text's size may have changed."""
        if record is None:
            content = Content.styled("Nothing selected.", f"italic {MUTED}")
        else:
            content = detail_text(record, now_ms, peer=peer, stopping=stopping, last=last)
        old = self._shown
        if old is not None and content.plain == old.plain and content.spans == old.spans:
            return
        self._shown = content
        self.update(content, layout=old is None or len(content.plain) != len(old.plain))
