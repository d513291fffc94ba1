"""`JobsScreen`: every job of the project, live; a detail pane; kill, clear, take over, open logs.

The screen is embeddable: it takes its job source in the constructor, reaches the
app only through `notify`, `push_screen` and `pop_screen` (via `dismiss`), keeps its
styles in `DEFAULT_CSS`, and runs every engine call in a worker that cannot exit
the host.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static

from jobs_tui.engine import JobError
from jobs_tui.engine.format import summary
from jobs_tui.engine.model import JobRecord
from jobs_tui.engine.resources import JobUsage
from jobs_tui.engine.sanitize import sanitize_line

from .chips import StatusChips
from .css import stylesheet
from .detail import DetailPane, Stopping
from .footer_keys import ApplicableKeys
from .help import HelpScreen, key_rows
from .job_actions import JobActions, KillUnderWay
from .job_rows import JobList, any_running, counts_fingerprint, row_order
from .list_filter import FilterInput, ListFilter, matches
from .live_tail import FIELD_ROWS, MIN_ROWS, LiveTail, fits
from .source import Clock, JobSource, wall_clock
from .words import plural

POLL_S = 0.2  # how often events are applied and running rows' times repainted
RECONCILE_S = 1.0  # how often the whole table is re-read: for what no event reports (peers)
LATEST_S = 1.0  # how often the selected job's latest line is read from its log
# How often what running jobs use is sampled while the screen is shown: each sample is a
# pass over the whole process table (about a point of a core at 50 jobs, once a second).
USAGE_S = 2.0
TAIL_LATE = 1.5  # the live tail's output waits at most this many ticks for one
SETTLE_S = 0.15  # a new selection's line is read once the cursor rests this long
TAIL_SETTLE_S = 0.4  # and its live tail opened (moving through rows opens none of theirs)
DETAIL_ROWS = {"-tall": 8, "-short": 5}  # stacked: the detail's rows when the list needs all
EMPTY_TEXT = "No jobs yet: jobs started by any session in this project appear here."


@dataclass(frozen=True)
class LatestLine:
    """The selected job's latest output line as its log said it, and when."""

    text: str | None  # None: the log does not exist (the record's own line stands)
    read_at: float  # time.monotonic()
    finished_at: int | None  # the record's, when read: a finished job's line is final


class JobsScreen(JobActions, ApplicableKeys, Screen[None]):
    """The /jobs dock: summary, rows, detail pane, and the keys that act on the selection."""

    TRACKED = ("open_log", "kill", "take_over", "clear", "restart")

    AUTO_FOCUS = ""  # keys belong to the screen until the user opens a field

    selection: reactive[str | None] = reactive(None, init=False, repaint=False)
    """The selected job's id: the detail pane, the footer's keys and its latest line follow it.
    (No repaint of its own: a repaint of the screen would redraw every widget on each key;
    the watcher refreshes the detail pane, the list its two rows.)"""
    filter_text: reactive[str] = reactive("", init=False, repaint=False)
    """The list's filter (`/`): only jobs whose id, label or command contain it are listed."""
    usage: reactive[dict[str, JobUsage]] = reactive(dict, init=False, repaint=False)
    """What running jobs use (`JobSource.usage`), sampled once a second while shown."""

    DEFAULT_CSS = stylesheet("jobs_screen.tcss")
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [
        (0, "-narrow"),
        (100, "-wide"),
    ]
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [(0, "-short"), (18, "-tall")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False, id="jobs.up"),
        Binding("down,j", "move(1)", "Down", show=False, id="jobs.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="jobs.page-up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="jobs.page-down"),
        Binding("home,g", "first", "First", show=False, id="jobs.first"),
        Binding("end,G", "last", "Last", show=False, id="jobs.last"),
        Binding("enter,l", "open_log", "Log", key_display="⏎", id="jobs.open-log"),
        Binding("d,K", "kill", "Kill", id="jobs.kill"),
        Binding("t", "take_over", "Take over", id="jobs.take-over"),
        Binding("x", "clear", "Clear finished", id="jobs.clear"),
        Binding("r", "restart", "Restart", show=False, id="jobs.restart"),
        Binding("slash", "filter", "Filter", show=False, key_display="/", id="jobs.filter"),
        Binding("question_mark", "help", "Keys", key_display="?", id="jobs.help"),
        Binding("q,escape", "close", "Close", id="jobs.close"),
    ]
    HELP: ClassVar[dict[str, str]] = {
        "move(-1)": "select the job above",
        "move(1)": "select the job below",
        "page": "a page up / down",
        "first": "the first job",
        "last": "the last job",
        "open_log": "open the job's log",
        "kill": "kill the job (y/N); on a stopping job: SIGKILL now (y/N)",
        "take_over": "take over another session's running job (y/N)",
        "clear": "clear this session's finished jobs (y/N)",
        "restart": "restart the job as a new one (y/N while it runs)",
        "filter": "filter the list by id, label or command (Esc clears)",
        "help": "this list of keys",
        "close": "close (Esc clears a filter first)",
    }

    def __init__(
        self,
        source: JobSource,
        *,
        clock: Clock | None = None,
        show_chips: bool = False,
        empty_text: str = EMPTY_TEXT,
        close_description: str = "Close",
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id)
        self.source = source
        self.clock: Clock = clock or wall_clock
        self.show_chips = show_chips
        self.empty_text = empty_text
        self.close_description = close_description
        self._records: list[JobRecord] = []
        self._fingerprint: tuple[object, ...] | None = None
        self._dirty = True
        self._news: dict[str, JobRecord] = {}  # changed records the events brought, by id
        self._resort = False  # a start or a finish among them: rows move, counts change
        self._reconciled_at = 0.0
        self._last_tick = 0.0
        self._shown_ms: float | None = None  # the time the rows and the detail show
        self._usage_due: dict[str, JobUsage] | None = None  # a sample, shown at the next tick
        self._unsubscribe: Callable[[], None] | None = None
        self._kills: dict[str, KillUnderWay] = {}
        self._latest: dict[str, LatestLine] = {}
        self._latest_soon: Timer | None = None
        self._detail_height: int | str | None = None
        self._tail_rows = 0  # the live tail's rows (0: hidden; see _fit_detail)
        self._selected_at = 0.0  # time.monotonic() of the last selection change
        self._summary_text: str | None = None
        self._pruned_seen: int | None = None  # prunes before the screen opened are not news
        self.refreshes = 0  # updates of the list (re-read, news applied, tick); benchmarks read it

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="jobs-topbar"):
            yield Static(Content.styled("Jobs", "bold"), id="jobs-title")
            yield Static(id="jobs-summary")
            if self.show_chips:
                yield StatusChips(self.source, id="jobs-chips")
        with Container(id="jobs-body"):
            yield JobList(
                self.shown_clock,
                self.source.is_own,
                stopping=lambda record: self.stopping(record) is not None,
                empty_text=self.empty_text,
                id="jobs-rows",
            )
            with DetailPane(id="jobs-detail"):
                yield LiveTail(self.source, id="jobs-tail")
        yield ListFilter(id="jobs-filter")
        yield Footer()

    def shown_clock(self) -> float:
        """The time the rows and the detail pane show: the clock as of the list's last tick.

        The elapsed times move once a tick (`repaint_ms`), together, instead of with every
        output event (which would redraw the detail pane five times a second); a moved
        cursor repaints its rows with the same time as the rest of the list."""
        return self.clock() if self._shown_ms is None else self._shown_ms

    @property
    def job_list(self) -> JobList:
        return self.query_one(JobList)

    @property
    def selected(self) -> JobRecord | None:
        return self.job_list.selected

    def on_mount(self) -> None:
        self._unsubscribe = self.source.subscribe(self._on_event)
        self.set_interval(POLL_S, self._poll)
        self.set_interval(LATEST_S, self._read_latest)
        self.set_interval(LATEST_S, self._show_problems)
        self.set_interval(USAGE_S, self._sample_usage)
        self.refresh_jobs(force=True)
        self._read_latest()
        self._show_problems()
        self._sample_usage()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def on_screen_resume(self) -> None:
        self.refresh_jobs(force=True)

    # -- live data ---------------------------------------------------------------------
    def _on_event(self, event: Any) -> None:
        """An event carries the changed record: its row is updated at the next poll. An
        event without one (another source's) has the table re-read instead."""
        record = getattr(event, "record", None)
        if record is None:
            self._dirty = True
            return
        self._news[record.id] = record
        if getattr(event, "kind", "") != "job-output":
            self._resort = True

    @property
    def shown(self) -> bool:
        """On top, or under a dialog (Textual's `is_current` is also true under a full
        screen such as the log pane, which hides the list entirely)."""
        stack = self.app.screen_stack
        if stack and stack[-1] is self:
            return True
        return len(stack) > 1 and stack[-2] is self and isinstance(stack[-1], ModalScreen)

    def _poll(self) -> None:
        self._keep_tail()
        if not self.shown:
            return
        if self._dirty or time.monotonic() - self._reconciled_at >= RECONCILE_S:
            self.refresh_jobs()
        elif self._news:
            self._apply_news()
        else:
            self._tick()
        # output that no tick showed in time (no tick is due: the clock, no running job)
        self.query_one(LiveTail).flush(TAIL_LATE * self._tick_ms() / 1000)

    def _apply_news(self) -> None:
        """The records events brought: rows updated in place, re-sorted after a start or a
        finish; the table is not re-read."""
        news, self._news = self._news, {}
        resort, self._resort = self._resort, False
        job_list = self.job_list
        if not resort:
            resort = not all(
                job_list.update_record(record) or not self._listed(record)
                for record in news.values()
            )
        if resort:
            self._shown_ms = self.clock()
            index = {r.id: r for r in self._records} | news
            records = sorted(index.values(), key=row_order)
            self._fingerprint = (counts_fingerprint(records), self._pruned())
            self._show_rows(records)
        elif self.selection in news:
            self._show_detail()
        self.refreshes += 1  # the list took the news (benchmarks read it)
        self._tick()

    def _tick(self) -> None:
        """Once a tick while jobs run: their times move (rows repainted, not re-read)."""
        now = self.clock()
        if not any_running(self._records) or now - self._last_tick < self._tick_ms():
            return
        self._last_tick = self._shown_ms = now
        self._take_usage()
        self.job_list.refresh()
        self.query_one(LiveTail).flush()  # the same frame as the rows
        self.refreshes += 1
        self._show_detail()

    def _listed(self, record: JobRecord) -> bool:
        return matches(record, self.filter_text)

    def _show_rows(self, records: list[JobRecord]) -> None:
        self._records = records
        shown = [r for r in records if self._listed(r)] if self.filter_text else records
        self.job_list.set_records(shown)
        if self.filter_text or self.query_one(ListFilter).has_class("-open"):
            self.query_one(ListFilter).show_count(len(shown), len(records))
        self.selection = self.job_list.cursor_id
        self._show_summary(records)
        self.set_class(not records, "-empty")
        self._fit_detail()
        self._show_detail()
        self._update_bindings()

    def refresh_jobs(self, force: bool = False) -> None:
        """Re-read the table (the slow reconcile, and after this screen's own actions);
        rows are replaced when they changed, else repainted once a tick while jobs run."""
        self._reconciled_at = time.monotonic()
        self._news.clear()
        self._resort = False
        records = self.source.jobs()
        fingerprint = (counts_fingerprint(records), self._pruned())
        now = self.clock()
        tick_due = any_running(records) and now - self._last_tick >= self._tick_ms()
        changed = force or self._dirty or fingerprint != self._fingerprint
        if not (changed or tick_due):
            return
        self._dirty = False
        self._last_tick = self._shown_ms = now
        self._take_usage()
        if changed:
            self._fingerprint = fingerprint
            self._show_rows(records)
        else:  # the same rows; records read anew (a peer's, a source's copies) taken in place
            self._records = records
            job_list = self.job_list
            for record in records:
                job_list.update_record(record)
            job_list.refresh()
            self._show_detail()
        self.query_one(LiveTail).flush()
        self.refreshes += 1

    def _tick_ms(self) -> float:
        return max(100, self.source.config.repaint_ms)

    def _show_problems(self) -> None:
        """Problems the source found (quarantined files, skipped entries, refused paths),
        each shown once: the source hands each out once. Checked while a log is open too."""
        take = getattr(self.source, "take_problems", None)
        if take is None:
            return
        for problem in take():
            self.notify(
                sanitize_line(str(problem), 300),
                title="Job registry",
                severity="warning",
                timeout=10,
                markup=False,
            )

    def _pruned(self) -> int:
        """How many older finished jobs the registry pruned (0 for a source that cannot say)."""
        pruned = getattr(self.source, "pruned", 0)
        return pruned if isinstance(pruned, int) and pruned > 0 else 0

    def _show_summary(self, records: list[JobRecord]) -> None:
        """The counts of the rows shown, and the jobs pruned; new prunes are announced."""
        text = summary(records, self.source.session_id)
        pruned = self._pruned()
        if pruned:
            text += f" · {plural(pruned, 'older finished job')} pruned"
        if self._pruned_seen is not None and pruned > self._pruned_seen:
            fresh = pruned - self._pruned_seen
            were = "was" if fresh == 1 else "were"
            self.notify(
                f"{plural(fresh, 'older finished job')} {were} pruned "
                f"(max_jobs {self.source.config.max_jobs}).",
                markup=False,
            )
        self._pruned_seen = pruned
        if text != self._summary_text:  # an unchanged summary is not redrawn
            self._summary_text = text
            self.query_one("#jobs-summary", Static).update(
                Content.styled(text, "$text-muted"), layout=False
            )

    def stopping(self, record: JobRecord) -> Stopping | None:
        """A kill under way: this session's (known at once), or the one the record names."""
        if not record.running:
            return None
        kill = self._kills.get(record.id)
        if kill is not None:
            return Stopping(kill.since, kill.signal)
        return Stopping.of(record)

    def _show_detail(self) -> None:
        record = self.selected
        peer = record is not None and not self.source.is_own(record)
        stopping = self.stopping(record) if record is not None else None
        last = self._latest_text(record) if record is not None else None
        usage = self.usage.get(record.id) if record is not None else None
        detail = self.query_one(DetailPane)
        shown_ms = self.shown_clock()
        if detail.show(record, shown_ms, peer=peer, stopping=stopping, last=last, usage=usage):
            self._fit_detail()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_detail)

    # -- the selected job's live tail (wide and tall screens) ---------------------------
    def _keep_tail(self) -> None:
        """Follow the selected job once the cursor rests, only while the list is shown and
        the tail has room; anything else stops it (no reader, no wake-ups)."""
        tail = self.query_one(LiveTail)
        if not self.shown or not self._tail_rows:
            if tail.job_id is not None:
                tail.stop()
            return
        if time.monotonic() - self._selected_at >= TAIL_SETTLE_S:
            tail.follow(self.selected)

    def on_screen_suspend(self) -> None:
        self._keep_tail()

    def _fit_detail(self) -> None:
        """Stacked below the list, the detail takes the rows the list does not need, up
        to its whole height, and at least its outcome and last line (the pane fits its
        fields to the rows it gets); side by side it has the body's height."""
        detail = self.query_one(DetailPane)
        self._fit_tail(detail)
        if not self.has_class("-narrow"):
            height: int | str = "1fr"
        else:
            body = self.query_one("#jobs-body").size.height
            if body <= 0:
                return
            width = max(1, self.size.width - detail.styles.gutter.width)
            want = detail.wanted_height(width) + 1  # its top border
            rows = DETAIL_ROWS["-tall" if self.has_class("-tall") else "-short"]
            height = min(want, max(rows, body - len(self._records)))
            height = max(1, min(max(height, min(want, 3)), body - 1))
        if height != self._detail_height:
            self._detail_height = height
            detail.styles.height = height

    def _fit_tail(self, detail: DetailPane) -> None:
        """Wide and tall enough (`live_tail.fits`): the tail takes the rows below the
        detail's first FIELD_ROWS (the same for every job: it does not jump as the cursor
        moves), when they are at least MIN_ROWS; else it is hidden."""
        rows = 0
        if fits(self.size.width, self.size.height) and not self.has_class("-narrow"):
            rows = detail.content_size.height - FIELD_ROWS
            rows = rows if rows >= MIN_ROWS else 0
        if rows != self._tail_rows:
            self._tail_rows = rows
            tail = self.query_one(LiveTail)
            tail.set_class(bool(rows), "-shown")
            if rows:
                tail.styles.height = rows
            detail.reserve(rows)
            self._keep_tail()

    # -- the selected job's latest line, read from its log ------------------------------
    def _latest_text(self, record: JobRecord) -> str | None:
        """The line read from the log, while it is fresh (a finished job's: for good)."""
        latest = self._latest.get(record.id)
        if latest is None:
            return None
        if record.running and time.monotonic() - latest.read_at > 2 * LATEST_S:
            return None
        if not record.running and latest.finished_at != record.finished_at:
            return None
        return latest.text

    def _read_latest(self) -> None:
        """At most about once a second, and off the event loop: never per frame or key."""
        record = self.selected
        reader = getattr(self.source, "latest_line", None)
        if record is None or reader is None or not self.shown:
            return
        latest = self._latest.get(record.id)
        if latest is not None:
            if not record.running and latest.finished_at == record.finished_at:
                return  # final
            if time.monotonic() - latest.read_at < 0.8 * LATEST_S:
                return
        self.run_worker(  # a callable, not a coroutine: an exclusive worker may never start
            partial(self._fetch_latest, record.id, record.finished_at, reader),
            name="latest line",
            group="jobs-latest",
            exclusive=True,
            exit_on_error=False,
        )

    async def _fetch_latest(
        self,
        job_id: str,
        finished_at: int | None,
        reader: Callable[[str], Awaitable[str | None]],
    ) -> None:
        try:
            text = await reader(job_id)
        except (JobError, OSError):
            return
        if len(self._latest) > 256:
            self._latest.clear()
        self._latest[job_id] = LatestLine(text, time.monotonic(), finished_at)
        if self.selected is not None and self.selected.id == job_id:
            self._show_detail()

    def on_job_list_cursor_moved(self, message: JobList.CursorMoved) -> None:
        self.selection = message.job_id

    def watch_selection(self) -> None:
        self._selected_at = time.monotonic()
        self._show_detail()
        self._update_bindings()
        if self._latest_soon is not None:
            self._latest_soon.stop()
        self._latest_soon = self.set_timer(SETTLE_S, self._read_latest)

    def _selection_changed(self) -> None:
        """After a key moved the cursor: the row and the detail reach the screen together."""
        self.selection = self.job_list.cursor_id

    def on_job_list_activated(self, message: JobList.Activated) -> None:
        self.action_open_log()

    # -- the footer shows only the keys that apply -------------------------------------
    def _applicable(self, action: str) -> bool:
        record = self.selected
        own = record is not None and self.source.is_own(record)
        if action == "open_log":
            return record is not None
        if action == "kill":
            return record is not None and own and record.running
        if action == "take_over":
            return record is not None and not own and record.running
        if action == "clear":
            return any(self.source.is_own(r) and not r.running for r in self._records)
        if action == "restart":
            return record is not None and (own or not record.running)
        return True

    # -- movement ----------------------------------------------------------------------
    # The detail pane is repainted here, not only on the CursorMoved message, so the
    # row and the detail of one key press reach the terminal in the same frame.
    def action_move(self, delta: int) -> None:
        self.job_list.move(delta)
        self._selection_changed()

    def action_page(self, direction: int) -> None:
        self.job_list.page(direction)
        self._selection_changed()

    def action_first(self) -> None:
        self.job_list.first()
        self._selection_changed()

    def action_last(self) -> None:
        self.job_list.last()
        self._selection_changed()

    def action_close(self) -> None:
        if self.filter_text or self.query_one(ListFilter).has_class("-open"):
            self._close_filter()
            return
        self.dismiss(None)

    def action_help(self) -> None:
        rows = key_rows(self.app, list(type(self).BINDINGS), self.HELP)
        self.app.push_screen(HelpScreen("The job list", rows))

    # -- the list filter (`/`) ---------------------------------------------------------
    def action_filter(self) -> None:
        bar = self.query_one(ListFilter)
        bar.show_count(len(self.job_list.records), len(self._records))
        bar.open()

    def _close_filter(self) -> None:
        self.query_one(ListFilter).close()
        self.filter_text = ""
        self.set_focus(None)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "jobs-filter-input":
            event.stop()
            self.filter_text = event.value

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "jobs-filter-input":  # keep the filter, give the keys back
            event.stop()
            self.set_focus(None)

    def on_filter_input_cancelled(self, _message: FilterInput.Cancelled) -> None:
        self._close_filter()

    def watch_filter_text(self) -> None:
        self._show_rows(self._records)

    # -- what running jobs use ---------------------------------------------------------
    def _sample_usage(self) -> None:
        """Once a second while this screen is shown and jobs run; the engine samples off
        the event loop (one pass over the process table for every job)."""
        sampler = getattr(self.source, "usage", None)
        if sampler is None or not self.shown:
            return
        if not any_running(self._records):
            if self.usage:
                self.usage = {}
            return
        self.run_worker(  # every running job: the list shows peers' too (no ids to check)
            partial(self._fetch_usage, sampler, None),
            name="usage",
            group="jobs-usage",
            exclusive=True,
            exit_on_error=False,
        )

    async def _fetch_usage(
        self,
        sampler: Callable[[list[str] | None], Awaitable[dict[str, JobUsage]]],
        ids: list[str] | None,
    ) -> None:
        try:
            sample = dict(await sampler(ids))
        except (JobError, OSError):
            return
        if self.usage:  # shown with the tick's repaint, not as a frame of its own
            self._usage_due = sample
        else:
            self.usage = sample

    def _take_usage(self) -> None:
        if self._usage_due is not None:
            due, self._usage_due = self._usage_due, None
            self.usage = due

    def watch_usage(self, usage: dict[str, JobUsage]) -> None:
        self.job_list.set_usage(usage)
        self._show_detail()
