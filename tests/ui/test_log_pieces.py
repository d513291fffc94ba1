"""The log pane shows output that arrives in pieces: prompts, progress bars, a REPL (issue 8.8)."""

from __future__ import annotations

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.screens import LogScreen

from .fakes import FakeSource, Host, frozen_clock, record, screen_text, until

pytestmark = pytest.mark.timeout(60)


def append(path: str, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


async def opened(pilot) -> LogScreen:
    screen = pilot.app.screen
    assert isinstance(screen, LogScreen)
    assert await until(lambda: screen.loaded or screen.problem)
    await pilot.pause()
    return screen


def shown(screen: LogScreen) -> list[str]:
    """The complete lines held plus the unfinished one, as plain text."""
    view = screen.view
    return view.lines + ([view.partial] if view.partial else [])


def body(app: Host) -> list[str]:
    """The log rows on the terminal (below the two header lines), stripped."""
    return [line.strip() for line in screen_text(app).splitlines()[2:]]


async def test_pieces_join_on_screen_and_a_stale_partial_row_is_repainted(log_dir: str):
    path = f"{log_dir}/j1.log"
    append(path, b"start\n")
    source = FakeSource([record(1, "pieces", log_dir=log_dir)])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(80, 20)) as pilot:
        screen = await opened(pilot)
        for piece, expect in [
            (b"abc", ["start", "abc"]),
            (b"def\n", ["start", "abcdef"]),
            (b"ghi", ["start", "abcdef", "ghi"]),
            (b"jkl\n", ["start", "abcdef", "ghijkl"]),
            (b"10%\r", ["start", "abcdef", "ghijkl", "10%"]),
            (b"17%\r", ["start", "abcdef", "ghijkl", "17%"]),
            (b"done\n", ["start", "abcdef", "ghijkl", "done"]),
        ]:
            append(path, piece)
            assert await until(lambda want=expect: shown(screen) == want), shown(screen)
            await pilot.pause()
            assert body(app)[: len(expect)] == expect  # what the terminal shows, too
        assert "17%" not in screen_text(app)


async def test_a_pane_opened_during_a_prompt_joins_the_rest_of_the_line(log_dir: str):
    path = f"{log_dir}/j1.log"
    append(path, b"first\nabc")
    source = FakeSource([record(1, "pieces", log_dir=log_dir)])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(80, 20)) as pilot:
        screen = await opened(pilot)
        assert await until(lambda: shown(screen) == ["first", "abc"])
        append(path, b"def\n")
        assert await until(lambda: shown(screen) == ["first", "abcdef"]), shown(screen)
        await pilot.pause()
        assert body(app)[:3] == ["first", "abcdef", ""]


@pytest.mark.parametrize("open_after", [0.0, 0.5])
async def test_a_real_job_printing_in_two_pieces(jm: JobManager, open_after: float):
    import asyncio

    rec = await jm.start("printf 'abc'; sleep 1; printf 'def\\n'; sleep 30", label="pieces")
    await asyncio.sleep(open_after)
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(80, 20)) as pilot:
        screen = await opened(pilot)
        assert await until(lambda: shown(screen) == ["abcdef"]), shown(screen)
        await pilot.pause()
        assert body(app)[:2] == ["abcdef", ""]
    await jm.kill(rec.id, "SIGKILL")


async def test_a_python_repl_shows_every_answer(jm: JobManager):
    rec = await jm.start("python3 -q -i", label="repl", stdin=True)
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(80, 20)) as pilot:
        screen = await opened(pilot)
        assert await until(lambda: shown(screen) == [">>>"] or shown(screen) == [">>> "])
        await jm.send(rec.id, "1+1")
        assert await until(lambda: shown(screen)[:1] == [">>> 2"]), shown(screen)
        await jm.send(rec.id, "2+2")
        assert await until(lambda: shown(screen)[:2] == [">>> 2", ">>> 4"]), shown(screen)
        assert screen.view.partial == ">>> "
        await pilot.pause()
        assert body(app)[:3] == [">>> 2", ">>> 4", ">>>"]
        await jm.send(rec.id, None, eof=True)
