"""SVG snapshots of the screens: frozen clock, fixed theme, no animation, explicit sizes.

Regenerate with `python -m pytest tests/snapshots --snapshot-update` and look at the
report before committing the new SVGs.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from jobs_tui.app.tui import JobsApp
from jobs_tui.screens import JobsScreen, LogScreen
from jobs_tui.screens.jobs.live_tail import LiveTail
from tests.ui.fakes import FakeSource, Host, UsageSource, frozen_clock, mixed_records

pytestmark = pytest.mark.timeout(60)

SHOWN_DIR = "/home/dev/.local/state/jobs-tui/shop-5e1f0c2a"


@pytest.fixture
def source(log_dir: str) -> FakeSource:
    return FakeSource(mixed_records(log_dir), shown_log_dir=SHOWN_DIR)


def jobs(source: FakeSource) -> Host:
    return Host(lambda: JobsScreen(source, clock=frozen_clock))


def write_server_log(log_dir: str, count: int = 60) -> str:
    path = os.path.join(log_dir, "j7.log")
    with open(path, "w") as f:
        f.write("\x1b[1mvite v5.2.0\x1b[0m dev server running at:\n\n")
        for i in range(count):
            level = "\x1b[31mERROR\x1b[0m" if i % 9 == 4 else "\x1b[32mINFO\x1b[0m "
            f.write(f"{level} GET /api/cart/{i} {'500' if i % 9 == 4 else '200'} {i % 13 + 2}ms\n")
    return path


def log(source: FakeSource) -> Host:
    return Host(lambda: LogScreen(source, "j7", clock=frozen_clock))


async def loaded(pilot: Pilot) -> None:
    screen = pilot.app.screen
    for _ in range(100):
        if getattr(screen, "loaded", False):
            break
        await pilot.pause(0.02)
    await pilot.pause(0.1)


async def tail_loaded(pilot: Pilot) -> None:
    """Wide and tall: the live tail has read the selected job's log (or said why not)."""
    tail = pilot.app.screen.query_one(LiveTail)
    for _ in range(150):
        await pilot.pause(0.02)
        selected = pilot.app.screen.selection
        loaded = tail.feed is not None or tail.note
        if not tail.display or (tail.job_id == selected and loaded):
            break
    await pilot.pause(0.3)


def test_list_mixed_80x24(snap_compare, source):
    assert snap_compare(jobs(source), terminal_size=(80, 24))


def write_logs(log_dir: str) -> None:
    """A few lines in every job's log, the dev server's own (j7) as `write_server_log`."""
    for rec in mixed_records(log_dir):
        with open(rec.log_path, "w") as f:
            f.write("".join(f"{rec.label}: step {i} done\n" for i in range(1, 31)))
    write_server_log(log_dir)


def test_list_mixed_160x48(snap_compare, source, log_dir):
    """Wide and tall: the selected job's last lines, live, under its detail."""
    write_logs(log_dir)
    assert snap_compare(jobs(source), terminal_size=(160, 48), run_before=tail_loaded)


def test_list_200x60(snap_compare, source, log_dir):
    write_logs(log_dir)

    async def moved(pilot: Pilot) -> None:
        await pilot.press("j", "j", "j")
        await tail_loaded(pilot)

    assert snap_compare(jobs(source), terminal_size=(200, 60), run_before=moved)


def test_list_60x15(snap_compare, source):
    assert snap_compare(jobs(source), terminal_size=(60, 15))


def test_peer_detail(snap_compare, source):
    """No log (the tail says so, muted); the peer's detail above it."""

    async def moved(pilot: Pilot) -> None:
        await pilot.press("down")
        await tail_loaded(pilot)

    assert snap_compare(jobs(source), terminal_size=(120, 30), run_before=moved)


def test_empty_state(snap_compare):
    assert snap_compare(jobs(FakeSource([])), terminal_size=(80, 24))


def test_confirm_kill(snap_compare, source):
    assert snap_compare(jobs(source), press=["j", "j", "d"], terminal_size=(80, 24))


def test_confirm_clear(snap_compare, source):
    assert snap_compare(jobs(source), press=["x"], terminal_size=(80, 24))


def test_confirm_take_over(snap_compare, source):
    assert snap_compare(jobs(source), press=["down", "t"], terminal_size=(80, 24))


def test_confirm_quit(snap_compare, source):
    app = JobsApp(source, clock=frozen_clock)  # type: ignore[arg-type]

    async def themed(pilot: Pilot) -> None:
        pilot.app.theme = "textual-dark"
        pilot.app.animation_level = "none"
        await pilot.pause()

    assert snap_compare(app, press=["q"], terminal_size=(80, 24), run_before=themed)


def test_log_following(snap_compare, source, log_dir):
    write_server_log(log_dir)
    assert snap_compare(log(source), terminal_size=(80, 24), run_before=loaded)


def test_log_paused_with_new_lines(snap_compare, source, log_dir):
    path = write_server_log(log_dir)

    async def pause_then_grow(pilot: Pilot) -> None:
        await loaded(pilot)
        await pilot.press("pageup")
        with open(path, "a") as f:
            f.writelines(f"INFO  GET /api/late/{i} 200 3ms\n" for i in range(14))
        screen = pilot.app.screen
        for _ in range(100):
            if screen.new_lines == 14:
                break
            await pilot.pause(0.02)

    assert snap_compare(log(source), terminal_size=(80, 24), run_before=pause_then_grow)


def test_log_search_with_matches(snap_compare, source, log_dir):
    write_server_log(log_dir)

    async def search(pilot: Pilot) -> None:
        await loaded(pilot)
        await pilot.press("slash", *"error", "enter", "N")
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False

    assert snap_compare(log(source), terminal_size=(80, 24), run_before=search)


def test_detail_with_resources(snap_compare, log_dir):
    """Issue 11: the usage line (deterministic figures from the fake), env names, restart."""
    records = mixed_records(log_dir)
    records[0] = replace(records[0], env_names=("NODE_ENV", "API_TOKEN"), restart_of="j2")
    source = UsageSource(records, shown_log_dir=SHOWN_DIR)

    async def sampled(pilot: Pilot) -> None:
        await pilot.press("j", "j")  # j7, the dev server: env and restart too
        for _ in range(150):
            if source.samples and "usage" in str(
                pilot.app.screen.query_one("#jobs-detail").render()
            ):
                break
            await pilot.pause(0.02)
        await tail_loaded(pilot)

    write_server_log(log_dir)
    assert snap_compare(jobs(source), terminal_size=(120, 30), run_before=sampled)


def test_help_overlay(snap_compare, source):
    assert snap_compare(jobs(source), press=["question_mark"], terminal_size=(100, 30))


def test_list_filter(snap_compare, source):
    async def typed(pilot: Pilot) -> None:
        await pilot.press("slash", *"test")
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause(0.1)

    assert snap_compare(jobs(source), terminal_size=(100, 24), run_before=typed)


def test_list_filter_kept_with_enter(snap_compare, source):
    async def kept(pilot: Pilot) -> None:
        await pilot.press("slash", *"test", "enter")
        await pilot.pause(0.1)

    assert snap_compare(jobs(source), terminal_size=(100, 24), run_before=kept)


def test_log_filter_mid_typing(snap_compare, source, log_dir):
    write_server_log(log_dir)

    async def typed(pilot: Pilot) -> None:
        await loaded(pilot)
        await pilot.press("ampersand", *"GET")
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause(0.1)

    assert snap_compare(log(source), terminal_size=(100, 24), run_before=typed)


DECLARED = """
[jobs.db]
command = "postgres -D .data"
ready = { log = "ready to accept connections" }
[jobs.api]
command = "uvicorn app:app --port 8765"
ready = { port = 8765 }
depends_on = { db = "ready" }
restart = "on-failure"
max_restarts = 5
[jobs.web]
command = "npm run dev"
depends_on = { api = "ready" }
[jobs.worker]
command = "python worker.py"
restart = "on-failure"
max_restarts = 3
depends_on = { db = "started" }
[jobs.migrate]
command = "alembic upgrade head"
autostart = false
[jobs.seed]
command = "python seed.py"
depends_on = { migrate = "succeeded" }
autostart = false
"""


def test_declared_stack(snap_compare, log_dir):
    """The declared jobs: ready, restarting, waiting, a crash loop, two not started; the
    restarting job's detail (probe, result, restart count, dependencies)."""
    from jobs_tui.engine.declared import parse_stack
    from jobs_tui.engine.records.model import JobStatus
    from tests.ui.fakes import record

    stack = parse_stack(DECLARED, "/home/dev/src/shop/jobs-tui.toml", "jobs-tui.toml")
    records = [
        record(
            3,
            "db",
            seconds=40.2,
            declared_name="db",
            phase="ready",
            log_dir=log_dir,
            phase_detail="log: ready to accept connections",
        ),
        record(
            4,
            "api",
            seconds=38.9,
            declared_name="api",
            phase="restarting",
            restarts=2,
            max_restarts=5,
            last_exit=1,
            log_dir=log_dir,
            phase_detail="── restart 2 of 5 · exit 1 after 0.4s ──",
        ),
        record(
            6,
            "web",
            seconds=38.1,
            declared_name="web",
            phase="waiting",
            waiting_for="api",
            log_dir=log_dir,
        ),
        record(
            5,
            "worker",
            JobStatus.FAILED,
            seconds=2.3,
            ago=30,
            exit_code=1,
            declared_name="worker",
            end_reason="crash-loop",
            restarts=3,
            max_restarts=3,
            last_exit=1,
            phase_detail="restarted 3 times, then exit 1 again",
            log_dir=log_dir,
        ),
    ]
    source = FakeSource(records, shown_log_dir=SHOWN_DIR)
    app = Host(lambda: JobsScreen(source, clock=frozen_clock, stack=stack))

    async def selected(pilot: Pilot) -> None:
        pilot.app.screen.job_list.select("j4")
        await pilot.pause(0.2)

    assert snap_compare(app, terminal_size=(120, 30), run_before=selected)
