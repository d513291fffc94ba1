"""The declared jobs on the /jobs screen (issue 26), with REAL jobs from a tmp jobs-tui.toml:
not-started rows, s/U/D behind their y/N, d = down with the jobs that need it, a crash
loop's row, a waiting row, the detail pane's rows, and the app's `up` path."""

from __future__ import annotations

import re
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.app import App

from jobs_tui.app.tui import JobsApp
from jobs_tui.engine import Config, JobManager, JobStatus
from jobs_tui.engine.declared import Stack, load_stack
from jobs_tui.screens import ConfirmScreen, JobsScreen
from jobs_tui.screens.jobs.detail import DetailPane
from jobs_tui.screens.jobs.rows import JobList

from .fakes import Host, screen_text, until

pytestmark = pytest.mark.timeout(90)

STACK = """
[jobs.db]
command = "sleep 1.5; echo 'ready to accept connections'; exec sleep 60"
ready = { log = "ready to accept connections" }
kill_grace_ms = 1000
[jobs.api]
command = "echo api up; exec sleep 60"
depends_on = { db = "ready" }
kill_grace_ms = 1000
[jobs.worker]
command = "exec sleep 60"
kill_grace_ms = 1000
[jobs.tool]
command = "echo tool"
autostart = false
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "jobs-tui.toml").write_text(textwrap.dedent(STACK))
    return root


def stack_of(project: Path, text: str | None = None) -> Stack:
    if text is not None:
        (project / "jobs-tui.toml").write_text(textwrap.dedent(text))
    return load_stack(project / "jobs-tui.toml")


async def _cleanup(jm: JobManager) -> None:
    """What the screen started is detached (it outlives a session): killed here."""
    for record in jm.jobs():
        if record.running:
            await jm.kill(record.id, "SIGKILL", supervise=True)


@pytest.fixture
async def jm(registry_dir: str, project: Path) -> AsyncIterator[JobManager]:
    manager = JobManager(cwd=project, registry_dir=registry_dir, config=Config(kill_grace_ms=1000))
    async with manager:
        try:
            yield manager
        finally:
            await _cleanup(manager)


def host(jm: JobManager, stack: Stack | None) -> Host:
    return Host(lambda: JobsScreen(jm, stack=stack, supervise=True))


def row_ids(app) -> list[str]:
    return [r.id for r in app.screen.job_list.records]


async def select(pilot, row_id: str) -> None:
    screen = pilot.app.screen
    assert await until(lambda: row_id in row_ids(pilot.app)), row_ids(pilot.app)
    screen.job_list.select(row_id)
    await pilot.pause()


def state_of(jm: JobManager, name: str) -> str | None:
    record = jm.declared_job(name)
    return record.phase if record is not None and record.running else None


def detail_text(app) -> str:
    """The detail pane's fields, whole (`name  value` lines, before they are fitted)."""
    detail = app.screen.query_one(DetailPane).detail
    assert detail is not None
    return "\n".join(f"{f.name:<9}{f.value}" for f in detail.fields)


async def test_declared_jobs_with_no_job_are_listed_as_not_started(jm, project):
    app = host(jm, stack_of(project))
    async with app.run_test(size=(120, 32)) as pilot:
        assert await until(lambda: row_ids(app) == ["db", "api", "worker", "tool"])
        text = screen_text(app)
        for name in ("db", "api", "worker", "tool"):
            assert f"· {name}" in text
        assert text.count("not started") >= 4
        assert "0 jobs · 0 running · 0 failed · 0 peer · 4 declared not started" in text
        await select(pilot, "api")
        assert app.screen.selected is None  # no job to kill, open or restart
        detail = detail_text(app)
        assert "· not started" in detail
        assert app.screen.query_one(DetailPane).detail.title.plain == "api"
        assert "probe    none (ready once started)" in detail
        assert "restart  no" in detail
        assert "depends  db ready (is not started)" in detail
        await select(pilot, "db")
        assert 'probe    log "ready to accept connections"' in detail_text(app)
        await pilot.press("d")  # nothing to stop
        assert "db is not started; nothing to stop (s starts it)." in app.notes
        await pilot.press("enter")  # no log to open
        assert isinstance(app.screen, JobsScreen)
        assert "db is not started: no log yet (s starts it)." in app.notes
    assert jm.jobs() == []


async def test_a_job_another_session_starts_takes_its_rows_place_and_the_cursor(
    jm, project, registry_dir
):
    stack = stack_of(project)
    app = host(jm, stack)
    async with app.run_test(size=(120, 32)) as pilot:
        await select(pilot, "worker")
        async with JobManager(cwd=project, registry_dir=registry_dir) as other:  # `jobs-tui up`
            started = (await other.up(stack, ["worker"], detached=True)).started
            assert [r.declared_name for r in started] == ["worker"]
            assert await until(lambda: "worker" not in row_ids(app), 5)
            assert app.screen.selection == started[0].id  # the cursor went with the name
            assert row_ids(app) == [started[0].id, "db", "api", "tool"]
            assert await until(lambda: "worker  ready" in screen_text(app))
            assert "peer" in screen_text(app)
            await other.kill(started[0].id, "SIGKILL")


async def test_s_starts_the_selected_job_and_what_it_needs_after_a_yes(jm, project):
    app = host(jm, stack_of(project))
    async with app.run_test(size=(120, 32)) as pilot:
        await select(pilot, "api")
        await pilot.press("s")
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert dialog.question == "Start api and 1 job it needs?"
        assert dialog.detail.startswith("Starts db, api in that order, each once its dependencies")
        await pilot.press("n")
        await pilot.pause(0.3)
        assert jm.jobs() == []
        await pilot.press("s")
        await pilot.press("y")
        assert await until(lambda: any(n.startswith("Started db (j") for n in app.notes))
        api = jm.declared_job("api")
        assert api is not None and jm.declared_job("worker") is None
        # the new job is selected; it waits for db, then is ready
        assert await until(lambda: app.screen.selection == api.id)
        assert await until(lambda: "api  waiting for db" in screen_text(app), 5)
        assert await until(lambda: state_of(jm, "api") == "ready", 10)
        assert await until(lambda: "api  ready" in screen_text(app), 5)
        assert await until(lambda: "db  ready" in screen_text(app))
        detail = detail_text(app)
        assert "state    ready" in detail
        assert "depends  db ready (is ready)" in detail
        assert "result   no probe: ready once started" in detail
        assert row_ids(app)[-2:] == ["worker", "tool"]  # still not started
        await pilot.press("s")  # on a running one: nothing to start
        assert await until(lambda: f"api is already running ({api.id})." in app.notes)


async def test_r_on_a_not_started_row_starts_it_and_on_a_declared_job_restarts_it(jm, project):
    app = host(jm, stack_of(project))
    async with app.run_test(size=(120, 32)) as pilot:
        await select(pilot, "worker")
        await pilot.press("r")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Start worker?"
        await pilot.press("y")
        assert await until(lambda: state_of(jm, "worker") == "ready")
        old = jm.declared_job("worker")
        assert old is not None and app.screen.selection == old.id
        await pilot.press("r")
        assert isinstance(app.screen, ConfirmScreen)  # it runs: y/N
        await pilot.press("y")
        assert await until(lambda: any("restarted as" in n for n in app.notes), 10)
        new = jm.declared_job("worker")
        assert new is not None and new.id != old.id and new.restart_of == old.id
        assert new.declared_name == "worker"  # the restart keeps the declaration
        assert jm.get(old.id).status is JobStatus.KILLED


async def test_U_brings_the_file_up_and_D_brings_it_down_each_after_a_yes(jm, project):
    app = host(jm, stack_of(project))
    async with app.run_test(size=(120, 32)) as pilot:
        await pilot.pause()
        await pilot.press("U")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Bring up jobs-tui.toml (3 jobs)?"
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert jm.jobs() == []
        await pilot.press("U")
        await pilot.press("y")
        assert await until(lambda: state_of(jm, "api") == "ready", 10)
        assert await until(lambda: "Started db" in " ".join(app.notes))
        assert row_ids(app)[-1] == "tool"  # not autostart: still not started
        assert await until(
            lambda: "3 running · 0 failed · 0 peer · 1 declared not started" in screen_text(app)
        )
        assert "tool" in screen_text(app) and "worker  ready" in screen_text(app)
        await pilot.press("U")  # everything it names runs
        assert "Every declared job of jobs-tui.toml it names already runs." in app.notes
        await pilot.press("D")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Bring down 3 declared jobs?"
        assert app.screen.detail.startswith("Stops api, db, worker, dependents first")
        await pilot.press("n")
        await pilot.pause(0.3)
        assert all(r.running for r in jm.jobs())
        await pilot.press("D")
        await pilot.press("y")
        assert await until(lambda: not any(r.running for r in jm.jobs()), 15)
        assert await until(lambda: any(n.startswith("Stopped api") for n in app.notes))
        assert await until(lambda: "api  killed · SIGTERM" in screen_text(app))
        await pilot.pause(0.5)
        assert len(jm.jobs()) == 3  # nothing was restarted
        await pilot.press("D")
        assert "No declared job runs; nothing to bring down." in app.notes


async def test_d_on_a_declared_job_is_down_with_the_jobs_that_need_it(jm, project):
    stack = stack_of(project)
    await jm.up(stack, detached=True)
    assert (await jm.wait_many(["api", "worker"], ready=True, timeout_ms=10_000)).reason
    db = jm.get("db")
    app = host(jm, stack)
    async with app.run_test(size=(120, 32)) as pilot:
        await select(pilot, db.id)
        assert await until(lambda: "d Stop" in screen_text(app))  # not a kill: down db
        await pilot.press("d")
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert dialog.question == f"Stop db ({db.id}) and 1 job that need it?"
        assert dialog.detail.startswith("api stop first; then db. Each gets its stop signal")
        await pilot.press("y")
        assert await until(lambda: not jm.get("db").running and not jm.get("api").running, 10)
        assert await until(lambda: any(n.startswith("Stopped api") for n in app.notes))
        assert jm.get("worker").running  # it does not need db
        assert jm.get("db").id == db.id  # stopped, never restarted


async def test_a_crash_loop_and_a_waiting_row(jm, project):
    stack = stack_of(
        project,
        """
        [jobs.flaky]
        command = "echo boom; exit 1"
        restart = "on-failure"
        max_restarts = 2
        backoff_ms = 600
        [jobs.web]
        command = "exec sleep 60"
        depends_on = { never = "ready" }
        [jobs.never]
        command = "exec sleep 60"
        ready = { exec = "false", period_ms = 100 }
        """,
    )
    app = host(jm, stack)
    async with app.run_test(size=(140, 32)) as pilot:
        await pilot.pause()
        await pilot.press("U")
        await pilot.press("y")
        # 600 ms between restarts: each `restarting n/2` shows about that long
        assert await until(lambda: re.search(r"flaky  restarting [12]/2", screen_text(app)), 10)
        assert await until(lambda: "web  waiting for never" in screen_text(app), 10)
        assert "never  starting" in screen_text(app)
        assert await until(lambda: "flaky  crash-loop · exit 1" in screen_text(app), 10)
        flaky = jm.get("flaky")
        assert (flaky.end_reason, flaky.restarts) == ("crash-loop", 2)
        await select(pilot, flaky.id)
        detail = detail_text(app)
        assert "restart  on-failure · 2 of 2 restarts · 600 ms apart · last exit 1" in detail
        assert "result   restarted 2 times, then exit 1 again" in detail
        await select(pilot, jm.get("never").id)
        assert 'probe    exec "false" · every 100 ms' in detail_text(app)


async def test_the_app_reads_the_stack_and_brings_named_jobs_up(jm, project):
    app = JobsApp(jm, up=["api"])
    async with app.run_test(size=(120, 32)) as pilot:
        assert await until(lambda: app.stack is not None)
        assert list(app.stack.jobs) == ["db", "api", "worker", "tool"]
        assert await until(lambda: state_of(jm, "api") == "ready", 10)
        assert jm.declared_job("worker") is None  # only api and what it needs
        screen = app.screen
        assert isinstance(screen, JobsScreen) and screen.stack is app.stack
        assert await until(lambda: "api  ready" in screen_text(app))
        assert "worker" in screen_text(app) and "not started" in screen_text(app)
        assert jm.get("api").detached  # it outlives the app
        await pilot.press("q")
        assert await until(lambda: not app.is_running)


async def test_the_app_with_an_invalid_file_says_its_first_error_and_runs(jm, project):
    (project / "jobs-tui.toml").write_text('[jobs.api]\ncommand = "x"\nport = 3\n')
    notes: list[str] = []
    app = JobsApp(jm, up=[])
    app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 32)) as pilot:
        assert await until(lambda: notes)
        assert notes[0].startswith("Declared jobs not read: ")
        assert "jobs-tui.toml: jobs.api.port" in notes[0]
        assert app.stack is None and app.is_running
        await pilot.pause(0.3)
        assert jm.jobs() == []  # nothing brought up
        assert len(notes) == 1


class _ListApp(App[None]):
    def __init__(self, job_list: JobList) -> None:
        super().__init__()
        self.job_list = job_list

    def compose(self):
        yield self.job_list


async def test_a_phase_changed_in_place_repaints_its_row_at_once(jm, project):
    """The engine changes a record's phase in place (its shim's `phase` event): the row,
    no tick and no re-read here, is drawn again when the list takes the news."""
    record = await jm.start("exec sleep 60", label="api")
    record.declared_name, record.phase = "api", "starting"
    job_list = JobList(lambda: record.started_at + 1000.0, jm.is_own, id="rows")
    app = _ListApp(job_list)
    async with app.run_test(size=(80, 6)) as pilot:
        job_list.set_records([record])
        await pilot.pause()
        assert "api  starting" in screen_text(app)
        record.phase = "ready"  # in place: the same object
        assert job_list.update_record(record)
        await pilot.pause()
        assert "api  ready" in screen_text(app)
        record.last_line = "GET / 200"  # output alone: nothing a row shows
        assert job_list.update_record(record)


async def test_an_agents_dock_does_not_bring_down_another_sessions_jobs(jm, project, registry_dir):
    stack = stack_of(project)
    async with JobManager(cwd=project, registry_dir=registry_dir) as other:
        try:
            worker = (await other.up(stack, ["worker"], detached=True)).started[0]
            app = Host(lambda: JobsScreen(jm, stack=stack))  # supervise=False: a dock
            async with app.run_test(size=(120, 32)) as pilot:
                await select(pilot, worker.id)
                await pilot.press("D")
                assert await until(
                    lambda: any(n.startswith("Not stopped: worker") for n in app.notes)
                )
                assert not isinstance(app.screen, ConfirmScreen)
                await pilot.press("d")  # the dock's kill refuses another session's job
                assert await until(
                    lambda: f"{worker.id} is another session's job; not killed." in app.notes
                )
                await pilot.pause(0.3)
                assert other.get(worker.id).running
        finally:
            await other.kill(worker.id, "SIGKILL")
