"""`JobManager.up` and `down` (issue 26): a stack brought up in order, a level at a time,
names resolved to their current jobs in every call, `down` dependents first with each
job's stop signal, readiness waited for, and a restart that keeps the declaration."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.declared import UnknownDeclared, load_stack
from jobs_tui.engine.records.results import InvalidArgument, UnknownJob

from .declared_helpers import ended, read_json, until

STACK = """
[jobs.db]
command = "sleep 0.3; echo 'ready to accept connections'; sleep 30"
ready = { log = "ready to accept connections" }
kill_grace_ms = 2000
[jobs.api]
command = "echo api; sleep 30"
depends_on = { db = "ready" }
kill_grace_ms = 2000
[jobs.worker]
command = "sleep 30"
depends_on = { api = "started" }
kill_grace_ms = 2000
[jobs.tool]
command = "echo tool"
autostart = false
"""


def stack_of(tmp_path, text: str = STACK):
    path = tmp_path / "jobs-tui.toml"
    path.write_text(textwrap.dedent(text))
    return load_stack(path)


async def test_up_starts_the_autostart_jobs_in_order_and_leaves_running_ones(
    registry_dir: str, tmp_path
):
    stack = stack_of(tmp_path)
    async with JobManager(registry_dir=registry_dir) as jm:
        result = await jm.up(stack, detached=True)
        assert [r.declared_name for r in result.started] == ["db", "api", "worker"]
        assert result.failed == [] and result.running == []
        assert all(r.label == r.declared_name for r in result.started)
        done = await jm.wait_many(["db", "api", "worker"], ready=True, timeout_ms=10_000)
        assert done.reason == "ready"
        db, api = jm.get("db"), jm.get("api")
        assert read_json(jm.paths.ready(db.id))["at"] <= read_json(jm.paths.started(api.id))["at"]
        again = await jm.up(stack, ["worker", "tool"], detached=True)
        assert [r.declared_name for r in again.running] == ["db", "api", "worker"]
        assert [r.declared_name for r in again.started] == ["tool"]
        await jm.down(stack)


async def test_an_unknown_name_starts_nothing(registry_dir: str, tmp_path):
    stack = stack_of(tmp_path)
    async with JobManager(registry_dir=registry_dir) as jm:
        with pytest.raises(UnknownDeclared, match="no declared job named 'nope'"):
            await jm.up(stack, ["api", "nope"], detached=True)
        assert jm.jobs() == []
        with pytest.raises(UnknownJob, match="id 'api' is not a known job or a declared"):
            jm.get("api")
        with pytest.raises(UnknownDeclared):
            await jm.down(stack, ["nope"])


async def test_a_job_that_cannot_start_fails_its_dependents_not_the_rest(
    registry_dir: str, tmp_path
):
    stack = stack_of(
        tmp_path,
        """
        [jobs.db]
        command = "sleep 30"
        cwd = "missing"
        [jobs.api]
        command = "sleep 30"
        depends_on = { db = "started" }
        [jobs.cache]
        command = "sleep 30"
        """,
    )
    async with JobManager(registry_dir=registry_dir) as jm:
        result = await jm.up(stack, detached=True)
        failed = dict(result.failed)
        assert "missing" in failed["db"]
        assert failed["api"] == "not started: db did not start"
        assert [r.declared_name for r in result.started] == ["cache"]
        await jm.down(stack)


async def test_cwd_env_and_env_file_are_the_declared_ones(registry_dir: str, tmp_path):
    (tmp_path / "backend").mkdir()
    (tmp_path / ".env").write_text("# secrets\nexport TOKEN='s3cret'\nMODE=dev\n")
    stack = stack_of(
        tmp_path,
        """
        [jobs.api]
        command = "echo $PWD $TOKEN $MODE $DEBUG"
        cwd = "backend"
        env = { DEBUG = "1", MODE = "test" }
        env_file = ".env"
        """,
    )
    async with JobManager(registry_dir=registry_dir) as jm:
        (api,) = (await jm.up(stack, detached=True)).started
        done = await until(ended(jm, api.id), 5, "api ends")
        with open(done.log_path, encoding="utf-8") as handle:
            assert handle.read().split() == [str(tmp_path / "backend"), "s3cret", "test", "1"]


async def test_down_stops_dependents_first_each_with_its_stop_signal(registry_dir: str, tmp_path):
    # db ignores its declared SIGINT: after its grace a TERM ends it, before any KILL.
    stack = stack_of(
        tmp_path,
        """
        [jobs.db]
        command = "trap '' INT; echo up; while :; do sleep 0.05; done"
        stop_signal = "SIGINT"
        kill_grace_ms = 300
        [jobs.api]
        command = "sleep 30"
        depends_on = { db = "started" }
        [jobs.web]
        command = "sleep 30"
        depends_on = { api = "started" }
        [jobs.other]
        command = "sleep 30"
        """,
    )
    async with JobManager(registry_dir=registry_dir) as jm:
        await jm.up(stack, detached=True)
        await until(lambda: jm.get("web").pid, 5, "web runs")
        result = await jm.down(stack, ["db"])
        order = [k.job.declared_name for k in result.stopped]
        assert order == ["web", "api", "db"]
        ends = [read_json(jm.paths.end(k.job.id))["finishedAt"] for k in result.stopped]
        assert ends == sorted(ends)
        db_end = read_json(jm.paths.end(jm.get("db").id))
        # It ignored its SIGINT: the TERM step after the grace ended it, not KILL.
        assert (db_end["reason"], db_end["signal"], db_end["exitStatus"]) == (
            "kill",
            "SIGTERM",
            -15,
        )
        assert result.stopped[-1].signal == "SIGINT"
        assert jm.get("other").running
        rest = await jm.down(stack)
        assert [k.job.declared_name for k in rest.stopped] == ["other"]
        assert sorted(rest.not_running) == ["api", "db", "web"]


async def test_every_call_takes_a_declared_name(registry_dir: str, tmp_path):
    stack = stack_of(tmp_path)
    async with JobManager(registry_dir=registry_dir) as jm:
        await jm.up(stack, ["db"], detached=True)
        db = jm.get("db")
        assert (await jm.status("db")).id == db.id
        done = await jm.wait_many(["db"], until="ready to accept", timeout_ms=5000)
        assert done.reason == "match"
        assert "ready to accept" in (await jm.logs("db")).text
        old = db.id
        new = await jm.restart("db")
        assert new.id != old and new.declared_name == "db" and new.restart_of == old
        assert jm.get("db").id == new.id  # the name follows its current job
        assert (await jm.wait_many(["db"], ready=True, timeout_ms=5000)).reason == "ready"
        killed = await jm.kill("db")
        assert killed.job.id == new.id and not jm.get("db").running
        with pytest.raises(InvalidArgument, match="not a job id like 'j1' or a declared"):
            await jm.kill("no spaces")


async def test_a_restart_keeps_the_declaration_and_its_dependencies_current(
    registry_dir: str, tmp_path
):
    stack = stack_of(
        tmp_path,
        """
        [jobs.db]
        command = "echo 'ready to accept connections'; sleep 30"
        ready = { log = "ready to accept connections" }
        [jobs.api]
        command = "echo api; exit 3"
        depends_on = { db = "ready" }
        restart = "on-failure"
        max_restarts = 1
        backoff_ms = 100
        """,
    )
    async with JobManager(registry_dir=registry_dir) as jm:
        await jm.up(stack, detached=True)
        first = await until(ended(jm, jm.get("api").id), 10, "api crash-loops")
        assert (first.end_reason, first.restarts) == ("crash-loop", 1)
        db = await jm.restart("db")
        again = await jm.restart("api")
        assert (again.declared_name, again.max_restarts) == ("api", 1)
        second = await until(ended(jm, again.id), 10, "api crash-loops again")
        assert (second.end_reason, second.restarts) == ("crash-loop", 1)
        started = read_json(jm.paths.started(again.id))["at"]
        assert read_json(jm.paths.ready(db.id))["at"] <= started  # waited for the new db
        await jm.down(stack)


async def test_ready_waits_name_not_ready_and_refuse_undeclared_jobs(registry_dir: str, tmp_path):
    stack = stack_of(
        tmp_path,
        """
        [jobs.slow]
        command = "sleep 30"
        ready = { log = "never", limit_ms = 300 }
        [jobs.quits]
        command = "exit 0"
        ready = { log = "never" }
        """,
    )
    async with JobManager(registry_dir=registry_dir) as jm:
        await jm.up(stack, detached=True)
        assert (await jm.wait_many(["slow"], ready=True, timeout_ms=5000)).reason == "not-ready"
        assert jm.get("slow").phase_detail == "no pass within 0.3s"
        assert (await jm.wait_many(["quits"], ready=True, timeout_ms=5000)).reason == "finished"
        plain = await jm.start("sleep 30")
        with pytest.raises(InvalidArgument, match="not a declared job"):
            await jm.wait_many([plain.id], ready=True, timeout_ms=100)
        await jm.kill(plain.id)
        await jm.down(stack)


UP_AND_LEAVE = """
import asyncio, sys
from jobs_tui.engine import JobManager
from jobs_tui.engine.declared import load_stack

async def main():
    async with JobManager(registry_dir=sys.argv[1]) as jm:
        result = await jm.up(load_stack(sys.argv[2]), detached=True)
        print(" ".join(r.id for r in result.started))

asyncio.run(main())
"""


async def test_the_rules_hold_once_the_session_that_ran_up_is_gone(registry_dir: str, tmp_path):
    stack_of(
        tmp_path,
        """
        [jobs.db]
        command = "sleep 0.5; echo 'ready to accept connections'; sleep 30"
        ready = { log = "ready to accept connections" }
        [jobs.api]
        command = "echo api; sleep 30"
        depends_on = { db = "ready" }
        [jobs.worker]
        command = "echo boom; exit 1"
        depends_on = { api = "started" }
        restart = "on-failure"
        max_restarts = 2
        backoff_ms = 100
        """,
    )
    file = str(tmp_path / "jobs-tui.toml")
    out = subprocess.run(
        [sys.executable, "-c", UP_AND_LEAVE, registry_dir, file],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert out.returncode == 0, out.stderr
    db_id, api_id, worker_id = out.stdout.split()
    async with JobManager(registry_dir=registry_dir) as jm:
        assert (await jm.wait_many([api_id], ready=True, timeout_ms=10_000)).reason == "ready"
        worker = await until(lambda: read_json(jm.paths.end(worker_id)), 10, "worker ends")
        assert (worker["reason"], worker["restarts"]) == ("crash-loop", 2)
        with open(jm.get(worker_id).log_path, encoding="utf-8") as handle:
            assert handle.read().count("── restart ") == 2
        assert read_json(jm.paths.ready(db_id))["at"] <= read_json(jm.paths.started(api_id))["at"]
        await jm.down(None)
        assert not jm.get("db").running and not jm.get("api").running
