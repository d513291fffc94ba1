"""`JobsScreen`: every job of the project, live; a detail pane; kill, clear, take over, open logs.

The screen is embeddable: it takes its job source in the constructor, reaches the
app only through `notify`, `push_screen` and `pop_screen` (via `dismiss`), keeps its
styles in `DEFAULT_CSS`, and runs every engine call in a worker that cannot exit
the host.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Container, Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Footer, Static

from jobs_tui.engine.declared.model import Stack
from jobs_tui.engine.procs.resources import JobUsage
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.screens.widgets.chips import StatusChips
from jobs_tui.screens.widgets.css import stylesheet
from jobs_tui.screens.widgets.footer_keys import ApplicableKeys
from jobs_tui.screens.widgets.list_filter import ListFilter, matches
from jobs_tui.screens.widgets.outcome import Stopping
from jobs_tui.screens.widgets.source import Clock, JobSource, wall_clock
from jobs_tui.screens.widgets.supervising import acting_source

from . import keys as jobs_keys
from .actions import JobActions, KillUnderWay
from .declared import is_not_started, with_declared
from .declaring import Declaring
from .detail import DetailPane
from .detail_fit import TAIL_SETTLE_S, DetailFit
from .feed import RECONCILE_S, JobFeed
from .filtering import ListFiltering
from .keys import ListMoves
from .latest_line import LATEST_S
from .live_tail import LiveTail
from .reads import JobReads
from .rows import JobList
from .starting import JobStarting
from .summary import SummaryLine, problem_notes, pruned_jobs
from .waking import Waking

TAIL_LATE = 1.5  # the live tail's output waits at most this many ticks for one
SETTLE_S = 0.15  # a new selection's line is read once the cursor rests this long
EMPTY_TEXT = (
    "No jobs yet: press a to start one, or run jobs-tui start -- COMMAND; "
    "jobs started by any session in this project appear here."
)


class Body(Container):
    """The rows and the detail pane side by side (or stacked); a background, no more."""

    BLANK = True


class JobsScreen(
    Waking,
    Declaring,
    JobActions,
    JobStarting,
    ListFiltering,
    ListMoves,
    ApplicableKeys,
    Screen[None],
):
    """The /jobs dock: summary, rows, detail pane, and the keys that act on the selection."""

    TRACKED = jobs_keys.TRACKED
    DESCRIBED = ("kill",)  # `d` on a running declared job: Stop (down NAME)

    AUTO_FOCUS = ""  # keys belong to the screen until the user opens a field

    selection: reactive[str | None] = reactive(None, init=False, repaint=False)
    """The selected job's id: the detail pane, the footer's keys and its latest line follow it.
    (No repaint of its own: a repaint of the screen would redraw every widget on each key;
    the watcher refreshes the detail pane, the list its two rows.)"""
    filter_text: reactive[str] = reactive("", init=False, repaint=False)
    """The list's filter (`/`): only jobs whose id, label or command contain it are listed."""
    zoomed: reactive[bool] = reactive(False, init=False)
    """`z`: the detail pane and its live tail take the whole screen (the list hidden)."""
    usage: reactive[dict[str, JobUsage]] = reactive(dict, init=False, repaint=False)
    """What running jobs use (`JobSource.usage`), sampled once a second while shown."""
    stack: reactive[Stack | None] = reactive(None, init=False, repaint=False)
    """The project's declared jobs (its `jobs-tui.toml`, ...): those with no job yet are
    listed as `not started` rows, and `s`, `U`, `D` act on them (`declaring.py`)."""

    DEFAULT_CSS = stylesheet("jobs_screen.tcss")
    # The screen and its body are only a background under their children: drawn as blank
    # lines, not through the styles cache, whose partial update drew both whole each tick.
    BLANK = True
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [
        (0, "-narrow"),
        (100, "-wide"),
    ]
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = [(0, "-short"), (18, "-tall")]
    BINDINGS: ClassVar[list[BindingType]] = jobs_keys.BINDINGS
    HELP: ClassVar[dict[str, str]] = jobs_keys.HELP

    def __init__(
        self,
        source: JobSource,
        *,
        clock: Clock | None = None,
        show_chips: bool = False,
        empty_text: str = EMPTY_TEXT,
        close_description: str = "Close",
        supervise: bool = False,
        stack: Stack | None = None,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """`supervise`: the person at the screen acts on any session's job (kill, restart,
        clear, send, type) after one y/N naming whose it is, without taking it over (the
        standalone app, a `serve` tab); without it (an agent's own dock) only on its own.
        `stack`: the project's declared jobs (or set `stack` later: the list follows)."""
        super().__init__(name=name, id=id)
        self.set_reactive(JobsScreen.stack, stack)
        self.source = source
        self.supervise = supervise
        self.actor = acting_source(source, supervise)  # the source the verbs go through
        self.clock: Clock = clock or wall_clock
        self.show_chips = show_chips
        self.empty_text = empty_text
        self.close_description = close_description
        self._feed = JobFeed(source, self.clock)
        self._usage_due: dict[str, JobUsage] | None = None  # a sample, shown at the next tick
        self._unsubscribe: Callable[[], None] | None = None
        self._kills: dict[str, KillUnderWay] = {}
        self._reads = JobReads(source)
        self._latest_soon: Timer | None = None
        self._poll_soon: Timer | None = None  # a poll for the news of an event
        self._soon_asked = False  # `_poll_news_soon` is on its way
        self._hidden = False  # under a pane: nothing may wake the list (`_hide`)
        self._problems_later: asyncio.TimerHandle | None = None  # while a pane hides the list
        self._fit = DetailFit()
        self._selected_at = 0.0  # time.monotonic() of the last selection change
        self._sampled_at = 0.0  # of the last usage sample asked for
        self._usage_quiet = 0  # samples in a row that showed nothing new
        self._usage_shown: dict[str, str] = {}
        self._summary = SummaryLine()
        self._rows: list[JobRecord] = []  # every row, the not-started ones too, unfiltered
        self.refreshes = 0  # updates of the list (re-read, news applied, tick); benchmarks read it

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="jobs-topbar"):
            yield Static(Content.styled("Jobs", "bold"), id="jobs-title")
            yield Static(id="jobs-summary")
            if self.show_chips:
                yield StatusChips(
                    self.source, shown_is_seen=self.supervise, poll=False, id="jobs-chips"
                )
        with Body(id="jobs-body"):
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
        """The time the rows and the detail pane show (`JobFeed.shown_clock`)."""
        return self._feed.shown_clock()

    @property
    def job_list(self) -> JobList:
        return self.query_one(JobList)

    @property
    def selected(self) -> JobRecord | None:
        """The selected job; None on a declared job's not-started row (no job to act on)."""
        row = self.job_list.selected
        return None if is_not_started(row) else row

    @property
    def selected_row(self) -> JobRecord | None:
        """The selected row: a job, or a declared job's not-started row (`NotStarted`)."""
        return self.job_list.selected

    def on_mount(self) -> None:
        self._unsubscribe = self.source.subscribe(self._on_event)
        period = min(RECONCILE_S, LATEST_S, self._feed.tick_ms() / 1000)
        self._second_timer = self.set_interval(period, self._second)
        self.refresh_jobs(force=True)
        self._read_latest()
        self._show_problems()
        self._sample_usage()

    def on_unmount(self) -> None:
        self._reads.cancel()
        self._problems_soon(False)
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def on_screen_resume(self) -> None:
        self._hide(False)
        self.refresh_jobs(force=True)
        self._keep_tail()

    # -- live data ---------------------------------------------------------------------
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
        if self._feed.reread_due():
            self.refresh_jobs()
        elif self._feed.news:
            self._apply_news()
        else:
            self._tick()
        # output that no tick showed in time (no tick is due: the clock, no running job)
        self.query_one(LiveTail).flush(TAIL_LATE * self._feed.tick_ms() / 1000)

    def _apply_news(self) -> None:
        """The records events brought: rows updated in place, re-sorted after a start or a
        finish; the table is not re-read."""
        news, resort = self._feed.take_news()
        job_list = self.job_list
        if not resort:
            resort = not all(
                job_list.update_record(record) or not self._listed(record)
                for record in news.values()
            )
        if resort:
            self._show_rows(self._feed.merged(news))
        elif self.selection in news:
            self._show_detail()
        self.refreshes += 1  # the list took the news (benchmarks read it)
        self._tick()

    def _tick(self) -> None:
        """Once a tick while jobs run: their times move (rows repainted, not re-read)."""
        if not self._feed.tick():
            return
        self._take_usage()
        self.job_list.refresh_moving()
        self.query_one(LiveTail).flush()  # the same frame as the rows
        self.refreshes += 1
        self._show_detail()

    def _listed(self, record: JobRecord) -> bool:
        return matches(record, self.filter_text)

    def _show_rows(self, records: list[JobRecord]) -> None:
        self._usage_quiet = 0  # rows came or went: what they use is sampled soon
        self._feed.records = records
        rows = self._rows = with_declared(records, self.stack, self.source.session_id)
        shown = [r for r in rows if self._listed(r)] if self.filter_text else rows
        self._follow_start(rows)
        self.job_list.set_records(shown)
        if self.filter_text or self.query_one(ListFilter).has_class("-open"):
            self.query_one(ListFilter).show_count(len(shown), len(rows))
        self.selection = self.job_list.cursor_id
        self._show_summary(records)
        self.set_class(not rows, "-empty")
        self._fit_detail()
        self._show_detail()
        self._update_bindings()

    def refresh_jobs(self, force: bool = False) -> None:
        """Re-read the table (the slow reconcile, and after this screen's own actions);
        rows are replaced when they changed, else repainted once a tick while jobs run."""
        read = self._feed.reread(force)
        if read is None:
            return
        records, changed = read
        self._take_usage()
        if changed:
            self._show_rows(records)
        else:  # the same rows; records read anew (a peer's, a source's copies) taken in place
            self._feed.records = records
            job_list = self.job_list
            for record in records:
                job_list.update_record(record)  # a changed row is repainted
            job_list.refresh_moving()
            self._show_detail()
        self.query_one(LiveTail).flush()
        self.refreshes += 1

    def _show_problems(self) -> None:
        """Problems the source found, each shown once. Checked while a log is open too."""
        for note in problem_notes(self.source):
            self.notify(note, title="Job registry", severity="warning", timeout=10, markup=False)

    def _show_summary(self, records: list[JobRecord]) -> None:
        """The counts of the rows shown, and the jobs pruned; new prunes are announced."""
        pruned = pruned_jobs(self.source)
        notice = self._summary.prune_notice(pruned, self.source.config.max_jobs)
        if notice is not None:
            self.notify(notice, markup=False)
        pending = len(self._rows) - len(records)  # declared jobs with no job yet
        text = self._summary.changed_text(records, self.source.session_id, pruned, pending)
        if text is not None:
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
        record = self.selected_row
        peer = record is not None and not self.source.is_own(record)
        stopping = self.stopping(record) if record is not None else None
        last = self._reads.latest.text(record) if record is not None else None
        usage = self.usage.get(record.id) if record is not None else None
        declared = self._declared_detail(record) if record is not None else ()
        detail = self.query_one(DetailPane)
        shown_ms = self.shown_clock()
        if detail.show(
            record,
            shown_ms,
            peer=peer,
            stopping=stopping,
            last=last,
            usage=usage,
            declared=declared,
        ):
            self._fit_detail()

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_detail)

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed

    def watch_zoomed(self, zoomed: bool) -> None:
        self.set_class(zoomed, "-zoomed")
        self.call_after_refresh(self._fit_detail)

    # -- the selected job's live tail (wide and tall screens) ---------------------------
    def _keep_tail(self) -> None:
        rested = time.monotonic() - self._selected_at
        self._fit.keep_tail(self.query_one(LiveTail), self.shown, self.selected, rested)

    def on_screen_suspend(self) -> None:
        self._keep_tail()
        if not self.shown:  # a pane over the list, not a dialog
            self._hide(True)

    def _fit_detail(self) -> None:
        """The detail pane and its live tail fitted to the screen (`DetailFit`)."""
        detail = self.query_one(DetailPane)
        if self._fit.fit_tail(self, detail, self.query_one(LiveTail)):
            self._keep_tail()
        self._fit.fit_detail(self, detail, self.job_list.lines_for(len(self._rows)))

    def on_job_list_cursor_moved(self, message: JobList.CursorMoved) -> None:
        self.selection = message.job_id

    def watch_selection(self) -> None:
        self._selected_at = time.monotonic()
        self.set_timer(TAIL_SETTLE_S, self._keep_tail)  # the tail opens once the cursor rests
        self._show_detail()
        self._update_bindings()
        if self._latest_soon is not None:
            self._latest_soon.stop()
        self._latest_soon = self.set_timer(SETTLE_S, self._read_latest)

    def on_job_list_activated(self, message: JobList.Activated) -> None:
        self.action_open_log()

    # -- the footer shows only the keys that apply -------------------------------------
    def _applicable(self, action: str) -> bool:
        declared = self._declared_applies(action)
        if declared is not None:
            return declared
        return jobs_keys.applies(
            action, self.selected, self._feed.records, self.source.is_own, self.supervise
        )

    # -- closing (movement and help: `jobs_keys.ListMoves`) ------------------------------
    def action_close(self) -> None:
        if not self.action_clear_filter():
            self.dismiss(None)

    def watch_usage(self, usage: dict[str, JobUsage]) -> None:
        self.job_list.set_usage(usage)
        self._show_detail()
