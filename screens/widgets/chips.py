"""`StatusChips`: `▸ N` running and `✗ N` unreported failures, for a host's footer or header.

Own jobs only: showing a peer's job never makes this session responsible for it.
The widget also raises the one notification for an own job's failure, so a host
that mounts it gets both, and a host that mounts it once gets each failure once.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from jobs_tui.engine import JobError
from jobs_tui.engine.records.model import JobEvent, JobStatus
from jobs_tui.engine.records.sanitize import sanitize_line

from .css import stylesheet
from .source import JobSource


def chip_counts(source: JobSource) -> tuple[int, int]:
    """(own running, own unreported failures)."""
    own = source.jobs(include_peers=False)
    running = sum(r.running for r in own)
    failed = sum(r.status is JobStatus.FAILED for r in source.pending_reports())
    return running, failed


def chips_content(running: int, failed: int) -> Content:
    parts: list[str | tuple[str, str]] = []
    if running:
        parts.append((f"▸ {running}", "bold $text-primary"))
    if failed:
        if parts:
            parts.append("  ")
        parts.append((f"✗ {failed}", "bold $error"))
    return Content.assemble(*parts)


class StatusChips(Static):
    """Counts refreshed on every job event and on the config's repaint interval."""

    DEFAULT_CSS = stylesheet("chips.tcss")

    def __init__(
        self,
        source: JobSource,
        *,
        notify_failures: bool = True,
        shown_is_seen: bool = False,
        poll: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`shown_is_seen`: a failure's toast reports it (`mark_seen`), as on a person's own
        screen; an agent's dock leaves the result for its model. `poll=False`: the host
        calls `recount` on its own clock (a timer of the chips' own is a wake-up more)."""
        super().__init__(id=id, classes=classes)
        self.source = source
        self.notify_failures = notify_failures
        self.shown_is_seen = shown_is_seen
        self.counts: tuple[int, int] = (-1, -1)
        self._notified: set[str] = set()
        self._unsubscribe = None
        self.poll = poll

    def on_mount(self) -> None:
        self.display = bool(getattr(self.source.config, "show_status", True))
        self._unsubscribe = self.source.subscribe(self._on_event)
        if self.poll:
            self.set_interval(max(0.1, self.source.config.repaint_ms / 1000), self.recount)
        self.recount()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _on_event(self, event: JobEvent) -> None:
        if event.kind == "job-finished":
            self._maybe_notify(event)
        if event.kind != "job-output":
            self.call_later(self.recount)

    def _maybe_notify(self, event: JobEvent) -> None:
        if not self.notify_failures or event.status != JobStatus.FAILED.value:
            return
        if event.id in self._notified:
            return
        try:
            record = self.source.get(event.id)
        except JobError:
            return
        if not self.source.is_own(record):
            return
        self._notified.add(event.id)
        self.notify(
            f"{event.id} {sanitize_line(record.label)} failed: exit {event.exit_code}",
            title="Job failed",
            severity="error",
            markup=False,
        )
        mark_seen = getattr(self.source, "mark_seen", None)
        if self.shown_is_seen and mark_seen is not None:
            mark_seen(event.id)

    def recount(self) -> None:
        counts = chip_counts(self.source)
        if counts != self.counts:
            self.counts = counts
            self.update(chips_content(*counts))
