"""Declared jobs over MCP (issue 26): `job_up` and `job_down` (a destructive hint),
`job_wait` with `ready`, a declared name as `id`, a job's phase fields in what the model
reads, a crash loop told as a finish, and an invalid file refused with every error. A
real `jobs-tui mcp` over stdio, driven by the SDK's client (which holds each result's
structuredContent to the tool's output schema), on a real jobs-tui.toml."""

from __future__ import annotations

from pathlib import Path

import jsonschema

from tests.declared_stacks import DB_API_WORKER

from .conftest import serve

STACK = DB_API_WORKER


def declare(cwd: str, text: str = STACK) -> None:
    (Path(cwd) / "jobs-tui.toml").write_text(text)


async def test_up_and_down_are_tools_and_wait_takes_ready(project):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        tools = {tool.name: tool for tool in (await s.session.list_tools()).tools}
        assert {"job_up", "job_down"} <= set(tools)
        assert tools["job_down"].annotations.destructive_hint is True
        assert tools["job_up"].annotations.destructive_hint is False
        assert set(tools["job_up"].input_schema["properties"]) == {"names", "detached"}
        assert set(tools["job_down"].input_schema["properties"]) == {"names"}
        assert tools["job_wait"].input_schema["properties"]["ready"]["type"] == "boolean"
        phase = tools["job_status"].output_schema["properties"]["job"]["properties"]["phase"]
        assert "ready" in phase["enum"]


async def test_up_wait_ready_names_and_down(project):
    cwd, registry = project
    declare(cwd)
    async with serve(cwd, registry) as s:
        up = await s.call("job_up", names=["api"])  # api and what it needs: no worker
        assert not up.is_error, s.text(up)
        started = up.structured_content["started"]
        assert [(j["id"], j["name"]) for j in started] == [("j1", "db"), ("j2", "api")]
        assert "started: ▸ j1 db · running" in s.text(up)
        ready = await s.ok("job_wait", id="api", ready=True, timeoutMs=10_000)
        assert ready["reason"] == "ready" and ready["job"]["phase"] == "ready"
        db = await s.ok("job_status", id="db")
        assert db["job"]["id"] == "j1" and db["job"]["name"] == "db"
        assert db["job"]["phaseDetail"].startswith("log")
        assert "db is ready" in (await s.ok("job_logs", id="db"))["logs"]
        down = await s.call("job_down", names=["db"])
        assert not down.is_error, s.text(down)
        stopped = down.structured_content["stopped"]
        assert [j["name"] for j in stopped] == ["api", "db"]  # dependents first
        assert "stopped: ■ j2 api · killed" in s.text(down)


async def test_a_crash_loop_reaches_job_wait_as_a_finish(project):
    cwd, registry = project
    declare(cwd)
    async with serve(cwd, registry) as s:
        await s.ok("job_up", names=["worker"])
        done = await s.call("job_wait", id="worker", timeoutMs=20_000)
        assert not done.is_error, s.text(done)
        job = done.structured_content["job"]
        assert job["status"] == "failed" and job["exitCode"] == 3
        assert job["endReason"] == "crash-loop" and job["restarts"] == 1
        assert "reason" not in done.structured_content  # a finish: its status says so
        assert "✗ j3 worker · exit 3 · crash loop after 1 restart" in s.text(done)


async def test_an_invalid_file_or_unknown_name_is_an_error_and_starts_nothing(project):
    cwd, registry = project
    declare(cwd, '[jobs.a]\ncommand = "x"\nbogus = 1\n[jobs.b]\ncommand = "y"\ntty = 3\n')
    async with serve(cwd, registry) as s:
        bad = await s.call("job_up")
        assert bad.is_error and bad.structured_content is None
        text = s.text(bad)
        assert "jobs.a.bogus: unknown key" in text and "jobs.b.tty" in text
        declare(cwd)
        unknown = await s.call("job_up", names=["nope"])
        assert unknown.is_error and "no declared job named 'nope'" in s.text(unknown)
        refused = await s.call("job_wait", id="db", ready=True, until="x")
        assert refused.is_error and "ready cannot be combined with until" in s.text(refused)
        listed = await s.ok("job_list")
        assert listed["jobs"] == []


async def test_results_hold_to_the_output_schemas(project):
    cwd, registry = project
    declare(cwd)
    async with serve(cwd, registry) as s:
        tools = {tool.name: tool for tool in (await s.session.list_tools()).tools}
        for name, args in (
            ("job_up", {"names": ["api"]}),
            ("job_wait", {"id": "api", "ready": True, "timeoutMs": 10_000}),
            ("job_down", {}),
        ):
            result = await s.ok(name, **args)
            jsonschema.validate(result, tools[name].output_schema)
