"""10 (UI performance): what a busy list redraws. 50 printing jobs send output events all the
time; the list must not redraw more than the news changed (the UI benchmark's regression).

Counted through public methods (`render`, `render_lines`), never Textual's internals.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Static

from jobs_tui.engine import Config
from jobs_tui.screens import JobsScreen
from jobs_tui.screens.jobs.detail import DetailPane

from .fakes import NOW_MS, FakeSource, Host, mixed_records, record

pytestmark = pytest.mark.timeout(60)


def moving_clock(step_ms: float = 50.0):
    """A clock that moves `step_ms` each time it is read: the detail's time always differs."""
    ticks = itertools.count()
    return lambda: NOW_MS + next(ticks) * step_ms


def count_calls(widget: Widget, method: str) -> list[int]:
    """Counts the calls of a widget's public method (the compositor calls it by name)."""
    calls = [0]
    original = getattr(widget, method)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    setattr(widget, method, counted)
    return calls


async def test_output_events_do_not_redraw_the_detail_pane_between_ticks(log_dir: str):
    """Ten output events a second for the selected job: its detail (command, outcome with
    a running time, last line) is drawn again once a tick (`repaint_ms`), not per poll."""
    source = FakeSource(mixed_records(log_dir), config=Config(repaint_ms=2000))
    app = Host(lambda: JobsScreen(source, clock=moving_clock()))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        await pilot.pause(0.3)
        job_id = screen.selection
        assert job_id is not None and source.records[job_id].running
        renders = count_calls(screen.query_one(DetailPane), "render")
        for _ in range(15):  # 1.5 s of output events, none changing what the detail shows
            source.publish("job-output", source.records[job_id])
            await pilot.pause(0.1)
        # polls every 0.2 s apply the news (7 of them); a tick every 2 s redraws at most once
        assert renders[0] <= 2, renders[0]
        assert screen.refreshes > 0


async def test_a_cursor_move_redraws_the_list_and_detail_not_the_whole_screen(log_dir: str):
    """`j` repaints two rows and the detail pane; the top bar stays as drawn (a repaint of
    the screen itself would redraw every widget on each key). Own running jobs only, so
    the footer's keys stay the same."""
    source = FakeSource([record(n, f"server {n}", log_dir=log_dir) for n in range(1, 7)])
    app = Host(lambda: JobsScreen(source, clock=lambda: NOW_MS))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        await pilot.pause(0.3)
        title = count_calls(screen.query_one("#jobs-title", Static), "render_lines")
        summary = count_calls(screen.query_one("#jobs-summary", Static), "render_lines")
        first = screen.selection
        for key in "jjkj":
            await pilot.press(key)
            await pilot.pause(0.05)
        assert screen.selection != first
        assert title[0] == 0 and summary[0] == 0, (title[0], summary[0])


async def test_a_new_last_line_alone_does_not_rebuild_the_rows(log_dir: str):
    """The once-a-second re-read finds every printing job with a new last line; no row
    shows it, so the rows are not rebuilt (before: `set_records` every second, each
    re-laying out the list), only repainted with the tick."""
    source = FakeSource(mixed_records(log_dir), config=Config(repaint_ms=1000))
    app = Host(lambda: JobsScreen(source, clock=moving_clock()))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        await pilot.pause(0.3)
        rebuilt = count_calls(screen.job_list, "set_records")
        running = [r for r in source.records.values() if r.running]
        assert running
        for n in range(12):  # 2.4 s: two or three re-reads
            for rec in running:
                rec.last_line = f"line {n}"
            await pilot.pause(0.2)
        assert rebuilt[0] == 0, rebuilt[0]
        assert screen.refreshes > 0
