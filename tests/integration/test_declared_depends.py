"""A declared job waits for its dependencies in its own shim (issue 26): `started`,
`ready`, `succeeded`, in order; a dependency that can no longer get there ends the job
with a clear reason; and all of it goes on once the session that started it is gone."""

from __future__ import annotations

import asyncio
import os
import signal
import time

from jobs_tui.engine import JobManager

from .declared_helpers import decl, dep, ended, probe, read_json, record, request, until

READY_DB = "sleep 0.3; echo 'ready to accept connections'; sleep 30"


def _log(rec) -> str:
    with open(rec.log_path, encoding="utf-8") as handle:
        return handle.read()


async def test_started_ready_and_succeeded_in_order(registry_dir: str, tmp_path):
    order = tmp_path / "order"
    async with JobManager(registry_dir=registry_dir) as jm:
        db = await jm.start(
            f"echo db >> {order}; {READY_DB}",
            declared=decl("db", ready=probe("log", "ready to accept connections")),
        )
        migrate = await jm.start(
            f"sleep 0.2; echo migrate >> {order}",
            declared=decl("migrate", depends=[dep(db, "ready")]),
        )
        cache = await jm.start(f"echo cache >> {order}; sleep 30", declared=decl("cache"))
        api = await jm.start(
            f"echo api >> {order}; sleep 30",
            declared=decl("api", depends=[dep(migrate, "succeeded"), dep(cache, "started")]),
        )
        assert api.pid is None and api.shim_pid is not None
        waiting = await until(lambda: record(jm, api.id).waiting_for, 3, "waiting for")
        assert record(jm, api.id).phase == "waiting" and "migrate" in waiting
        await until(lambda: record(jm, api.id).phase == "ready", 5, "api runs")
        assert order.read_text().split() == ["db", "cache", "migrate", "api"] or (
            order.read_text().split() == ["cache", "db", "migrate", "api"]
        )
        db_ready = read_json(jm.paths.ready(db.id))["at"]
        migrate_end = read_json(jm.paths.end(migrate.id))["finishedAt"]
        migrate_started = read_json(jm.paths.started(migrate.id))["at"]
        api_started = read_json(jm.paths.started(api.id))["at"]
        assert db_ready <= migrate_started and migrate_end <= api_started
        assert record(jm, api.id).pid == read_json(jm.paths.started(api.id))["pid"]
        for job in (api, cache, db):
            await jm.kill(job.id)


async def test_a_dependency_that_fails_ends_the_job_with_its_reason(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        migrate = await jm.start("exit 4", declared=decl("migrate"))
        api_decl = decl("api", depends=[dep(migrate, "succeeded")])
        api = await jm.start("echo never", declared=api_decl)
        done = await until(ended(jm, api.id), 5, "api ends")
        assert (done.status.value, done.end_reason) == ("failed", "dependency")
        end = read_json(jm.paths.end(api.id))
        assert end["reason"] == "dependency"
        assert end["phaseDetail"] == "migrate did not succeed (exit 4)"
        assert _log(api) == "" and not jm.paths.started(api.id).exists()


async def test_a_ready_dependency_that_exits_first_fails_its_dependents(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        db = await jm.start("exit 2", declared=decl("db", ready=probe("log", "ready")))
        api = await jm.start("echo never", declared=decl("api", depends=[dep(db, "ready")]))
        done = await until(ended(jm, api.id), 5, "api ends")
        assert done.end_reason == "dependency"
        detail = read_json(jm.paths.end(api.id))["phaseDetail"]
        assert detail == "db ended before it was ready (exit 2)"


async def test_a_dependency_not_ready_within_its_limit_fails_its_dependents(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        ready = probe("log", "never", limit_ms=200)
        db = await jm.start("sleep 30", declared=decl("db", ready=ready))
        api = await jm.start("echo never", declared=decl("api", depends=[dep(db, "ready")]))
        done = await until(ended(jm, api.id), 5, "api ends")
        assert done.end_reason == "dependency"
        assert "db was not ready in time" in read_json(jm.paths.end(api.id))["phaseDetail"]
        assert record(jm, db.id).running
        await jm.kill(db.id)


async def test_a_waiting_job_killed_never_runs(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        db = await jm.start("sleep 30", declared=decl("db", ready=probe("log", "never")))
        api = await jm.start("echo ran", declared=decl("api", depends=[dep(db, "ready")]))
        await until(lambda: record(jm, api.id).waiting_for == "db", 3)
        killed = await jm.kill(api.id)
        assert (killed.job.status.value, killed.job.signal) == ("killed", "SIGTERM")
        state = read_json(jm.paths.end(api.id))
        assert state["reason"] == "kill" and _log(api) == ""
        await jm.kill(db.id)


async def test_the_phase_is_an_event_on_the_socket(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        db = await jm.start("sleep 30", declared=decl("db", ready=probe("log", "never")))
        api = await jm.start("sleep 30", declared=decl("api", depends=[dep(db, "ready")]))
        state = request(str(jm.paths.socket(api.id)), {"op": "state"})
        assert (state["phase"], state["waitingFor"], state["pid"]) == ("waiting", ["db"], None)
        await jm.kill(api.id)
        await jm.kill(db.id)


async def test_the_rules_hold_once_the_session_is_gone(registry_dir: str, tmp_path):
    """A stack started detached from a session that then closes: the dependencies are
    waited for and the restarts made by the shims alone."""
    async with JobManager(registry_dir=registry_dir) as jm:
        db = await jm.start(
            READY_DB, detached=True, declared=decl("db", ready=probe("log", "ready to accept"))
        )
        api = await jm.start(
            "echo api; exit 1",
            detached=True,
            declared=decl(
                "api",
                depends=[dep(db, "ready")],
                restart="on-failure",
                max_restarts=2,
                backoff_ms=100,
            ),
        )
        paths = jm.paths
    closed_at = time.time() * 1000
    deadline = time.monotonic() + 5
    while read_json(paths.end(api.id)) is None and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    end = read_json(paths.end(api.id))
    assert end is not None, "the shim alone did not run api to its end"
    assert (end["reason"], end["restarts"], end["lastExit"]) == ("crash-loop", 2, 1)
    ready_at = read_json(paths.ready(db.id))["at"]
    assert closed_at <= ready_at <= read_json(paths.started(api.id))["at"]
    assert _log(api).count("── restart") == 2
    async with JobManager(registry_dir=registry_dir) as later:
        seen = await until(ended(later, api.id), 5, "a later session settles api")
        assert (seen.status.value, seen.exit_code, seen.end_reason) == ("failed", 1, "crash-loop")
        assert (seen.restarts, seen.last_exit, seen.phase) == (2, 1, "ended")
        assert record(later, db.id).running
        await later.kill(db.id)


async def test_a_dependency_whose_supervisor_dies_without_an_end_fails_its_dependents(
    registry_dir: str,
):
    async with JobManager(registry_dir=registry_dir) as jm:
        db = await jm.start("sleep 30", declared=decl("db", ready=probe("log", "never")))
        api = await jm.start("echo never", declared=decl("api", depends=[dep(db, "ready")]))
        await until(lambda: record(jm, api.id).waiting_for == "db", 3)
        os.kill(db.shim_pid, signal.SIGKILL)
        started = time.monotonic()
        done = await until(ended(jm, api.id), 3, "api ends")
        assert time.monotonic() - started < 1.0
        assert done.end_reason == "dependency"
        detail = read_json(jm.paths.end(api.id))["phaseDetail"]
        assert detail == "db's supervisor is gone, and it left no end"


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def test_a_waiter_whose_first_dependency_ended_waits_idle_for_the_next(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        migrate = await jm.start("true", declared=decl("migrate"))
        db = await jm.start("sleep 30", declared=decl("db", ready=probe("log", "never")))
        api = await jm.start(
            "sleep 30",
            declared=decl("api", depends=[dep(migrate, "succeeded"), dep(db, "ready")]),
        )
        await until(lambda: record(jm, api.id).waiting_for == "db", 3, "waiting for db only")
        await until(ended(jm, migrate.id), 3)
        await asyncio.sleep(0.2)  # migrate's shim is gone by now
        before = _cpu_s(api.shim_pid)
        await asyncio.sleep(1.0)
        assert _cpu_s(api.shim_pid) - before <= 0.02  # idle: no wake-up loop
        await jm.kill(api.id)
        await jm.kill(db.id)
