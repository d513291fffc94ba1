"""13.3: the selected job's last lines, live, under its detail pane on a wide, tall screen.

Real log files (a fake source over them) and a real PTY job through a real manager."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine import Config, JobStatus
from jobs_tui.screens import JobsScreen, LogScreen
from jobs_tui.screens.jobs.live_tail import LiveTail, bottom_rows, last_lines_start

from .fakes import FakeSource, Host, frozen_clock, record, until

pytestmark = pytest.mark.timeout(60)

WIDE = (140, 40)


def tail_of(app: Host) -> LiveTail:
    return app.screen.query_one(LiveTail)


def text_of(tail: LiveTail) -> list[str]:
    return tail.feed.rows() if tail.feed is not None else []


def two_jobs(log_dir: str) -> FakeSource:
    for n in (1, 2):
        with open(f"{log_dir}/j{n}.log", "w") as f:
            f.write("".join(f"job {n} line {i}\n" for i in range(50)))
    return FakeSource([record(2, "web", log_dir=log_dir), record(1, "api", log_dir=log_dir)])


async def test_the_selected_jobs_new_lines_appear_in_the_tail(log_dir: str):
    source = two_jobs(log_dir)
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=WIDE):
        tail = tail_of(app)
        assert await until(lambda: text_of(tail)[-1:] == ["job 2 line 49"])
        assert tail.display and tail.region.height >= 5
        with open(f"{log_dir}/j2.log", "a") as f:
            f.write("\x1b]0;title\x07fresh \x1b[31mred\x1b[0m line\nprom")
        assert await until(lambda: text_of(tail)[-2:] == ["fresh red line", "prom"])

        def drawn() -> list[str]:  # redrawn with the list's tick
            return [tail.render_line(y).text.rstrip() for y in range(tail.content_size.height)]

        wanted = ["fresh red line", "prom"]
        assert await until(lambda: [row for row in drawn() if row][-2:] == wanted)
        shown = "\n".join(drawn())
        assert "title" not in shown and "\x1b" not in shown


async def test_moving_the_cursor_follows_only_the_newly_selected_job(log_dir: str):
    source = two_jobs(log_dir)
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=WIDE) as pilot:
        tail = tail_of(app)
        assert await until(lambda: text_of(tail)[-1:] == ["job 2 line 49"])
        await pilot.press("j")
        assert await until(lambda: tail.job_id == "j1" and text_of(tail)[-1:] == ["job 1 line 49"])
        with open(f"{log_dir}/j2.log", "a") as f:
            f.write("not followed any more\n")
        await pilot.pause(0.5)
        assert all("job 1" in line for line in text_of(tail))
        assert len([w for w in app.screen.workers if w.group == "live-tail"]) <= 1


async def test_no_tail_on_a_small_screen_and_none_while_the_list_is_hidden(log_dir: str):
    source = two_jobs(log_dir)
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(119, 40)) as pilot:  # one column short
        await pilot.pause(0.6)
        tail = tail_of(app)
        assert not tail.display and tail.job_id is None
        await pilot.resize_terminal(*WIDE)
        assert await until(lambda: tail.display and tail.job_id == "j2")
        jobs = app.screen
        await pilot.press("enter")
        assert await until(lambda: isinstance(app.screen, LogScreen))
        assert await until(lambda: tail.job_id is None)  # the list is hidden: nothing followed
        assert not [w for w in jobs.workers if w.group == "live-tail" and w.is_running]
        await pilot.press("escape")
        assert await until(lambda: tail.job_id == "j2")


async def test_a_finished_jobs_tail_is_its_last_lines_without_a_follower(log_dir: str):
    with open(f"{log_dir}/j3.log", "w") as f:
        f.write("one\ntwo\nno newline at the end")
    source = FakeSource([record(3, "build", JobStatus.EXITED, log_dir=log_dir)])
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=WIDE):
        tail = tail_of(app)
        assert await until(lambda: text_of(tail) == ["one", "two", "no newline at the end"])
        assert await until(
            lambda: not [w for w in app.screen.workers if w.group == "live-tail" and w.is_running]
        )


def test_bottom_rows_drop_the_blank_rows_below_the_last_written_one():
    assert bottom_rows(["a", "", "b", "", "  ", ""]) == ["a", "", "b"]
    assert bottom_rows(["", ""]) == []


async def test_a_terminal_jobs_tail_is_the_bottom_of_its_emulated_screen(jm):
    """A real PTY job that clears its screen and draws at fixed rows: the tail shows the
    screen as a terminal would (no escapes, the rows where they were drawn), live."""
    script = (
        "import sys, time\n"
        "sys.stdout.write('old junk\\r\\n' * 30 + '\\x1b[2J\\x1b[H' + 'top row\\r\\n')\n"
        "sys.stdout.write('\\x1b[4;3Hfourth row\\x1b[1;1H')\n"
        "sys.stdout.flush(); time.sleep(1.5)\n"
        "sys.stdout.write('\\x1b[5;1Hfifth \\x1b[1mbold\\x1b[0m')\n"
        "sys.stdout.flush(); time.sleep(30)\n"
    )
    rec = await jm.start(f"{sys.executable} -c {__import__('shlex').quote(script)}", tty=True)
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=WIDE):
        tail = tail_of(app)
        assert await until(lambda: text_of(tail)[:1] == ["top row"], 15)
        assert text_of(tail)[:4] == ["top row", "", "", "  fourth row"]
        assert await until(lambda: text_of(tail)[-1:] == ["fifth bold"], 15)
        assert not any("junk" in line for line in text_of(tail))
    await jm.kill(rec.id)


async def test_a_terminal_jobs_tail_is_emulated_at_the_jobs_own_size(jm):
    """A row wider than 80 columns stays one row: the tail's screen is the job's size."""
    script = "import sys, time; print('x' * 95 + '|', flush=True); time.sleep(30)"
    rec = await jm.start(
        f"{sys.executable} -c {__import__('shlex').quote(script)}", tty=True, cols=100, rows=30
    )
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=WIDE):
        tail = tail_of(app)
        assert await until(lambda: any("|" in line for line in text_of(tail)), 15)
        assert "x" * 95 + "|" in text_of(tail), text_of(tail)  # not wrapped at 80
        assert (tail.feed.model.cols, tail.feed.model.rows) == (100, 30)
    await jm.kill(rec.id)


async def test_a_glance_at_a_finished_job_does_not_count_as_reading_its_result(jm):
    """The tail reads through `follow`, not `logs` (which marks a result seen): selecting a
    row must not drop the job from the unreported results (`x` counts them, agents get them)."""
    rec = await jm.start("echo the result", label="quick")
    assert await until(lambda: not jm.find(rec.id).running, 15)  # not `wait`: it reports
    assert [r.id for r in jm.pending_reports()] == [rec.id]
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=WIDE) as pilot:
        tail = tail_of(app)
        assert await until(lambda: text_of(tail) == ["the result"], 15)
        await pilot.pause(0.3)
        assert [r.id for r in jm.pending_reports()] == [rec.id]


async def test_a_busy_jobs_tail_is_redrawn_with_the_lists_tick_not_on_its_own(log_dir: str):
    """A job printing all the time: the tail takes its output at once but redraws only with
    the list's repaint (one frame for both), once a tick (`repaint_ms`, here 2 s)."""
    source = FakeSource(
        [record(2, "web", log_dir=log_dir), record(1, "api", log_dir=log_dir)],
        config=Config(repaint_ms=2000),
    )
    Path(f"{log_dir}/j2.log").write_text("first\n")
    app = Host(lambda: JobsScreen(source))
    async with app.run_test(size=WIDE) as pilot:
        tail = tail_of(app)
        assert await until(lambda: text_of(tail)[-1:] == ["first"])
        began, started = tail.redraws, time.monotonic()
        with open(f"{log_dir}/j2.log", "a") as f:
            for n in range(40):  # 4 s of output (longer on a loaded machine), 10 lines a second
                f.write(f"line {n}\n")
                f.flush()
                await pilot.pause(0.1)
        assert text_of(tail)[-1:] == ["line 39"]  # taken as written
        redraws, elapsed = tail.redraws - began, time.monotonic() - started
        # one per 2 s tick (a window of T seconds holds up to T/2 + 1 of them, by phase) and
        # at most one more from a late tick's fallback; not per write (40) or per 0.5 s (8+)
        assert 1 <= redraws <= elapsed / 2 + 2, (redraws, elapsed)


def test_last_lines_start_keeps_the_last_lines_and_the_one_in_progress():
    data = b"".join(b"line %d\n" % n for n in range(10)) + b"partial"
    assert data[last_lines_start(data, 3) :] == b"line 7\nline 8\nline 9\npartial"
    assert last_lines_start(b"a\nb\n", 3) == 0  # fewer lines than asked: all of them
    assert last_lines_start(b"no newline", 2) == 0
    ended = b"x\ny\nz\n"
    assert ended[last_lines_start(ended, 2) :] == b"y\nz\n"


async def test_output_rotated_away_before_the_tail_read_it_is_said_never_spliced(log_dir: str):
    """A burst through small segments between two reads: the tail's title says how much
    it skipped, and its rows are whole lines (the one the gap cut is dropped)."""
    from jobs_tui.engine.shim.logwriter import LogWriter

    path = f"{log_dir}/j1.log"
    writer = LogWriter(path, path + ".1", 1000)
    writer.write(b"start\nhalf a li")
    source = FakeSource([record(1, "api", log_dir=log_dir)])
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=WIDE):
        tail = tail_of(app)
        assert await until(lambda: text_of(tail) == ["start", "half a li"])
        await asyncio.sleep(0.3)  # the pump is reading from the end now
        burst = b"".join(b"%06d " % i + b"y" * (i % 70) + b"\n" for i in range(200))
        writer.write(b"ne\n" + burst + b"THE END\n")  # ~8 KB through 1000-byte segments
        assert await until(lambda: text_of(tail)[-1:] == ["THE END"])
        rows = text_of(tail)
        # said in the title with the next redraw (set per read, it was a frame per read)
        assert await until(lambda: "to keep up" in str(tail.border_title)), tail.border_title
        assert rows[0] == "start" and not any(row.startswith("half") for row in rows)
        for row in rows[1:-1]:
            number = int(row[:6])
            assert row == f"{number:06d} " + "y" * (number % 70), row
