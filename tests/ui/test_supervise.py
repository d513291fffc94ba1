"""`JobsScreen(..., supervise=True)`: the person at the screen acts on any job of the project.

The other session is the command line's own (`cli`, persistent, the manager every
`jobs-tui start` makes), so its jobs are the real thing a person sees beside their own:
one y/N naming whose job it is, and the job stays that session's afterwards. The dock
(`supervise=False`, an agent's own `/jobs`) keeps refusing them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from jobs_tui.app.tui import JobsApp
from jobs_tui.engine import Config, JobManager, JobStatus
from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen, QuitScreen, TerminalScreen

from .fakes import Host, screen_text, until
from .test_terminal_screen import opened, raw_job, wait_received

pytestmark = pytest.mark.timeout(90)


@asynccontextmanager
async def cli_session(registry_dir: str) -> AsyncIterator[JobManager]:
    """What `jobs-tui start` / `jobs-tui status` open: the persistent `cli` session."""
    manager = JobManager(
        cwd=".",
        session_id="cli",
        persistent=True,
        registry_dir=registry_dir,
        config=Config(kill_grace_ms=1000),
    )
    await manager.open(attach=False)
    try:
        yield manager
    finally:
        await manager.close()


async def cli_start(registry_dir: str, command: str, **options) -> str:
    async with cli_session(registry_dir) as cli:
        return (await cli.start(command, **options)).id


async def cli_record(registry_dir: str, job_id: str):
    """The job as a later command-line call finds it: (is it the cli's own, its record)."""
    async with cli_session(registry_dir) as cli:
        record = cli.get(job_id)
        return cli.is_own(record), record


async def cli_kill_all(registry_dir: str) -> None:
    async with cli_session(registry_dir) as cli:
        for record in cli.jobs():
            if record.running:
                await cli.kill(record.id, "SIGKILL")


def supervisor(jm: JobManager) -> Host:
    return Host(lambda: JobsScreen(jm, supervise=True))


async def select(pilot, job_id: str) -> None:
    screen = pilot.app.screen
    assert await until(lambda: job_id in [r.id for r in screen.job_list.records])
    screen.job_list.select(job_id)
    screen.selection = job_id
    await pilot.pause()


# -- kill ----------------------------------------------------------------------------
async def test_kill_a_cli_job_asks_once_naming_its_session_and_it_stays_theirs(
    jm: JobManager, registry_dir: str
):
    job_id = await cli_start(registry_dir, "sleep 30", label="server")
    app = supervisor(jm)
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            await select(pilot, job_id)
            assert "d Kill" in screen_text(app)  # the footer offers it for a peer's job
            await pilot.press("d")
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.question == f"{job_id} belongs to the cli session. Kill it?"
            await pilot.press("y")
            assert await until(lambda: not jm.get(job_id).running, 15)
            assert await until(lambda: any(n.startswith(f"■ {job_id} server") for n in app.notes))
            assert not jm.is_own(jm.get(job_id))  # no take-over: the screen is not its owner
        own, record = await cli_record(registry_dir, job_id)
        assert own and record.session_id == "cli"
        assert record.status is JobStatus.KILLED
    finally:
        await cli_kill_all(registry_dir)


async def test_the_dock_still_refuses_another_sessions_job(jm: JobManager, registry_dir: str):
    job_id = await cli_start(registry_dir, "sleep 30", label="server")
    done = await cli_start(registry_dir, "exit 3", label="failed one")
    app = Host(lambda: JobsScreen(jm))  # supervise=False: an agent's own /jobs dock
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            await select(pilot, job_id)
            await pilot.press("d")
            assert app.notes == [f"{job_id} is another session's job; not killed."]
            await pilot.press("r")
            assert app.notes[-1].startswith(f"{job_id} is another session's job; not restarted")
            assert await until(lambda: not jm.get(done).running)
            await pilot.press("x")
            assert app.notes[-1] == "No finished jobs of this session to clear."
            assert isinstance(app.screen, JobsScreen)
            assert jm.get(job_id).running
        assert (await cli_record(registry_dir, job_id))[1].running
    finally:
        await cli_kill_all(registry_dir)


async def test_restart_a_cli_job_asks_once_and_the_old_one_stays_theirs(
    jm: JobManager, registry_dir: str
):
    job_id = await cli_start(registry_dir, "sleep 30", label="server")
    app = supervisor(jm)
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            await select(pilot, job_id)
            await pilot.press("r")
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.question == f"{job_id} belongs to the cli session. Restart it?"
            await pilot.press("y")
            assert await until(lambda: any("restarted as" in n for n in app.notes), 20)
            new = next(r for r in jm.jobs() if r.restart_of == job_id)
            assert new.running and new.command == "sleep 30"
            assert not jm.get(job_id).running
        own, record = await cli_record(registry_dir, job_id)
        assert own and not record.running
    finally:
        await cli_kill_all(registry_dir)


# -- send and type -------------------------------------------------------------------
async def test_send_to_a_cli_jobs_stdin_after_one_yes(jm: JobManager, registry_dir: str):
    job_id = await cli_start(
        registry_dir, "read line; echo got:$line; sleep 30", label="reader", stdin=True
    )
    app = supervisor(jm)
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            await select(pilot, job_id)
            await pilot.press("enter")
            assert await until(lambda: isinstance(app.screen, LogScreen))
            log = app.screen
            await pilot.press("i")
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.question == f"{job_id} belongs to the cli session. Send to it?"
            await pilot.press("y")
            assert await until(lambda: app.screen is log and log.focused is not None)
            await pilot.press(*"hello", "enter")
            assert await until(lambda: "got:hello" in log.view.lines, 15)
            await pilot.press("escape")  # leave the bar; `i` again asks nothing
            await pilot.press("i")
            await pilot.pause()
            assert app.screen is log
        assert (await cli_record(registry_dir, job_id))[0]
    finally:
        await cli_kill_all(registry_dir)


async def test_ctrl_c_to_a_cli_job_asks_the_same_once(jm: JobManager, registry_dir: str):
    job_id = await cli_start(registry_dir, "read line; sleep 30", label="reader", stdin=True)
    app = supervisor(jm)
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            await select(pilot, job_id)
            await pilot.press("enter")
            assert await until(lambda: isinstance(app.screen, LogScreen))
            await pilot.press("ctrl+c")
            assert isinstance(app.screen, ConfirmScreen)  # not signalled behind a y/N's back
            assert app.screen.question == f"{job_id} belongs to the cli session. Send to it?"
            await pilot.press("n")
            await pilot.pause(0.3)
            assert jm.get(job_id).running
            await pilot.press("ctrl+c")
            await pilot.press("y")
            assert await until(lambda: not jm.get(job_id).running, 15)
            assert jm.get(job_id).signal == "SIGINT"
    finally:
        await cli_kill_all(registry_dir)


async def test_type_into_a_cli_terminal_job_after_one_yes(jm: JobManager, registry_dir: str):
    job_id = await cli_start(registry_dir, raw_job(), label="repl", tty=True)
    app = supervisor(jm)
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            await select(pilot, job_id)
            await pilot.press("enter")
            assert await until(lambda: isinstance(app.screen, TerminalScreen))
            screen = await opened(pilot, "ready")
            await pilot.press("i")
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.question == f"{job_id} belongs to the cli session. Type into it?"
            await pilot.press("y")
            assert await until(lambda: screen.interactive)
            await pilot.press("a", "b")
            await wait_received(jm, job_id, b"ab")
            assert not jm.is_own(jm.get(job_id))
        own, record = await cli_record(registry_dir, job_id)
        assert own and record.running
    finally:
        await cli_kill_all(registry_dir)


# -- clear ---------------------------------------------------------------------------
async def test_clear_offers_the_projects_finished_jobs_and_the_failed_count_goes(
    jm: JobManager, registry_dir: str
):
    mine = await jm.wait((await jm.start("exit 0", label="mine")).id, 10_000)
    failed = await cli_start(registry_dir, "exit 3", label="their failure")
    ok = await cli_start(registry_dir, "exit 0", label="their success")
    running = await cli_start(registry_dir, "sleep 30", label="their server")
    app = Host(lambda: JobsScreen(jm, supervise=True, show_chips=True))
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            assert await until(lambda: "1 failed" in screen_text(app), 15)
            await pilot.press("x")
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.question == "Clear 3 finished jobs?"
            assert "2 of them are other sessions'" in app.screen.detail
            await pilot.press("y")
            assert await until(lambda: "Cleared 3 finished jobs." in app.notes, 15)
            assert await until(lambda: "0 failed" in screen_text(app))
            ids = {r.id for r in jm.jobs()}
            assert {mine.id, failed, ok}.isdisjoint(ids) and running in ids
        async with cli_session(registry_dir) as cli:  # gone from the cli's own file too
            left = {r.id for r in cli.jobs()}
        assert failed not in left and ok not in left and running in left
    finally:
        await cli_kill_all(registry_dir)


async def test_a_result_shown_as_a_toast_counts_as_seen(jm: JobManager):
    rec = await jm.start("sleep 30", label="killed here")
    app = supervisor(jm)
    async with app.run_test(size=(110, 30)) as pilot:
        await select(pilot, rec.id)
        await pilot.press("d", "y")
        assert await until(lambda: any(n.startswith(f"■ {rec.id}") for n in app.notes), 15)
        await pilot.press("x")
        assert isinstance(app.screen, ConfirmScreen)
        assert "unreported" not in app.screen.detail, app.screen.detail


async def test_a_failure_toast_counts_as_seen(jm: JobManager):
    app = Host(lambda: JobsScreen(jm, supervise=True, show_chips=True))
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        rec = await jm.start("exit 4", label="flaky")
        assert await until(lambda: any(f"{rec.id} flaky failed" in n for n in app.notes), 15)
        await pilot.press("x")
        assert isinstance(app.screen, ConfirmScreen)
        assert "unreported" not in app.screen.detail, app.screen.detail


# -- quitting the app ----------------------------------------------------------------
def app_manager(registry_dir: str) -> JobManager:
    return JobManager(cwd=".", registry_dir=registry_dir, config=Config(kill_grace_ms=1000))


def alive(record) -> bool:
    import psutil

    try:
        return psutil.Process(record.pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


async def test_the_app_supervises_and_quit_kills_only_what_it_started(registry_dir: str):
    theirs = await cli_start(registry_dir, "sleep 30", label="cli server")
    taken = await cli_start(registry_dir, "sleep 30", label="taken repl")
    jm = app_manager(registry_dir)
    app = JobsApp(jm)
    try:
        async with app.run_test(size=(110, 30)) as pilot:
            await pilot.pause()
            assert app.screen.supervise
            mine = await jm.start("sleep 30", label="started here")
            await select(pilot, taken)
            await pilot.press("t", "y")  # ownership, for those who want it
            assert await until(lambda: jm.is_own(jm.get(taken)))
            await pilot.press("q")
            assert isinstance(app.screen, QuitScreen)
            assert app.screen.question == "Quit and kill 1 running job started here?"
            assert app.screen.detail.startswith(f"{mine.id}: started here and not detached.")
            assert taken not in app.screen.detail and theirs not in app.screen.detail
            await pilot.press("y")
            assert await until(lambda: not app.is_running, 20)
        assert jm.get(mine.id).status is JobStatus.KILLED
        async with cli_session(registry_dir) as cli:
            cli.registry.refresh_peers(0, force=True)
            assert alive(cli.get(theirs)) and alive(cli.get(taken))
            assert cli.get(theirs).running and cli.get(taken).running
    finally:
        await cli_kill_all(registry_dir)
        async with app_manager(registry_dir) as again:
            for record in again.jobs():
                if record.running:
                    await again.kill(record.id, "SIGKILL")


async def test_quit_can_leave_the_jobs_started_here_running(registry_dir: str):
    jm = app_manager(registry_dir)
    app = JobsApp(jm)
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        mine = await jm.start("sleep 30", label="long build")
        await pilot.press("q")
        assert isinstance(app.screen, QuitScreen)
        assert "l leaves it running" in app.screen.detail
        await pilot.press("n")  # stay
        await pilot.pause()
        assert isinstance(app.screen, JobsScreen) and app.is_running
        await pilot.press("q", "l")
        assert await until(lambda: not app.is_running, 20)
    async with app_manager(registry_dir) as again:  # it outlived the app's session
        record = again.get(mine.id)
        assert record.running and record.detached and alive(record)
        await again.kill(mine.id, "SIGKILL")


async def test_a_hostile_session_name_is_one_plain_line_in_the_question(log_dir: str):
    from dataclasses import replace

    from .fakes import FakeSource, mixed_records

    records = [
        replace(r, session_id="\x1b[31mevil\nline\x07two") if r.id == "j9" else r
        for r in mixed_records(log_dir)
    ]
    app = Host(lambda: JobsScreen(FakeSource(records), supervise=True))
    async with app.run_test(size=(110, 30)) as pilot:
        await select(pilot, "j9")
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        question = app.screen.question
        assert question.startswith("j9 belongs to the ") and question.endswith(" session. Kill it?")
        assert not any(c in question for c in "\x1b\n\x07"), repr(question)
        await pilot.press("n")


def test_the_footer_offers_kill_restart_and_clear_for_any_sessions_job(log_dir: str):
    from jobs_tui.screens.jobs.keys import applies

    from .fakes import ME, mixed_records

    records = mixed_records(log_dir)
    theirs = next(r for r in records if r.id == "j9")  # a peer's running job
    mine = lambda r: r.session_id == ME  # noqa: E731
    only_theirs_finished = [r for r in records if r.running or not mine(r)]
    for action in ("kill", "restart"):
        assert not applies(action, theirs, records, mine)
        assert applies(action, theirs, records, mine, supervise=True)
    assert applies("take_over", theirs, records, mine, supervise=True)  # ownership, still
    assert not applies("clear", theirs, only_theirs_finished, mine)
    assert applies("clear", theirs, only_theirs_finished, mine, supervise=True)


def test_the_clear_question_says_whose_jobs_they_are(log_dir: str):
    from dataclasses import replace

    from jobs_tui.screens.jobs.actions import clear_detail

    from .fakes import mixed_records

    one = [r for r in mixed_records(log_dir) if r.id == "j1"]
    assert clear_detail(one, 0, [], True) == (
        "1 of them is another session's (jt-peer111111111111). Running jobs are left alone."
    )
    two = [*one, replace(one[0], id="j2", session_id="cli")]
    assert clear_detail(two, 1, [], True).startswith(
        "2 of them are other sessions' (cli, jt-peer111111111111). "
        "1 unreported result would be dropped before anyone has seen it."
    )
    assert clear_detail([], 0, [], False) == (
        "Running jobs and other sessions' jobs are left alone."
    )
