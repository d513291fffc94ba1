"""`JobList`: the rows of the /jobs screen, drawn line by line.

A Line API widget so a list of hundreds of jobs costs only its visible rows per
repaint, and so the cursor is a job id rather than a row number: a live re-sort
moves the row, never the selection.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from jobs_tui.engine.procs.resources import JobUsage
from jobs_tui.engine.records.format import duration, elapsed_ms, glyph, memory
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.css import stylesheet
from jobs_tui.screens.widgets.source import Clock

from .declared import NOT_STARTED_GLYPH, NotStarted, row_label
from .feed import declared_of, id_cells, row_order, shown_of

ELAPSED_COLUMNS = 7
PEER_TAG = " peer"
STOPPING_TAG = " stopping"
MIN_LABEL = 6
USAGE_COLUMNS = 15  # ` 12% 85.0 MiB`: cpu and memory of running jobs, in wide lists
USAGE_MIN_LABEL = 24  # the columns show only while the label keeps at least this much


def usage_cells(usage: JobUsage | None) -> str:
    """` cpu%  memory`, right-aligned in USAGE_COLUMNS cells (blank without a sample)."""
    if usage is None:
        return " " * USAGE_COLUMNS
    cpu = "–" if usage.cpu_percent is None else f"{usage.cpu_percent:.0f}%"
    return f" {cpu:>5} {memory(usage.rss_bytes):>8}"[-USAGE_COLUMNS:].rjust(USAGE_COLUMNS)


def fit(text: str, width: int) -> str:
    """`text` clipped with an ellipsis, or padded, to exactly `width` cells."""
    if width <= 0:
        return ""
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)


class JobList(ScrollView, can_focus=False):
    """Job rows with a cursor that follows a job id across re-sorts."""

    DEFAULT_CSS = stylesheet("job_list.tcss")
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "job-list--cursor",
        "job-list--running",
        "job-list--exited",
        "job-list--failed",
        "job-list--killed",
        "job-list--unknown",
        "job-list--peer",
        "job-list--stopping",
        "job-list--header",
        "job-list--muted",
        "job-list--empty",
    }

    class CursorMoved(Message):
        """The selected job changed (by key, click, or because it was cleared)."""

        def __init__(self, job_id: str | None) -> None:
            super().__init__()
            self.job_id = job_id

    class Activated(Message):
        """A click on the row that was already selected: open it."""

        def __init__(self, job_id: str) -> None:
            super().__init__()
            self.job_id = job_id

    def __init__(
        self,
        clock: Clock,
        is_own: Callable[[JobRecord], bool],
        *,
        stopping: Callable[[JobRecord], bool] | None = None,
        empty_text: str = "No jobs yet.",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._clock = clock
        self._is_own = is_own
        self._stopping = stopping or (lambda record: record.stopping)
        self.empty_text = empty_text
        self.records: list[JobRecord] = []
        self.cursor_id: str | None = None
        self._index: dict[str, int] = {}
        self._labels: dict[tuple[str, str], str] = {}
        self._styles: dict[str, Style] = {}
        self._base: Style | None = None  # the widget's own rich style, kept between rows
        self.usage: dict[str, JobUsage] = {}  # what running jobs use: columns in wide lists
        self._id_width = 3
        self._tag_width = 0
        self._painted: dict[str, tuple[object, ...]] = {}  # a declared row's state, as drawn

    # -- data --------------------------------------------------------------------------
    @property
    def cursor_index(self) -> int | None:
        return self._index.get(self.cursor_id) if self.cursor_id is not None else None

    @property
    def selected(self) -> JobRecord | None:
        index = self.cursor_index
        return self.records[index] if index is not None else None

    def set_records(self, records: list[JobRecord]) -> None:
        """New rows; the cursor stays on its job, or on the row where it was if that job left."""
        old_index, old_top = self.cursor_index, round(self.scroll_y)
        self.records = records
        self._painted = {}  # every row is drawn again
        self._index = {r.id: i for i, r in enumerate(records)}
        self._id_width = max(3, max((id_cells(r) for r in records), default=3))
        self._tag_width = max((len(self._tag(r)) for r in records), default=0)
        if self.cursor_id not in self._index:
            if records:
                fallback = min(old_index if old_index is not None else 0, len(records) - 1)
                self._move_to(fallback)
            else:
                self._set_cursor(None)
        self.virtual_size = Size(self.size.width, self._lines())
        new_index = self.cursor_index
        if new_index != old_index and new_index is not None and old_index is not None:
            # others moved around the selected job: it stays on the screen row it was on
            # (as far as the list can scroll), so a key pressed next acts where one looks
            self.scroll_to(
                y=max(0, new_index - (old_index - old_top)),
                animate=False,
                immediate=True,
                force=True,
            )
        if new_index != old_index:  # keep it in view (a wheel-scrolled list is otherwise
            self._keep_visible()  # left where the user put it)
        self.refresh()

    def update_record(self, record: JobRecord) -> bool:
        """Take a changed record in place when its row stays where it is; False otherwise
        (a new job, or one whose place in the order changed: the rows must be re-sorted)."""
        index = self._index.get(record.id)
        if index is None or row_order(self.records[index]) != row_order(record):
            return False
        old, self.records[index] = self.records[index], record
        if old is record:  # changed in place (a declared job's phase): as it was drawn?
            drawn = self._painted.get(record.id)
            if record.declared_name is not None and drawn != declared_of(record):
                self._refresh_row(index)
        elif shown_of(old) != shown_of(record):  # output alone changes nothing a row shows
            self._refresh_row(index)
        return True

    def set_usage(self, usage: dict[str, JobUsage]) -> None:
        """New samples; the rows are repainted only when the list is wide enough to show them."""
        headed = self.header_lines
        self.usage = usage
        if self.header_lines != headed:  # the columns (and their headers) came or went
            self.virtual_size = Size(self.size.width, self._lines())
        if self.header_lines != headed:
            self.refresh()
        elif self.records and self._usage_shown(self.scrollable_content_region.width):
            self.refresh_moving()  # only running jobs are sampled

    def _usage_shown(self, width: int) -> bool:
        return bool(self.usage) and self._wide(width)

    def _wide(self, width: int) -> bool:
        """Room for the usage columns beside a label of USAGE_MIN_LABEL cells."""
        label = width - (3 + self._id_width + 2) - (1 + ELAPSED_COLUMNS) - self._tag_width - 1
        return label - USAGE_COLUMNS >= USAGE_MIN_LABEL

    @property
    def header_lines(self) -> int:
        """The column headers' line, pinned over the rows while they show the usage columns
        (what `12%  85 MiB` is); id, label and time alone need none, and a small screen
        keeps the line for a row."""
        return 1 if self.records and self._usage_shown(self.scrollable_content_region.width) else 0

    def _tag(self, record: JobRecord) -> str:
        """` stopping` while a kill is under way, ` peer` for another session's job."""
        return (STOPPING_TAG if self._stopping(record) else "") + (
            "" if self._is_own(record) else PEER_TAG
        )

    def _set_cursor(self, job_id: str | None) -> None:
        if job_id != self.cursor_id:
            self.cursor_id = job_id
            self.post_message(self.CursorMoved(job_id))

    def _move_to(self, index: int) -> None:
        if not self.records:
            return
        index = max(0, min(index, len(self.records) - 1))
        self._set_cursor(self.records[index].id)

    # -- movement ----------------------------------------------------------------------
    def move(self, delta: int) -> None:
        index = self.cursor_index
        top = self.scroll_y
        self._move_to(0 if index is None else index + delta)
        self._keep_visible()
        new = self.cursor_index
        if index is not None and new is not None and self.scroll_y == top:
            self._refresh_row(index)  # only the two rows that changed
            self._refresh_row(new)
        else:
            self.refresh()

    def page(self, direction: int) -> None:
        rows = self.scrollable_content_region.height - self.header_lines
        self.move(direction * max(1, rows - 1))

    def first(self) -> None:
        self.move(-len(self.records))

    def last(self) -> None:
        self.move(len(self.records))

    def select(self, job_id: str) -> None:
        if job_id in self._index:
            self._set_cursor(job_id)
            self._keep_visible()
            self.refresh()

    def refresh_moving(self) -> None:
        """Repaint the rows in view whose elapsed time moves (jobs not finished), not the
        list: a once-a-second tick then costs a few lines, not the whole pane."""
        top = round(self.scroll_y)
        height = self.scrollable_content_region.height - self.header_lines
        for index in range(top, min(len(self.records), top + max(0, height))):
            if self.records[index].finished_at is None:
                self._refresh_row(index)

    def _refresh_row(self, index: int) -> None:
        self.refresh_lines(index + self.header_lines)

    def lines_for(self, rows: int) -> int:
        """The lines `rows` rows take, with the column headers over them."""
        return rows + self.header_lines if rows else 0

    def _lines(self) -> int:
        return self.lines_for(len(self.records))

    def _keep_visible(self) -> None:
        index = self.cursor_index
        height = self.scrollable_content_region.height - self.header_lines
        if index is None or height <= 0:
            return
        top = round(self.scroll_y)
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True, force=True)
        elif index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, immediate=True, force=True)

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, self._lines())
        self._keep_visible()

    def on_click(self, event: events.Click) -> None:
        index = round(self.scroll_y) + event.y - self.header_lines
        if event.y >= self.header_lines and 0 <= index < len(self.records):
            job_id = self.records[index].id
            if job_id == self.cursor_id:
                self.post_message(self.Activated(job_id))
            else:
                self.select(job_id)

    # -- drawing -----------------------------------------------------------------------
    def _label(self, record: JobRecord) -> str:
        """The sanitized label, and a declared job's state after it (`api  ready`)."""
        key = (record.id, record.label, record.status, record.exit_code, *declared_of(record))
        label = self._labels.get(key)
        if label is None:
            if len(self._labels) > 4096:
                self._labels.clear()
            plain = sanitize_line(record.label) or record.id
            label = self._labels[key] = row_label(record, plain)
        return label

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self._base
        if base is None:  # computed from every ancestor's background: once, not per row
            base = self._base = self.rich_style
        index = round(self.scroll_y) + y - self.header_lines
        if not self.records:
            lines = textwrap.wrap(self.empty_text, max(10, width - 4))
            if 1 <= y <= len(lines):  # wrapped: it says how to start one, whole
                style = base + self.get_component_rich_style("job-list--empty")
                return Strip([Segment(fit("  " + lines[y - 1], width), style)], width)
            return Strip.blank(width, base)
        if y < self.header_lines:  # pinned over the rows, however far they are scrolled
            style = base + self.get_component_rich_style("job-list--header")
            return Strip([Segment(fit(self._header(width), width), style)], width)
        if index >= len(self.records):
            return Strip.blank(width, base)
        record = self.records[index]
        if record.declared_name is not None:
            self._painted[record.id] = declared_of(record)
        on_cursor = record.id == self.cursor_id
        if on_cursor:
            base = base + self.get_component_rich_style("job-list--cursor")
        return Strip(self._row_segments(record, width, base, on_cursor)).adjust_cell_length(
            width, base
        )  # never a cell past the list: what is past it stays painted over the detail pane

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._base = None

    def _fg(self, name: str) -> Style:
        """A component's colour and text style without its background, to lay over a row."""
        style = self._styles.get(name)
        if style is None:
            full = self.get_component_rich_style(name)
            style = Style(color=full.color, bold=full.bold, italic=full.italic, dim=full.dim)
            self._styles[name] = style
        return style

    def _header(self, width: int) -> str:
        """What each column of the rows below is, laid out as `_row_segments` lays them."""
        id_width, tag_width = self._id_width, self._tag_width
        label_width = width - (3 + id_width + 2) - (1 + ELAPSED_COLUMNS) - tag_width - 1
        lead = f"   {'id':<{id_width}}  "
        if label_width < MIN_LABEL:
            return lead + "job"
        usage = f" {'cpu':>5} {'memory':>8}" if self._usage_shown(width) else ""
        if usage:
            label_width -= USAGE_COLUMNS
        return f"{lead}{'job':<{label_width}}{usage} {'elapsed':>{ELAPSED_COLUMNS}}"

    def _row_segments(
        self, record: JobRecord, width: int, base: Style, on_cursor: bool
    ) -> list[Segment]:
        plain = Style()

        def component(name: str) -> Style:
            return plain if on_cursor else self._fg(name)

        stopping = self._stopping(record)
        tag = len(self._tag(record))
        if tag > self._tag_width:  # a kill began after the rows were laid out: widen the
            self._tag_width = tag  # tag column for every row, not this one past the list
            self.refresh()
        id_width, tag_width = self._id_width, self._tag_width
        label_width = width - (3 + id_width + 2) - (1 + ELAPSED_COLUMNS) - tag_width - 1
        columns = self._usage_shown(width)
        if columns:
            label_width -= USAGE_COLUMNS
        pending = isinstance(record, NotStarted)  # a declared job with no job yet
        took = "" if pending else duration(elapsed_ms(record, self._clock()))
        state = "stopping" if stopping else "muted" if pending else record.status.value
        status_style = component(f"job-list--{state}")
        took_style = base if record.running else base + component("job-list--muted")
        shown_id = fit(record.id, id_width) if pending else f"{record.id:<{id_width}}"
        segments = [
            Segment(" ", base),
            Segment(NOT_STARTED_GLYPH if pending else glyph(record), base + status_style),
            Segment(f" {shown_id}  ", base),
        ]
        label_style = base + component("job-list--muted") if pending else base
        if label_width >= MIN_LABEL:
            segments.append(Segment(fit(self._label(record), label_width), label_style))
            if columns:
                used = self.usage.get(record.id) if record.running else None
                segments.append(Segment(usage_cells(used), base + component("job-list--muted")))
            segments.append(Segment(f" {took:>{ELAPSED_COLUMNS}}", took_style))
        else:  # too narrow for both: the label gets what is left
            segments.append(
                Segment(fit(self._label(record), width - 3 - id_width - 2), label_style)
            )
            return segments
        if tag_width:
            if stopping:
                segments.append(Segment(STOPPING_TAG, base + component("job-list--stopping")))
                tag_width -= len(STOPPING_TAG)
            peer = "" if self._is_own(record) else PEER_TAG
            segments.append(Segment(peer.ljust(tag_width), base + self._fg("job-list--peer")))
        segments.append(Segment(" ", base))
        return segments
