"""JobsScreen over a real JobManager: kill, clear and take-over, accepted and refused; a peer."""

from __future__ import annotations

import pytest

from jobs_tui.engine import JobManager, JobStatus
from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen, StatusChips

from .fakes import Host, screen_text, until

pytestmark = pytest.mark.timeout(90)


def host(jm: JobManager, **options) -> Host:
    return Host(lambda: JobsScreen(jm, **options))


async def select(pilot, job_id: str) -> None:
    screen = pilot.app.screen
    assert await until(lambda: job_id in [r.id for r in screen.job_list.records])
    screen.job_list.select(job_id)
    await pilot.pause()


async def test_kill_confirmed_kills_the_job(jm: JobManager):
    rec = await jm.start("sleep 30", label="sleeper")
    app = host(jm)
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, rec.id)
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        assert await until(lambda: not jm.get(rec.id).running)
        assert jm.get(rec.id).status is JobStatus.KILLED
        assert await until(lambda: any(n.startswith(f"■ {rec.id} sleeper") for n in app.notes))
        assert await until(lambda: "■ " + rec.id in screen_text(app))


@pytest.mark.parametrize("answer", ["n", "escape", "enter", "N"])
async def test_kill_refused_leaves_the_job_running(jm: JobManager, answer: str):
    rec = await jm.start("sleep 30", label="sleeper")
    app = host(jm)
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, rec.id)
        await pilot.press("K")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press(answer)
        await pilot.pause(0.3)
        assert isinstance(app.screen, JobsScreen)
        assert jm.get(rec.id).running
    await jm.kill(rec.id, "SIGKILL")


async def test_clear_confirmed_drops_own_finished_jobs_only(jm: JobManager, peer: JobManager):
    ok = await jm.wait((await jm.start("exit 0", label="ok")).id, 10_000)
    bad = await jm.start("exit 3", label="bad")
    running = await jm.start("sleep 30", label="still running")
    theirs = await peer.wait((await peer.start("exit 0", label="theirs")).id, 10_000)
    assert await until(lambda: not jm.get(bad.id).running)
    jm.registry.refresh_peers(0, force=True)
    app = host(jm)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        assert screen.question == "Clear 2 finished jobs?"
        # `ok` was reported by wait(); `bad` was not
        assert screen.detail.startswith("1 unreported result would be dropped")
        await pilot.press("y")
        assert await until(lambda: "Cleared 2 finished jobs." in app.notes)
        ids = {r.id for r in jm.jobs()}
        assert ok.id not in ids and bad.id not in ids
        assert running.id in ids and theirs.id in ids
        assert await until(lambda: ok.id not in [r.id for r in app.screen.job_list.records])
    await jm.kill(running.id, "SIGKILL")


async def test_clear_refused_keeps_them(jm: JobManager):
    done = await jm.wait((await jm.start("exit 0")).id, 10_000)
    app = host(jm)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.detail.startswith("Running jobs")  # nothing unreported
        await pilot.press("n")
        await pilot.pause(0.2)
        assert jm.get(done.id)


async def test_a_peers_job_is_shown_refused_and_can_be_taken_over(jm: JobManager, peer: JobManager):
    theirs = await peer.start("sleep 30", label="agent build")
    jm.registry.refresh_peers(0, force=True)
    app = host(jm)
    async with app.run_test(size=(120, 30)) as pilot:
        await select(pilot, theirs.id)
        text = screen_text(app)
        assert "agent build" in text and " peer" in text and "1 peer" in text
        await pilot.press("d")
        assert app.notes == [f"{theirs.id} is another session's job; not killed."]
        assert jm.get(theirs.id).running
        # refused take-over: still theirs
        await pilot.press("t")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause(0.2)
        assert not jm.is_own(jm.get(theirs.id))
        # accepted take-over: ours now, and killable
        await pilot.press("t", "y")
        assert await until(lambda: jm.is_own(jm.get(theirs.id)))
        assert await until(lambda: f"{theirs.id} is now this session's job." in app.notes)
        assert await until(lambda: " peer" not in screen_text(app).splitlines()[1])
        await pilot.press("d", "y")
        assert await until(lambda: not jm.get(theirs.id).running)


async def test_a_peers_row_opens_its_log(jm: JobManager, peer: JobManager):
    theirs = await peer.start("echo from-the-peer; sleep 30", label="chatty")
    assert await until(lambda: peer.get(theirs.id).log_bytes > 0)  # its output is in the log
    jm.registry.refresh_peers(0, force=True)
    app = host(jm)
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, theirs.id)
        await pilot.press("enter")
        assert isinstance(app.screen, LogScreen)
        assert await until(lambda: "from-the-peer" in app.screen.view.lines)
        await pilot.press("i")
        assert app.notes == [f"{theirs.id} is another session's job; nothing was sent."]
    await peer.kill(theirs.id, "SIGKILL")


async def test_a_finished_job_updates_live_and_its_failure_notifies_once(jm: JobManager):
    app = Host(lambda: JobsScreen(jm, show_chips=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        rec = await jm.start("read go; exit 4", label="flaky", stdin=True)
        chips = app.screen.query_one(StatusChips)
        assert await until(lambda: chips.counts == (1, 0))
        await jm.send(rec.id, "go")  # it fails only once the running chip was seen
        assert await until(lambda: chips.counts == (0, 1))
        assert await until(lambda: "✗ " + rec.id in screen_text(app))
        await pilot.pause(0.3)
        assert app.notes == [f"{rec.id} flaky failed: exit 4"]
        assert "✗ 1" in screen_text(app)
