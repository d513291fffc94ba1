"""What you type is visible, and the keys do what the help says (issue 24, section 2)."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from jobs_tui.app.tui import StandaloneJobsScreen
from jobs_tui.screens import JobsScreen, LogScreen
from tests.ui.fakes import FakeSource, Host, frozen_clock, mixed_records, record, screen_text, until
from tests.ui.logpane import write

pytestmark = pytest.mark.timeout(60)


def _row_text(widget) -> str:
    return "".join(widget.render_line(y).text for y in range(widget.size.height))


@pytest.fixture
def host(log_dir: str) -> Host:
    return Host(lambda: JobsScreen(FakeSource(mixed_records(log_dir)), clock=frozen_clock))


async def test_the_list_filter_shows_the_text_while_it_is_typed(host: Host) -> None:
    async with host.run_test(size=(100, 24)) as pilot:
        await pilot.press("slash", *"dev")
        await pilot.pause()
        field = pilot.app.screen.query_one("ListFilter Input", Input)
        assert field.has_focus
        assert field.size.height == 1
        assert "dev" in _row_text(field)


async def test_esc_clears_a_filter_kept_with_enter_on_the_apps_home(log_dir: str) -> None:
    records = mixed_records(log_dir)
    home = Host(lambda: StandaloneJobsScreen(FakeSource(records), clock=frozen_clock))
    async with home.run_test(size=(100, 24)) as pilot:
        screen = pilot.app.screen
        await pilot.press("slash", *"dev", "enter")
        await pilot.pause()
        assert screen.filter_text == "dev"
        kept = len(screen.job_list.records)
        assert kept < len(records)
        await pilot.press("escape")
        await pilot.pause()
        assert screen.filter_text == ""
        assert len(screen.job_list.records) == len(records)
        assert pilot.app.screen is screen  # Esc without a filter closes nothing here
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is screen and pilot.app.is_running


async def test_the_log_filter_shows_its_text_and_counts_lines_as_they_arrive(log_dir: str) -> None:
    path = f"{log_dir}/j1.log"
    write(path, ["needle 1", "hay", "hay"], "w")
    source = FakeSource([record(1, "server", log_dir=log_dir)])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = pilot.app.screen
        assert await until(lambda: screen.loaded)
        await pilot.press("ampersand", *"needle")
        await pilot.pause()
        field = screen.query_one("ListFilter Input", Input)
        assert "needle" in _row_text(field)
        await pilot.press("enter")
        count = screen.query_one("ListFilter .filter-count", Static)
        assert await until(lambda: str(count.render()) == "1 of 3")
        write(path, ["hay", "needle 2", "hay"])
        assert await until(lambda: str(count.render()) == "2 of 6")


def _footer_says(screen) -> dict[str, str]:
    return {
        active.binding.action: active.binding.description
        for active in screen.active_bindings.values()
    }


async def test_the_footer_says_esc_closes_the_open_find_then_goes_back(log_dir: str) -> None:
    write(f"{log_dir}/j1.log", ["one", "two"], "w")
    source = FakeSource([record(1, "server", log_dir=log_dir)])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = pilot.app.screen
        assert await until(lambda: screen.loaded)
        assert _footer_says(screen)["back"] == "Back"
        await pilot.press("slash", *"tw")
        await pilot.pause()
        assert _footer_says(screen)["back"] == "Close find"
        footer = screen_text(pilot.app).splitlines()[-1]
        assert "Close find" in footer and "Back" not in footer
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.find_bar.is_open
        assert _footer_says(screen)["back"] == "Back"
        await pilot.press("ampersand", *"on", "enter")
        await pilot.pause()
        assert _footer_says(screen)["back"] == "Clear filter"


async def test_the_help_says_page_up_and_down_in_one_row(host: Host) -> None:
    async with host.run_test(size=(100, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        rows = [line for line in screen_text(pilot.app).splitlines() if "a page up / down" in line]
        assert len(rows) == 1, rows
        assert "pgup" in rows[0] and "pgdn" in rows[0]


def test_one_job_is_one_job_in_the_summary(log_dir: str) -> None:
    from jobs_tui.engine.records.format import summary

    one = [record(1, "server", log_dir=log_dir)]
    assert summary(one, "me").startswith("1 job · 1 running · 0 failed · 1 peer")
    assert summary(one * 2, "me").startswith("2 jobs · ")
    assert summary([], "me").startswith("0 jobs · ")


async def test_a_row_that_starts_stopping_beside_a_peer_stays_inside_the_list(log_dir: str) -> None:
    """The ` stopping` tag came after the tag column was sized for ` peer`: the row ran 4
    cells past the list, over the detail pane, and `ing` stayed painted there."""
    from textual.app import App, ComposeResult

    from jobs_tui.screens.jobs.rows import JobList

    stopping: set[str] = set()
    rows = JobList(
        frozen_clock, lambda r: r.session_id == "me", stopping=lambda r: r.id in stopping
    )

    class ListApp(App[None]):
        def compose(self) -> ComposeResult:
            yield rows

    mine = record(1, "server", log_dir=log_dir, session="me")
    theirs = record(2, "peer job", log_dir=log_dir, session="them")
    async with ListApp().run_test(size=(60, 6)) as pilot:
        rows.set_records([mine, theirs])
        await pilot.pause()
        width = rows.scrollable_content_region.width
        stopping.add("j1")
        rows.update_record(mine)
        rows.refresh()
        await pilot.pause()
        for y in range(2):
            strip = rows.render_line(y)
            text = "".join(segment.text for segment in strip)
            assert len(text) == strip.cell_length == width, (y, text)
        assert "stopping" in "".join(s.text for s in rows.render_line(0))


@pytest.mark.parametrize("size", [(100, 30), (60, 30)])
async def test_the_confirm_dialog_wraps_without_losing_a_character(size) -> None:
    from jobs_tui.screens import ConfirmScreen

    detail = (
        "j1, j2, j3: started here and not detached, they end when this session ends; "
        "their logs stay on disk until cleared."
    )
    app = Host(lambda: ConfirmScreen("Quit and kill 3 running jobs of this session?", detail))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        text = screen_text(pilot.app)
        inside = " ".join(
            line.split("│")[1].strip() for line in text.splitlines() if line.count("│") >= 2
        )
        for word in detail.split():
            assert f" {word} " in f" {inside} ", (word, inside)


async def test_the_selected_row_stays_where_it_is_when_others_move(log_dir: str) -> None:
    """A job finishing re-sorts the rows: the selection keeps its job and its screen row."""
    from textual.app import App, ComposeResult

    from jobs_tui.engine import JobStatus
    from jobs_tui.screens.jobs.rows import JobList

    rows = JobList(frozen_clock, lambda r: True)

    class ListApp(App[None]):
        def compose(self) -> ComposeResult:
            yield rows

    running = [record(n, f"job {n}", log_dir=log_dir, seconds=float(n)) for n in range(1, 31)]
    async with ListApp().run_test(size=(60, 10)) as pilot:
        rows.set_records(running)
        await pilot.pause()
        rows.select("j20")
        rows.scroll_to(y=15, animate=False, immediate=True)
        await pilot.pause()
        row_on_screen = rows.cursor_index - round(rows.scroll_y)
        # a job above the selection (listed before it) finishes: it moves to the bottom
        above = rows.records[rows.cursor_index - 3]
        done = record(int(above.id[1:]), above.label, JobStatus.EXITED, log_dir=log_dir)
        rows.set_records([r for r in rows.records if r.id != above.id] + [done])
        await pilot.pause()
        assert rows.selected is not None and rows.selected.id == "j20"
        assert rows.cursor_index - round(rows.scroll_y) == row_on_screen
