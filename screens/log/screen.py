"""`LogScreen`: one job's log, read from disk: a bounded tail, then followed until you scroll up.

Nothing is read whole: the tail comes from the engine's backwards reader, new
output from the source's follower (one absolute position) polled on a short timer
in bounded batches. The rest of the retained log is read a page at a time as the
view scrolls toward it, or jumps to it (Home, a find's match): `Pager`, `PagedScrolling`.
Every byte shown has been through the engine's sanitizer (SGR colours kept, all else
stripped).
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState

from jobs_tui.engine import JobError
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.css import stylesheet
from jobs_tui.screens.widgets.find_bar import FindBar
from jobs_tui.screens.widgets.footer_keys import ApplicableKeys
from jobs_tui.screens.widgets.help import HelpScreen, key_rows
from jobs_tui.screens.widgets.list_filter import FilterInput, ListFilter
from jobs_tui.screens.widgets.pane_verbs import PaneVerbs
from jobs_tui.screens.widgets.send_bar import SendBar, echo_line
from jobs_tui.screens.widgets.source import Clock, JobSource, wall_clock
from jobs_tui.screens.widgets.supervising import acting_source

from . import keys as log_keys
from .find import LogFinder
from .follow import Follower
from .header_paint import HeaderPainter
from .job_input import JobInput
from .opening import open_log
from .pages import Pager
from .scrolling import PagedScrolling
from .view import LogView

POLL_S = 0.1
# Output that keeps coming is shown at most this often: a frame moves every row of the
# view, and a person reads a log scrolling four times a second as well as at ten.
FRAME_S = 0.25
FILTER_PLACEHOLDER = "show only lines that contain… (Enter: keep, Esc: every line)"
TAIL_LINES = 2000  # what the engine returns at most in one read
LATER_EVERY = 10  # polls between looks at how much a window away from the tail leaves out


class LogScreen(PaneVerbs, PagedScrolling, ApplicableKeys, Screen[None]):
    """Follow, pause, scroll, find, and (own jobs with stdin) send a line."""

    TRACKED = ("follow", "match", "send", "eof", "interrupt")
    DESCRIBED = ("back",)

    following: reactive[bool] = reactive(True, init=False)
    """The view keeps to the tail as output arrives; scrolling up pauses it."""
    new_lines: reactive[int] = reactive(0, init=False)
    """Lines that arrived while paused (the `+N new lines` bar)."""
    wrap: reactive[bool] = reactive(False, init=False)
    """Long lines wrap onto the next rows (`w`) instead of scrolling sideways."""
    loaded: reactive[bool] = reactive(False, init=False)
    """The tail is shown and followed."""
    problem: reactive[str] = reactive("", init=False)
    """Why the log cannot be shown (sanitized), instead of the pane's state."""
    skipped: reactive[int] = reactive(0, init=False)
    """Bytes passed over to keep up with a writer faster than the screen."""
    times: reactive[bool] = reactive(False, init=False)
    """Each line's time beside it (`T`), from the engine's time index."""
    filter_text: reactive[str] = reactive("", init=False)
    """Filter mode (`&`): only the lines containing it are shown (smart case)."""

    AUTO_FOCUS = ""  # keys belong to the screen until the user opens a field

    DEFAULT_CSS = stylesheet("log_screen.tcss")
    BINDINGS: ClassVar[list[BindingType]] = log_keys.BINDINGS
    HELP: ClassVar[dict[str, str]] = log_keys.HELP

    def __init__(
        self,
        source: JobSource,
        job_id: str,
        *,
        clock: Clock | None = None,
        tail_lines: int = TAIL_LINES,
        max_lines: int = 10_000,
        supervise: bool = False,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """`supervise`: another session's job takes input here too (`JobsScreen`'s flag)."""
        super().__init__(name=name, id=id)
        self.source = source
        self.supervise = supervise
        self.job_id = job_id
        self.clock: Clock = clock or wall_clock
        self.tail_lines = max(1, min(tail_lines, TAIL_LINES))
        self.max_lines = max(max_lines, self.tail_lines)
        self.log_path = ""
        self._follower: Follower | None = None
        self._record: JobRecord | None = None
        self._header = HeaderPainter(self)
        self.pager = Pager(self)
        self._polls = 0
        self._shown_at = 0.0  # time.monotonic() when output was last added to the view
        self._finder = LogFinder(self, pause=self._pause, changed=self._update_bindings)
        self._input = JobInput(
            self,
            acting_source(source, supervise),
            job_id,
            echo=self._echo,
            changed=self._update_bindings,
            supervise=supervise,
        )

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="jobs-log-title")
        yield Static(id="jobs-log-sub")
        yield LogView(self.max_lines, id="jobs-log-view")
        yield LogView(self.max_lines, id="jobs-log-filtered", classes="-hidden")
        yield Static(id="jobs-new-lines")
        yield FindBar(id="jobs-find-bar")
        yield ListFilter("&", FILTER_PLACEHOLDER, id="jobs-line-filter")
        record = self._get()
        if record is not None and self._input.accepts(record):
            yield SendBar(self.job_id, id="jobs-send-bar")
        yield Footer()

    @property
    def view(self) -> LogView:
        """The view on screen: every line, or in filter mode only the matching ones."""
        return self.query_one(
            "#jobs-log-filtered" if self.filter_text else "#jobs-log-view", LogView
        )

    @property
    def main_view(self) -> LogView:
        """Every line held (the filter view is rebuilt from it)."""
        return self.query_one("#jobs-log-view", LogView)

    @property
    def find_bar(self) -> FindBar:
        return self.query_one(FindBar)

    def _get(self) -> JobRecord | None:
        try:
            self._record = self.source.get(self.job_id)
        except JobError:
            self._record = None
        return self._record

    def on_mount(self) -> None:
        if self._finder.whole_log:
            self.find_bar.input.placeholder = "find in the whole log (n / N: next / previous)"
        self._show_title(force=True)
        self._show_sub()
        self.run_worker(self._load(), name="open log", group="log", exit_on_error=False)

    # -- reading -----------------------------------------------------------------------
    async def _load(self) -> None:
        record = self._get()
        if record is None:
            self._fail(f"{self.job_id} is no longer in the job table.")
            return
        try:
            opened = await open_log(self.source, self.job_id, self.tail_lines)
        except JobError as exc:
            self._fail(sanitize_line(str(exc), 300))
            return
        self._follower = opened.follower
        self.log_path = opened.path
        self._header.tail = opened.tail
        self.pager.opened(opened.first, opened.earlier_lines)
        self.main_view.partial_time = opened.partial_time
        self.main_view.load(opened.lines, opened.times, opened.offsets, opened.next_offset)
        self.loaded = True
        self._poll()  # the unfinished line, at once
        self.view.follow_end()
        self.set_interval(POLL_S, self._poll)

    def _fail(self, message: str) -> None:
        self.problem = message

    def _poll(self) -> None:
        if self._follower is not None:
            if time.monotonic() - self._shown_at >= FRAME_S:
                self._read_new(self._follower)
        elif not self.loaded:
            return
        else:
            self._polls += 1
            if self._polls % LATER_EVERY == 0 and self.pager.recount_later():
                self._show_sub()
        self._show_title()  # a window paged away from the tail still shows how the job is
        if self._header.lost_changed(self._record):
            self._show_sub()

    def _read_new(self, follower: Follower) -> None:
        batch = follower.poll()
        self.skipped += batch.skipped
        main = self.main_view
        if batch.lines or batch.partial != main.partial or batch.skipped:
            # lines that arrive now are dated now (the index dates the tail read at open)
            stamp = int(self.clock())
            self._shown_at = time.monotonic()
            if batch.partial and not main.partial:
                main.partial_time = stamp
            arrived = self._add(batch.lines, batch.partial, stamp, batch.starts, batch.next_start)
            if not batch.partial:
                main.partial_time = None
            if not self.following:
                self.new_lines += arrived
            if self.view.query_text:
                self._finder.arrived(batch.lines, batch.starts)
            self._show_sub()

    def _add(
        self,
        lines: list[str],
        partial: str,
        stamp: int,
        starts: list[int] | None = None,
        next_start: int | None = None,
    ) -> int:
        """Lines into the view (the filter's view: the matching ones), dated `stamp`; a paused
        view is shifted by the rows let go, so it does not move. Returns the lines it shows.
        `starts`: where each line starts in the log (else where the next line will)."""
        main = self.main_view
        if starts is None or len(starts) != len(lines):
            starts = [main.next_offset] * len(lines)
        dropped = main.append(lines, partial, [stamp] * len(lines), starts, next_start)
        if self.filter_text:
            lines = [line for line in lines if self._finder.shows(line)]
            dropped = self.view.append(lines, "", [stamp] * len(lines))
            self._finder.show_filter_count()
        if self.following:
            self.view.follow_end()
        elif dropped:
            self.view.jump(self.view.scroll_y - dropped)
        return len(lines)

    # -- header lines (`HeaderPainter` paints them) ----------------------------------------
    def _show_title(self, force: bool = False) -> None:
        now = self.clock()
        record = self._get()
        if not self._header.title(record, now, force) or record is None:
            return
        if not record.running and self.query(SendBar):
            self.query_one(SendBar).remove()
        if not record.running and self.loaded and not record.seen:
            mark_seen = getattr(self.source, "mark_seen", None)
            if mark_seen is not None:  # it ended before the user's eyes: nothing unreported
                mark_seen(record.id)
        self._update_bindings()

    def _show_sub(self) -> None:
        self._header.sub()
        self._update_bindings()

    @property
    def tail_note(self) -> str:
        """What the pane shows of the log, worded for the rows it holds now."""
        return self._header.note(self._record, self.main_view, self.view, self.filter_text)

    # -- following and scrolling -------------------------------------------------------
    def watch_following(self) -> None:
        self._show_sub()

    def watch_new_lines(self) -> None:
        self._show_sub()

    def watch_loaded(self) -> None:
        self._show_sub()

    def watch_problem(self) -> None:
        self._show_sub()

    def watch_skipped(self) -> None:
        self._show_sub()

    def _pause(self) -> None:
        if self.following:
            self.new_lines = 0
            self.following = False

    def on_resize(self) -> None:
        self._show_sub()

    def action_toggle_wrap(self) -> None:
        self.wrap = not self.wrap

    def watch_wrap(self, wrap: bool) -> None:
        for view in self.query(LogView):
            view.wrap = wrap
        if self.following:
            self.view.follow_end()
        self._show_sub()

    def action_toggle_times(self) -> None:
        self.times = not self.times

    def watch_times(self, times: bool) -> None:
        for view in self.query(LogView):
            view.show_times = times
        if self.following:
            self.view.follow_end()

    def action_help(self) -> None:
        rows = key_rows(self.app, list(type(self).BINDINGS), self.HELP)
        self.app.push_screen(HelpScreen("The log pane", rows))

    # -- find and filter mode (`LogFinder` does both) -------------------------------------
    def action_find(self) -> None:
        self.find_bar.open()
        self._update_bindings()

    def action_match(self, delta: int) -> None:
        self._finder.step(delta)

    def action_filter(self) -> None:
        self.query_one(ListFilter).open()
        self._update_bindings()

    def on_filter_input_cancelled(self, _message: FilterInput.Cancelled) -> None:
        self._finder.close_filter()

    def watch_filter_text(self, text: str) -> None:
        self._finder.refilter(text)
        self.new_lines = 0
        self.following = True
        self.view.search(self.find_bar.input.value, near_line=None)
        self.view.follow_end()
        self._show_sub()

    # -- send (the input bar's keys; `JobInput` does the sending) ------------------------
    def action_send(self) -> None:
        self._input.open(self._record)

    def action_eof(self) -> None:
        self._input.end()

    def action_interrupt(self) -> None:
        self._input.interrupt()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "jobs-line-filter-input":
            self.filter_text = event.value
        elif event.input.id == "jobs-find-input":
            self._finder.find(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id in ("jobs-find-input", "jobs-line-filter-input"):
            self.set_focus(None)
        elif event.input.id == "jobs-send-input":
            event.input.value = ""
            self._input.submit(event.value)

    def _echo(self, text: str) -> None:
        """What the bar sends, in the view (not in the log): dimmed, after the input mark;
        shown as it is sent, so what the job answers comes after it (a failure is notified)."""
        self._add([echo_line(text)], self.main_view.partial, int(self.clock()))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        groups = ("log", "log-send", "log-page", "log-find")
        if event.state is WorkerState.ERROR and event.worker.group in groups:
            self.notify(
                sanitize_line(f"{event.worker.name} failed: {event.worker.error}", 300),
                severity="error",
                markup=False,
            )
            if event.worker.group == "log":
                self._fail(sanitize_line(f"could not read the log: {event.worker.error}", 300))

    # -- back --------------------------------------------------------------------------
    def action_back(self) -> None:
        focused = self.focused
        if isinstance(focused, Input):
            if focused.id == "jobs-find-input":
                self._finder.close_find()
            else:
                self.set_focus(None)
            return
        if self.find_bar.is_open:
            self._finder.close_find()
            return
        if self.filter_text or self.query_one(ListFilter).has_class("-open"):
            self._finder.close_filter()
            return
        self.dismiss(None)

    # -- footer ------------------------------------------------------------------------
    def _described(self, action: str) -> str | None:
        if action != "back":
            return None
        if self.find_bar.is_open:
            return "Close find"
        if self.filter_text or self.query_one(ListFilter).has_class("-open"):
            return "Clear filter"
        return None

    def _applicable(self, action: str) -> bool:
        if action == "follow":
            return not self.following
        if action == "match":
            return bool(self.view.query_text)
        if action in ("send", "eof", "interrupt"):
            return self._input.applicable(action)
        return True
