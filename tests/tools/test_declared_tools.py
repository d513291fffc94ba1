"""The vocabularies and declared jobs (issue 26): the `job` tool's `up` and `down`, `wait`
with `ready`, a declared name as `id`, and as exec_command's `session_id` and process's
`sessionId`; an invalid file or an unknown name refused with nothing started. Real jobs,
a real jobs-tui.toml in the session's cwd."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.tools import ExecCommandTools, JobTools, ProcessTools
from tests.declared_stacks import DB_API_WORKER

STACK = DB_API_WORKER


@pytest.fixture
async def jm(registry_dir: str, tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "jobs-tui.toml").write_text(STACK)
    config = Config(kill_grace_ms=300)
    async with JobManager(cwd=project, registry_dir=registry_dir, config=config) as manager:
        yield manager


@pytest.fixture
def job(jm: JobManager) -> JobTools:
    return JobTools(jm)


async def test_up_starts_in_order_and_names_work_as_ids(job: JobTools):
    up = await job.call({"action": "up"})
    assert "error" not in up, up
    assert [j["name"] for j in up["started"]] == ["db", "api", "worker"]
    assert up["levels"] == [["db"], ["api"], ["worker"]] and up["failed"] == []
    ready = await job.call({"action": "wait", "id": "api", "ready": True, "timeoutMs": 10_000})
    assert ready["reason"] == "ready" and ready["job"]["name"] == "api"
    status = await job.call({"action": "status", "id": "db"})
    assert status["job"]["id"] == "j1" and status["job"]["phase"] == "ready"
    # db is ready on its log line, so the line is in its log; api is ready when started,
    # which may be before its first echo
    logs = await job.call({"action": "logs", "id": "db"})
    assert "db is ready" in logs["logs"]
    again = await job.call({"action": "up", "names": ["api"]})
    assert again["started"] == [] and [j["name"] for j in again["running"]] == ["db", "api"]


async def test_a_crash_loop_is_a_finish_for_wait(job: JobTools):
    await job.call({"action": "up"})
    done = await job.call({"action": "wait", "id": "worker", "timeoutMs": 20_000})
    assert done["reason"] == "finished", done
    record = done["job"]
    assert record["status"] == "failed" and record["exitCode"] == 3
    assert record["endReason"] == "crash-loop" and record["restarts"] == 1


async def test_down_stops_dependents_first(job: JobTools):
    await job.call({"action": "up", "names": ["api"]})
    await job.call({"action": "wait", "id": "api", "ready": True, "timeoutMs": 10_000})
    down = await job.call({"action": "down", "names": ["db"]})
    assert [s["job"]["name"] for s in down["stopped"]] == ["api", "db"]
    assert all(s["job"]["status"] == "killed" for s in down["stopped"])
    assert down["notRunning"] == ["worker"]
    nothing = await job.call({"action": "down"})
    assert nothing["stopped"] == [] and sorted(nothing["notRunning"]) == ["api", "db", "worker"]


async def test_an_unknown_name_or_an_invalid_file_starts_nothing(job: JobTools, jm: JobManager):
    unknown = await job.call({"action": "up", "names": ["nope"]})
    assert unknown["error"] == "no declared job named 'nope' (declared: db, api, worker)"
    missing = await job.call({"action": "status", "id": "db"})
    assert missing["error"] == "id 'db' is not a known job or a declared job's name"
    (Path(jm.cwd) / "jobs-tui.toml").write_text(
        '[jobs.a]\ncommand = "x"\nbogus = 1\n'
        '[jobs.b]\ncommand = "y"\ndepends_on = { c = "ready" }\n'
    )
    bad = await job.call({"action": "up"})
    assert "jobs-tui.toml: jobs.a.bogus: unknown key" in bad["error"]
    assert bad["error"].endswith("(and 1 more)")
    assert len(bad["errors"]) == 2 and "jobs.b.depends_on" in bad["errors"][1]
    assert (await job.call({"action": "list"}))["jobs"] == []


@pytest.mark.parametrize(
    ("call", "field"),
    [
        ({"action": "up", "names": ["j3"]}, "names[0]"),
        ({"action": "up", "id": "db"}, "id"),
        ({"action": "down", "detached": True}, "detached"),
        ({"action": "wait", "id": "db", "ready": True, "until": "x"}, "until"),
        ({"action": "wait", "id": "db", "ready": True, "port": 80}, "port"),
        ({"action": "status", "id": "a b"}, "id"),
    ],
)
async def test_the_schema_refuses_what_up_down_and_ready_do_not_take(job, call, field):
    result = await job.call(call)
    assert field in result["error"], result


async def test_ready_on_a_plain_job_is_refused(job: JobTools):
    started = await job.call({"action": "start", "command": "sleep 30"})
    refused = await job.call({"action": "wait", "id": started["job"]["id"], "ready": True})
    assert "is not a declared job" in refused["error"]


async def test_exec_command_and_process_take_a_declared_name(jm: JobManager, job: JobTools):
    await job.call({"action": "up", "names": ["db"]})
    await job.call({"action": "wait", "id": "db", "ready": True, "timeoutMs": 10_000})
    ec = ExecCommandTools(jm)
    read = await ec.write_stdin(session_id="db", chars="", yield_time_ms=0)
    assert read["job_id"] == "j1" and "db is ready" in read["output"]
    pt = ProcessTools(jm)
    polled = await pt.call("process", {"action": "log", "sessionId": "db"})
    assert polled["sessionId"] == "j1" and "db is ready" in polled["text"]
    unknown = await pt.call("process", {"action": "poll", "sessionId": "nope"})
    assert unknown["code"] == "unknown-id" and unknown["field"] == "sessionId"
    assert unknown["error"] == "sessionId 'nope' is not a known job or a declared job's name"
    killed = await ec.kill_session(session_id="db")
    assert killed["status"] != "error", killed
    assert (await job.call({"action": "status", "id": "db"}))["job"]["status"] == "killed"
