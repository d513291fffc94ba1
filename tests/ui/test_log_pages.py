"""The log pane reaches the whole retained log: Home, paging up, find over all of it, End.

Real files (the fake source reads them with the engine's own readers) and one real job.
"""

from __future__ import annotations

import os
import re

import pytest
from textual.widgets import Input

from jobs_tui.engine import JobManager, JobStatus
from jobs_tui.engine.shim.logwriter import LogWriter
from jobs_tui.screens import LogScreen

from .fakes import NOW_MS, FakeSource, Host, record, screen_text, until
from .logpane import log_host, opened, sub, write

pytestmark = pytest.mark.timeout(60)

FIRST = "FIRST ERROR: the root cause"
REPRO = [FIRST, *(f"test {i} ok" for i in range(1, 5001))]  # the 5001 lines
SHORT = REPRO[:701]  # for walks page by page: the same, in fewer key presses


@pytest.fixture
def source(log_dir: str) -> FakeSource:
    return FakeSource([record(1, "chatty", log_dir=log_dir)])


async def settled(pilot, screen: LogScreen) -> None:
    """No page read in flight (what a key asked for has arrived)."""
    assert await until(lambda: not getattr(screen, "paging", False))
    await pilot.pause()


def body(app: Host) -> list[str]:
    """The log's rows, without the scrollbar's column (nor the footer)."""
    return [row[:-1].strip() for row in screen_text(app).splitlines()[2:-1]]


def top_number(screen: LogScreen) -> int:
    """The `i` of `test i ok` at the top of the view (0 for the first line)."""
    view = screen.view
    text = view.lines[view.top_line() - view.base]
    found = re.match(r"test (\d+) ok", text)
    return int(found.group(1)) if found else 0


async def test_home_reaches_line_1_of_a_5001_line_log(source, log_dir):
    write(f"{log_dir}/j1.log", REPRO, "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        assert "3001 earlier lines not loaded" in sub(app)
        await pilot.press("home")
        await settled(pilot, screen)
        assert screen.view.top_line() == screen.view.base
        assert screen.view.lines[0] == FIRST
        assert body(app)[0] == FIRST
        assert "earlier" not in sub(app) and "later not loaded" in sub(app)
        assert "first " in sub(app)
        await pilot.press("G")  # `g` too, from the tail
        await settled(pilot, screen)
        await pilot.press("g")
        await settled(pilot, screen)
        assert body(app)[0] == FIRST


async def test_page_up_past_the_window_loads_earlier_pages_without_moving_the_view(source, log_dir):
    write(f"{log_dir}/j1.log", SHORT, "w")
    app = log_host(source, tail_lines=50, max_lines=240)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        assert screen.view.line_count == 50
        step = screen.view.scrollable_content_region.height - 1
        before = top_number(screen)
        grew = False
        for _ in range(400):
            await pilot.press("pageup")
            await settled(pilot, screen)
            now = top_number(screen)
            if before == 0:
                break
            # every page up moves the view exactly one page, across the loads
            assert now == max(0, before - step), (before, now)
            grew = grew or screen.view.line_count > 50
            before = now
        assert grew and before == 0
        assert body(app)[0] == FIRST
        assert "earlier" not in sub(app)
        # the window stays bounded: far-away pages were let go
        assert screen.view.line_count <= screen.max_lines


async def test_a_prepended_page_keeps_the_rows_on_screen(source, log_dir):
    write(f"{log_dir}/j1.log", REPRO, "w")
    app = log_host(source, tail_lines=100)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("up")
        await settled(pilot, screen)
        shown = body(app)
        count = screen.view.line_count
        screen.view.jump(0)  # to the top of the loaded window: an earlier page is read
        await pilot.pause()
        at_top = body(app)
        await pilot.press("up")  # the user moves on while it arrives
        await settled(pilot, screen)
        assert screen.view.line_count > count
        assert body(app)[1:] == at_top[:-1]  # one row up from where it was, no jump
        assert shown != at_top


async def test_find_searches_the_whole_log_and_n_jumps_outside_the_window(source, log_dir):
    lines = list(REPRO)
    lines[4990] = "test 4990 error again"  # inside the loaded tail
    write(f"{log_dir}/j1.log", lines, "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash", *"error")
        assert await until(lambda: "2 of 2" in screen_text(app))
        await settled(pilot, screen)
        assert any("test 4990 error again" in row for row in body(app))
        await pilot.press("enter", "n")  # round to the first: outside the loaded window
        assert await until(lambda: "1 of 2" in screen_text(app))
        await settled(pilot, screen)
        assert any(FIRST in row for row in body(app))
        view = screen.view
        line = view.current_match_line()
        assert line is not None and view.lines[line] == FIRST  # the match is the current one
        assert not screen.following
        await pilot.press("N")
        assert await until(lambda: "2 of 2" in screen_text(app))
        await settled(pilot, screen)
        assert any("test 4990 error again" in row for row in body(app))


async def test_find_with_capitals_is_case_sensitive_over_the_whole_log(source, log_dir):
    write(f"{log_dir}/j1.log", ["Error first", *(f"x {i}" for i in range(3000)), "error"], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash", *"Error")
        assert await until(lambda: "1 of 1" in screen_text(app))
        await settled(pilot, screen)
        assert any("Error first" in row for row in body(app))
        await pilot.press("escape", "slash", *"a.c")  # plain text, not a regex
        assert await until(lambda: "no matches" in screen_text(app))


async def test_end_returns_to_following_the_tail(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, REPRO, "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("home")
        await settled(pilot, screen)
        later = re.search(r"([0-9.]+ KiB) later not loaded", sub(app))
        assert later
        write(path, ["while away " * 200])
        assert await until(lambda: later.group(0) not in sub(app))  # the figure grows
        assert "later not loaded" in sub(app)
        source.update("j1", status=JobStatus.EXITED, exit_code=0, finished_at=NOW_MS)
        assert await until(lambda: screen_text(app).lstrip().startswith("✓"))  # still told
        await pilot.press("end")
        await settled(pilot, screen)
        assert screen.following and screen.view.at_end
        assert "while away " * 200 in screen.view.lines
        assert re.search(r"following · last \d+ lines; \d+ earlier lines not loaded", sub(app))
        write(path, ["after the return"])
        assert await until(lambda: "after the return" in screen_text(app))


async def test_a_rotated_log_is_reachable_to_its_first_retained_line(source, log_dir):
    path = f"{log_dir}/j1.log"
    writer = LogWriter(path, path + ".1", 64 * 1024)
    for i in range(12_000):
        writer.write(b"line %06d\n" % i)
    with open(path + ".1", "rb") as f:
        first = f.readline().decode().rstrip("\n")
    assert first != "line 000000"  # older output rotated away
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("home")
        await settled(pilot, screen)
        assert screen.view.lines[0] == first  # the retained log starts inside a line
        assert body(app)[0] == first.strip()
        assert "rotated away" in sub(app)
        await pilot.press("slash", *"line 000000")
        assert await until(lambda: "no matches" in screen_text(app))


async def test_a_log_that_vanished_says_so(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, REPRO, "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        os.remove(path)
        await pilot.press("home")
        await settled(pilot, screen)
        assert any("no longer exists" in note for note in app.notes)
        assert "no longer exists" in sub(app)
        assert screen.view.line_count == 2000  # what was shown stays


async def test_a_real_job_is_found_and_reached_from_its_first_line(jm: JobManager):
    command = (
        'echo "FIRST ERROR: the root cause"; for i in $(seq 1 5000); do echo "test $i ok"; done'
    )
    rec = await jm.start(command, label="chatty")
    assert await until(lambda: not jm.get(rec.id).running, timeout=30)
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash", *"FIRST ERROR")
        assert await until(lambda: "1 of 1" in screen_text(app))
        await settled(pilot, screen)
        assert any(FIRST in row for row in body(app))
        assert isinstance(app.focused, Input)
        await pilot.press("enter", "escape", "end")
        await settled(pilot, screen)
        assert screen.view.lines[-1] == "test 5000 ok"
        await pilot.press("home")
        await settled(pilot, screen)
        assert body(app)[0] == FIRST


async def test_the_window_stays_bounded_and_reads_on_down_to_the_tail(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, SHORT, "w")
    app = log_host(source, tail_lines=50, max_lines=240)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("home")
        await settled(pilot, screen)
        assert body(app)[0] == FIRST and "later not loaded" in sub(app)
        write(path, ["written while away"])
        seen = 0
        for _ in range(600):  # down through the whole log, a page at a time
            await pilot.press("pagedown")
            await settled(pilot, screen)
            assert screen.view.line_count <= 240
            seen = max(seen, top_number(screen))
            if "written while away" in screen.view.lines:
                break
        assert "written while away" in screen.view.lines and seen > 500
        assert "later not loaded" not in sub(app)  # the window reaches the tail again
        write(path, ["and then more"])
        assert await until(lambda: "and then more" in screen.view.lines)
        assert screen.new_lines == 1 and not screen.following  # paused: counted, not jumped to
        await pilot.press("home")
        await settled(pilot, screen)
        assert body(app)[0] == FIRST and screen.view.line_count <= 240


async def test_the_filter_says_it_is_over_the_loaded_lines(source, log_dir):
    write(f"{log_dir}/j1.log", REPRO, "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await pilot.press("ampersand", *"ok")
        assert await until(lambda: "2000 of 2000 loaded lines" in screen_text(app))


async def test_wrapped_lines_page_up_without_moving_the_view(source, log_dir):
    write(f"{log_dir}/j1.log", [f"{i:04d} " + "w" * 150 for i in range(600)], "w")
    app = log_host(source, tail_lines=50, max_lines=240)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("w")
        await pilot.pause()
        screen.view.jump(0)  # the top of the loaded lines: an earlier page is read
        await pilot.pause()
        at_top = body(app)
        await settled(pilot, screen)
        assert screen.view.line_count > 50 and screen.view.wrap
        assert body(app) == at_top  # the rows on screen did not move


async def test_bad_page_bounds_are_refused(jm: JobManager):
    from jobs_tui.engine import InvalidArgument

    rec = await jm.start("echo hi", label="short")
    for bad in ({"before": -1}, {"after": 2001}, {"before": True}):
        with pytest.raises(InvalidArgument, match=next(iter(bad))):
            await jm.log_lines(rec.id, None, **bad)
    with pytest.raises(InvalidArgument, match="offset"):
        await jm.log_lines(rec.id, "12")  # type: ignore[arg-type]
    assert await until(lambda: not jm.get(rec.id).running)
    page = await jm.log_lines(rec.id, None, before=5)
    assert page.lines == ["hi"] and page.offsets == [0] and page.at_end
    assert page.times[0] is not None  # the shim's time index dates it


async def test_a_step_made_before_the_whole_log_answers_is_kept(source, log_dir):
    write(
        f"{log_dir}/j1.log",
        [f"row {i} {'error' if i % 10 == 0 else 'ok'}" for i in range(100)],
        "w",
    )
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash", *"error", "enter", "N")  # before the search answers
        view = screen.view
        assert view.lines[view.current_match_line()] == "row 80 error"
        assert await until(lambda: screen._finder.hits is not None)
        await pilot.pause()
        assert view.lines[view.current_match_line()] == "row 80 error"
        assert "9 of 10" in screen_text(app)
        await pilot.press("N")
        assert view.lines[view.current_match_line()] == "row 70 error"


async def test_a_window_whose_next_lines_rotated_away_starts_again_where_the_log_does(
    source, log_dir
):
    path = f"{log_dir}/j1.log"
    writer = LogWriter(path, path + ".1", 16 * 1024)
    for i in range(2000):
        writer.write(b"line %06d\n" % i)
    app = log_host(source, tail_lines=50, max_lines=240)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("home")
        await settled(pilot, screen)
        first = screen.view.lines[0]
        for i in range(2000, 12_000):  # the window and what follows it rotate away
            writer.write(b"line %06d\n" % i)
        for _ in range(12):
            await pilot.press("pagedown")
            await settled(pilot, screen)
            held = [line for line in screen.view.lines if line.startswith("line")]
            numbers = [int(line.split()[1]) for line in held]
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # no gap
        assert numbers[0] > int(first.split()[-1]) + 240  # started again at the retained log
        assert "rotated away" in sub(app)


async def test_a_count_the_engine_cut_says_so(source, log_dir, monkeypatch):
    from jobs_tui.screens.log import find as log_find

    monkeypatch.setattr(log_find, "SEARCH_LIMIT", 5)
    write(f"{log_dir}/j1.log", [f"needle {i}" for i in range(12)] + ["hay"] * 3000, "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash", *"needle")
        assert await until(lambda: "of 5+" in screen_text(app))  # 12 matched, 5 kept
        await settled(pilot, screen)
        view = screen.view
        assert view.lines[view.current_match_line()] == "needle 4"  # the last kept one
        await pilot.press("enter", "n")
        assert await until(lambda: "1 of 5+" in screen_text(app))
        await settled(pilot, screen)
        assert view.lines[view.current_match_line()] == "needle 0"
