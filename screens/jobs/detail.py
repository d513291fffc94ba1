"""`DetailPane`: the selected job's command, cwd, outcome, owner and last output line; a
declared job's state, probe, probe result, restart policy and dependencies too."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual.content import Content
from textual.geometry import Region
from textual.style import Style as VisualStyle
from textual.widget import Widget

from jobs_tui.engine.procs.resources import JobUsage
from jobs_tui.engine.records.format import duration, ended_words, usage_line
from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.css import stylesheet
from jobs_tui.screens.widgets.outcome import STATUS_STYLES, STOPPING_STYLE, Stopping, outcome_text
from jobs_tui.screens.widgets.words import home_short

from .declared import NOT_STARTED, NOT_STARTED_GLYPH, NotStarted

FIELD_WIDTH = 9
MUTED = "$text-muted"
PEER_STYLE = "italic $text-secondary"
# The pane's colours are component classes (styles/detail.tcss, the same as STATUS_STYLES),
# so a host's CSS restyles them as it restyles the rows: `DetailPane > .detail--failed`.
COMPONENTS = {
    **{status: f"detail--{status.value}" for status in JobStatus},
    "stopping": "detail--stopping",
    "peer": "detail--peer",
}


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
    if record.restart_of:
        parts.append(f"restarted from {sanitize_line(record.restart_of, 20)}")
    return " · ".join(parts)


def env_text(record: JobRecord) -> str:
    """The names of the environment the job was given: never its values."""
    return ", ".join(sanitize_line(name, 60) for name in record.env_names[:40]) + (
        f" … {len(record.env_names) - 40} more" if len(record.env_names) > 40 else ""
    )


@dataclass(frozen=True)
class Field:
    """One `name  value` of the pane; `rank` 0 is the last to go when space runs out."""

    name: str
    value: str
    style: str  # a component class of the pane (`detail--…`), or a style string
    rank: int


@dataclass(frozen=True)
class Detail:
    """What the pane shows of one job, before it is fitted to the pane's size."""

    title: Content
    fields: tuple[Field, ...]  # in display order


# When the pane is short, the fields that stay: outcome and last line first.
RANK = {
    "outcome": 0,
    "last": 1,
    "title": 2,
    "ended": 3,  # who or what ended a finished job
    "usage": 3,
    "owner": 4,
    "command": 5,
    "cwd": 6,
    "flags": 7,
    "env": 8,
    # a declared job's (declared.detail_rows): its state with the outcome, the rest after
    "state": 1,
    "result": 3,
    "depends": 4,
    "probe": 5,
    "restart": 6,
}


def detail_of(
    record: JobRecord,
    now_ms: float,
    *,
    peer: bool,
    stopping: Stopping | None = None,
    last: str | None = None,
    usage: JobUsage | None = None,
    declared: tuple[tuple[str, str], ...] = (),
) -> Detail:
    """The pane's fields; every string from the record is sanitized to one plain line.
    `usage`: what the running job uses (`cpu 12% · mem 85 MiB · 3 procs · listening :5173`);
    `declared`: a declared job's rows (`declared.detail_rows`, sanitized there)."""
    title = Content.assemble((record.id, "bold"), ("  " + sanitize_line(record.label), "bold"))
    if isinstance(record, NotStarted):  # its id is its name (its label)
        title = Content.styled(record.id, "bold")
    fields: list[Field] = []

    def field(name: str, value: str, style: str = "") -> None:
        fields.append(Field(name, value or "—", style, RANK[name]))

    field("command", sanitize_line(record.command, 2000))
    field("cwd", home_short(sanitize_line(record.cwd, 1000)))
    if isinstance(record, NotStarted):  # no job yet: what the file declares, no more
        field("outcome", f"{NOT_STARTED_GLYPH} {NOT_STARTED}", MUTED)
        for name, value in declared:
            if name != "state":
                field(name, value)
        return Detail(title, tuple(fields))
    state = COMPONENTS["stopping" if stopping and record.running else record.status]
    field("outcome", outcome_text(record, now_ms, stopping), state)
    ended = ended_words(record)
    if ended:
        field("ended", sanitize_line(ended, 300), MUTED)
    for name, value in declared:
        field(name, value)
    if peer:
        owner = sanitize_line(record.session_id, 80)
        pid = f" · pid {record.pid}" if record.pid else ""
        field("owner", f"another session ({owner}){pid}", COMPONENTS["peer"])
    if usage is not None and record.running:
        field("usage", usage_line(usage))
    extra = flags(record)
    if extra:
        field("flags", extra)
    if record.env_names:
        field("env", env_text(record))
    line = sanitize_line(record.last_line if last is None else last)
    field("last", line or "no output yet", "" if line else MUTED)
    return Detail(title, tuple(fields))


StyleOf = Callable[[str], "VisualStyle | str"]


def default_style(component: str) -> str:
    """A component class's default look as a style string (without a widget to ask)."""
    for key, name in COMPONENTS.items():
        if name == component:
            if isinstance(key, JobStatus):
                return STATUS_STYLES[key]
            return {"stopping": STOPPING_STYLE, "peer": PEER_STYLE}[key]
    return ""


def _wrapped(field: Field, width: int, style_of: StyleOf = default_style) -> list[Content]:
    style = style_of(field.style) if field.style.startswith("detail--") else field.style
    return Content.styled(field.value, style).wrap(max(1, width - FIELD_WIDTH))


def full_height(detail: Detail, width: int) -> int:
    """Rows the whole detail takes at `width`: the title, then each value wrapped."""
    return 1 + sum(len(_wrapped(f, width)) for f in detail.fields)


WrapOf = Callable[[Field, int], list[Content]]


def fit(detail: Detail, width: int, height: int, style_of: StyleOf = default_style) -> Content:
    """The detail in `width` x `height`: whole when it fits; else outcome and last line
    first, then the title and the other fields, each cut to the rows left (`…`).

    Wrapped values continue under the value, not under the label.
    """
    return Content("\n").join(fit_lines(detail, width, height, style_of))


def fit_lines(
    detail: Detail,
    width: int,
    height: int,
    style_of: StyleOf = default_style,
    wrap: WrapOf | None = None,
) -> list[Content]:
    """`fit`, one Content per row; `wrap(field, width)` may be a cache of `_wrapped`."""
    if width <= 0 or height <= 0:
        return [Content("")]
    wrap = wrap or (lambda field, width: _wrapped(field, width, style_of))
    wrapped = [wrap(f, width) for f in detail.fields]
    wants: dict[int | str, int] = {"title": 1} | {i: len(w) for i, w in enumerate(wrapped)}
    rows = dict(wants)
    if sum(wants.values()) > height:
        ranks = {"title": RANK["title"]} | {i: f.rank for i, f in enumerate(detail.fields)}
        order = sorted(wants, key=lambda key: ranks[key])
        rows = dict.fromkeys(wants, 0)
        left = height
        for key in order:  # outcome and last line whole, the rest one row each, by rank
            whole = ranks[key] <= RANK["last"]
            rows[key] = min(wants[key] if whole else 1, left)
            left -= rows[key]
        for key in order:  # then what is left, to whole values, by rank
            if rows[key]:
                extra = min(wants[key] - rows[key], left)
                rows[key], left = rows[key] + extra, left - extra
    value_width = max(1, width - FIELD_WIDTH)
    lines: list[Content] = []
    if rows["title"]:
        lines.append(detail.title.truncate(width, ellipsis=True))
    for index, (field, pieces) in enumerate(zip(detail.fields, wrapped, strict=True)):
        count = rows[index]
        if not count:
            continue
        kept = pieces[:count]
        if count < len(pieces):  # say that it goes on
            tail = kept[-1]
            if tail.cell_length >= value_width:
                tail = tail.truncate(value_width - 1)
            kept[-1] = tail + Content.styled("…", MUTED)
        label = Content.styled(f"{field.name:<{FIELD_WIDTH}}", MUTED)
        lines.append(label + kept[0])
        lines.extend(Content(" " * FIELD_WIDTH) + piece for piece in kept[1:])
    return lines


NOTHING = Content.styled("Nothing selected.", f"italic {MUTED}")


RowKey = tuple[str, tuple[object, ...]]


def row_keys(lines: list[Content]) -> list[RowKey]:
    """Each row's text and styles: what decides whether a row of the pane must be redrawn
    (`Content ==` compares the text only)."""
    return [(line.plain, tuple(line.spans)) for line in lines]


class DetailPane(Widget):
    """The selected job's fields, fitted to the pane's size; never focused.

    `show` is called on selection change and on the screen's tick; it repaints only
    when something changed, and then only the rows that changed (a tick changes the
    outcome's time: one row, not the pane's every row down to its bottom).
    """

    DEFAULT_CSS = stylesheet("detail.tcss")
    COMPONENT_CLASSES: ClassVar[set[str]] = set(COMPONENTS.values())

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.detail: Detail | None = None
        self._drawn: tuple[tuple[int, int], list[RowKey]] | None = None  # size, rows drawn
        self._fitted_for: tuple[Detail, tuple[int, int], list[Content]] | None = None
        self._wraps: dict[tuple[Field, int], list[Content]] = {}  # a field's rows, by width
        self.reserved = 0  # rows at the bottom a live tail takes (docked, see live_tail)

    def reserve(self, rows: int) -> None:
        """Leave `rows` at the bottom to a docked child (the live tail); fields fit above."""
        if rows != self.reserved:
            self.reserved = rows
            self.refresh()

    def _field_size(self) -> tuple[int, int]:
        return self.content_size.width, max(1, self.content_size.height - self.reserved)

    def show(
        self,
        record: JobRecord | None,
        now_ms: float,
        *,
        peer: bool,
        stopping: Stopping | None = None,
        last: str | None = None,
        usage: JobUsage | None = None,
        declared: tuple[tuple[str, str], ...] = (),
    ) -> bool:
        """Show `record`; True when what the pane shows changed."""
        detail = None
        if record is not None:
            detail = detail_of(
                record,
                now_ms,
                peer=peer,
                stopping=stopping,
                last=last,
                usage=usage,
                declared=declared,
            )
        if detail == self.detail:
            return False
        self.detail = detail
        self._refresh_changed_rows()
        return True

    def _refresh_changed_rows(self) -> None:
        """Refresh the rows whose text or style changed since the last render; all of them
        when the size changed, nothing was drawn yet or nothing is selected."""
        drawn, size = self._drawn, self._field_size()
        if drawn is None or drawn[0] != size or self.detail is None or not self.is_mounted:
            self.refresh()
            return
        new = row_keys(self._fitted(*size))
        old = drawn[1]
        width = size[0]
        rows = [
            Region(0, y, width, 1)
            for y in range(min(size[1], max(len(old), len(new))))
            if (old[y] if y < len(old) else None) != (new[y] if y < len(new) else None)
        ]
        if rows:
            self.refresh(*rows)

    def wanted_height(self, width: int) -> int:
        """Rows the whole detail would take at content width `width`."""
        if self.detail is None:
            return 1
        return 1 + sum(len(self._wrap(field, width)) for field in self.detail.fields)

    def render(self) -> Content:
        if self.detail is None:
            self._drawn = None
            return NOTHING
        size = self._field_size()
        lines = self._fitted(*size)
        self._drawn = (size, row_keys(lines))
        return Content("\n").join(lines)

    def _fitted(self, width: int, height: int) -> list[Content]:
        """The rows of the detail at this size (kept for the render that follows a show)."""
        assert self.detail is not None
        cached = self._fitted_for
        if cached is not None and cached[0] is self.detail and cached[1] == (width, height):
            return cached[2]
        lines = fit_lines(self.detail, width, height, self._component_style, self._wrap)
        self._fitted_for = (self.detail, (width, height), lines)
        return lines

    def _wrap(self, field: Field, width: int) -> list[Content]:
        """A field's wrapped rows, kept: a tick changes the outcome, not the command."""
        key = (field, width)
        rows = self._wraps.get(key)
        if rows is None:
            if len(self._wraps) > 64:
                self._wraps.clear()
            rows = self._wraps[key] = _wrapped(field, width, self._component_style)
        return rows

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._wraps.clear()  # the component classes' colours may have changed
        self._fitted_for = None

    def _component_style(self, component: str) -> VisualStyle:
        """The component's colour and text style, without a background (the pane's shows)."""
        full = self.get_visual_style(component, partial=True)
        return VisualStyle(
            foreground=full.foreground, bold=full.bold, italic=full.italic, dim=full.dim
        )
