"""LogScreen: bounded tail, follow / pause / resume, scrolling, back, find, send, sanitizing."""

from __future__ import annotations

import os

import pytest
from textual import events
from textual.widgets import Input

from jobs_tui.engine import JobManager, JobStatus
from jobs_tui.screens import LogScreen
from jobs_tui.screens.log.follow import READ_CAP
from jobs_tui.screens.widgets.send_bar import SendBar

from .fakes import PEER, FakeSource, Host, record, screen_text, until
from .logpane import log_host, opened, sub, write

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def source(log_dir: str) -> FakeSource:
    return FakeSource(
        [
            record(1, "server", log_dir=log_dir, stdin=True),
            record(2, "peer job", log_dir=log_dir, session=PEER),
            record(3, "done", JobStatus.EXITED, log_dir=log_dir),
        ]
    )


async def test_only_a_bounded_tail_is_loaded(source: FakeSource, log_dir: str):
    write(f"{log_dir}/j1.log", [f"line {i}" for i in range(5000)], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        assert screen.view.line_count == 2000
        assert screen.view.lines[0] == "line 3000" and screen.view.lines[-1] == "line 4999"
        assert "last 2000 lines; 3000 earlier lines not loaded" in sub(app)
        assert sub(app).rstrip().endswith("/logs/j1.log")
        assert "following" in sub(app)
        assert "line 4999" in screen_text(app)


async def test_small_log_says_whole_log_and_empty_says_no_output(source: FakeSource, log_dir):
    write(f"{log_dir}/j1.log", ["a", "b"], "w")
    write(f"{log_dir}/j3.log", [], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        assert "whole log" in sub(app)
    app = log_host(source, "j3")
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        assert "no output yet" in sub(app)


async def test_follows_then_pauses_on_scroll_up_and_counts_new_lines(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, [f"old {i}" for i in range(100)], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        write(path, ["fresh 1", "fresh 2"])
        assert await until(lambda: "fresh 2" in screen_text(app))
        assert screen.following and screen.view.at_end
        await pilot.press("up")
        assert not screen.following and "paused" in sub(app)
        top = screen.view.scroll_y
        write(path, [f"later {i}" for i in range(7)])
        assert await until(lambda: screen.new_lines == 7)
        await pilot.pause()
        assert screen.view.scroll_y == top  # the view did not move
        assert "+7 new lines" in sub(app)
        assert "+7 new lines  End, G or f follows the tail" in screen_text(app)
        assert "later 6" not in screen_text(app)


@pytest.mark.parametrize("resume", ["end", "G", "f"])
async def test_end_g_and_f_resume_following(source, log_dir, resume: str):
    path = f"{log_dir}/j1.log"
    write(path, [f"old {i}" for i in range(100)], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("pageup")
        write(path, ["newest"])
        assert await until(lambda: screen.new_lines == 1)
        await pilot.press(resume)
        await pilot.pause()
        assert screen.following and screen.new_lines == 0 and screen.view.at_end
        assert "following" in sub(app) and "newest" in screen_text(app)
        write(path, ["after resume"])
        assert await until(lambda: "after resume" in screen_text(app))


@pytest.mark.parametrize(
    ("keys", "row"),
    [
        (["home"], 0),
        (["g"], 0),
        (["g", "down"], 1),
        (["g", "j", "j", "k"], 1),
        (["g", "pagedown"], None),
    ],
)
async def test_scroll_keys(source, log_dir, keys: list[str], row):
    write(f"{log_dir}/j1.log", [f"l{i}" for i in range(200)], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press(*keys)
        await pilot.pause()
        height = screen.view.scrollable_content_region.height
        expected = height - 1 if row is None else row
        assert screen.view.scroll_y == expected
        assert not screen.following


async def test_mouse_wheel_up_pauses(source, log_dir):
    write(f"{log_dir}/j1.log", [f"l{i}" for i in range(200)], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        wheel = events.MouseScrollUp(screen.view, 2, 2, 0, -1, 0, False, False, False)
        screen.view.post_message(wheel)
        await pilot.pause()
        assert not screen.following


@pytest.mark.parametrize("key", ["escape", "backspace", "q"])
async def test_back_keys_return(source, log_dir, key: str):
    write(f"{log_dir}/j1.log", ["x"], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await pilot.press(key)
        assert app.dismissed == 1


async def test_find_highlights_counts_and_steps(source, log_dir):
    write(
        f"{log_dir}/j1.log",
        [f"row {i} {'ERROR' if i % 10 == 0 else 'ok'}" for i in range(100)],
        "w",
    )
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash")
        assert isinstance(app.focused, Input) and app.focused.id == "jobs-find-input"
        await pilot.press(*"error")  # lower case: ignores case
        await pilot.pause()
        view = screen.view
        assert len(view.matches) == 10
        assert view.matches[view.current][0] == 90  # the last one, nearest the tail
        assert "10 of 10" in screen_text(app)
        await pilot.press("enter")  # back to the log; the bar stays
        assert app.focused is None
        await pilot.press("N")
        assert view.matches[view.current][0] == 80 and "9 of 10" in screen_text(app)
        await pilot.press("n", "n")
        assert view.current == 0 and "1 of 10" in screen_text(app)  # wraps around
        assert not screen.following
        assert view.scroll_y <= 0 + view.scrollable_content_region.height
        await pilot.press("escape")  # closes the find bar, not the screen
        assert view.query_text == "" and view.matches == [] and app.dismissed == 0
        await pilot.press("n")
        assert app.notes[-1] == "Nothing to find yet: press / and type."


async def test_find_is_case_sensitive_with_capitals_and_reports_no_matches(source, log_dir):
    write(f"{log_dir}/j1.log", ["Error", "error"], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash", *"Error")
        assert len(screen.view.matches) == 1
        await pilot.press("escape")
        await pilot.press("slash", *"zzz")
        await pilot.pause()
        assert "no matches" in screen_text(app)
        await pilot.press("enter", "n")
        assert app.notes[-1] == "No matches for 'zzz'."


async def test_new_lines_are_searched_as_they_arrive(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, ["needle 1"], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash", *"needle", "enter")
        write(path, ["hay", "needle 2"])
        assert await until(lambda: len(screen.view.matches) == 2)


async def test_escapes_are_stripped_and_sgr_colours_kept(source, log_dir):
    raw = "\x1b[31mred\x1b[0m plain \x1b]0;title\x07\x1b[2Jafter\x1b[?25l \x07bell\ttab"
    write(f"{log_dir}/j1.log", [raw, "a\rb\rcollapsed"], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        plain = screen.view.lines
        assert plain[0].startswith("red plain after ")
        assert "\x1b" not in plain[0] and "\x07" not in plain[0]
        assert plain[1] == "collapsed"
        rows = screen_text(app).splitlines()
        y = next(n for n, row in enumerate(rows) if "red plain after" in row)
        x = rows[y].index("red plain after")
        red, plain = app.screen.get_style_at(x, y), app.screen.get_style_at(x + 4, y)
        assert red.color is not None and red.color != plain.color  # the SGR red is shown
        assert "title" not in screen_text(app)


async def test_rotation_is_followed(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, ["before rotation"], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        write(path, ["last of the old segment"])
        os.replace(path, path + ".1")
        write(path, ["first of the new segment"], "w")
        assert await until(lambda: "first of the new segment" in screen.view.lines)
        assert screen.view.lines[-2:] == ["last of the old segment", "first of the new segment"]


async def test_a_writer_faster_than_the_screen_is_skipped_not_queued(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, ["start"], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        write(path, [f"{i:09d}" + "x" * 70 for i in range(4 * READ_CAP // 80)] + ["THE END"])
        assert await until(lambda: "THE END" in screen.view.lines)
        assert screen.skipped > 0 and "to keep up" in sub(app)
        assert screen.view.line_count < 4 * READ_CAP // 80


async def test_output_rotated_away_between_polls_gets_the_note_and_no_spliced_row(source, log_dir):
    """Less than a read is left once a rotation passed the pane's position: the pane says
    how much it skipped (its note), and no row is the end of one line and the start of
    another."""
    from jobs_tui.engine.shim.logwriter import LogWriter

    path = f"{log_dir}/j1.log"
    writer = LogWriter(path, path + ".1", 1000)
    writer.write(b"start\n")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        assert screen.view.lines == ["start"]
        burst = b"".join(b"%06d " % i + b"y" * (i % 70) + b"\n" for i in range(200))
        writer.write(burst + b"THE END\n")  # ~8 KB through 1000-byte segments, at once
        assert await until(lambda: "THE END" in screen.view.lines)
        assert screen.skipped > 0 and "to keep up" in sub(app)
        shown = screen.view.lines[1:-1]
        assert shown, "the last segments' lines are shown"
        for line in shown:  # each row is a line as written
            number = int(line[:6])
            assert line == f"{number:06d} " + "y" * (number % 70), line
        first = int(shown[0][:6])
        written_before = len(b"start\n") + sum(7 + i % 70 + 1 for i in range(first))
        assert screen.skipped == written_before - len(b"start\n")  # exactly what was not shown


async def test_partial_line_is_shown_until_it_completes(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, ["x"], "w")
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        with open(path, "a") as f:
            f.write(">>> ")
        assert await until(lambda: screen.view.partial == ">>> ")
        with open(path, "a") as f:
            f.write("print(1)\n")
        assert await until(lambda: screen.view.lines[-1] == ">>> print(1)")
        assert screen.view.partial == ""


async def test_missing_log_is_reported(source, log_dir):
    app = log_host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        assert "no longer exists" in screen.problem
        assert "no longer exists" in sub(app)


async def test_send_bar_only_for_own_running_jobs_with_stdin(source, log_dir):
    for n in (1, 2, 3):
        write(f"{log_dir}/j{n}.log", ["x"], "w")
    for job_id, has_bar in (("j1", True), ("j2", False), ("j3", False)):
        app = log_host(source, job_id)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await opened(pilot)
            assert bool(screen.query(SendBar)) is has_bar
            footer = {b.binding.description for b in screen.active_bindings.values()}
            assert ("Send a line" in footer) is has_bar


async def test_send_a_line_to_a_real_job(jm: JobManager):
    rec = await jm.start("cat", label="echoer", stdin=True)
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("i")
        assert isinstance(app.focused, Input) and app.focused.id == "jobs-send-input"
        await pilot.press(*"hello there", "enter")
        assert await until(lambda: "hello there" in screen.view.lines)
        assert app.focused.value == ""
        await pilot.press("escape")  # leaves the field, not the screen
        assert app.focused is None and app.dismissed == 0
        await jm.send(rec.id, None, eof=True)
        assert await until(lambda: not screen.query(SendBar))  # the job ended: no more input
        assert screen_text(app).splitlines()[0].lstrip().startswith("✓")


async def test_send_refusal_is_shown(jm: JobManager):
    rec = await jm.start("sleep 30", label="deaf")
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await pilot.press("i")
        assert app.notes == [f"{rec.id} was not started with stdin; nothing was sent."]
    await jm.kill(rec.id, "SIGKILL")
