"""MCP over a real escaped server (issue 27, feature 2): `job_strays` (read-only) lists it
with its port and its command sanitized, `job_kill` with `pid` kills its tree; a pid that
is no stray is an error naming pid, and nothing is killed."""

from __future__ import annotations

import sys
from pathlib import Path

import jsonschema
import pytest

from tests.escaped import alive, escaped, gone

from .conftest import serve

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc"),
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]


async def test_job_strays_lists_a_server_and_job_kill_pid_kills_it(project):
    cwd, registry = project
    async with serve(cwd, registry) as served:
        tools = {t.name: t for t in (await served.session.list_tools()).tools}
        listed_tool = tools["job_strays"]
        assert listed_tool.annotations.read_only_hint is True
        assert listed_tool.input_schema["properties"] == {}
        kill_tool = tools["job_kill"]
        assert "pid" in kill_tool.input_schema["properties"]
        assert kill_tool.annotations.destructive_hint is True
        none = await served.ok("job_strays")
        assert none == {"strays": []}
        with escaped(Path(cwd)) as (pid, port):
            result = await served.call("job_strays")
            assert not result.is_error
            jsonschema.validate(result.structured_content, listed_tool.output_schema)
            (stray,) = [s for s in result.structured_content["strays"] if s["pid"] == pid]
            assert stray["ports"] == [f"{port}/tcp"] and "socket" in stray["command"]
            assert "\x1b" not in stray["command"] and "\x07" not in stray["command"]
            text = served.text(result)
            assert f"pid {pid}" in text and f"{port}/tcp" in text and "\x1b" not in text
            job = await served.ok("job_start", command="sleep 30")
            job_pid = (await served.record(job["job"]["id"]))["pid"]
            for other in (job_pid, 1):  # a job's process, init: no strays; nothing killed
                refused = await served.call("job_kill", pid=other)
                assert refused.is_error
                assert f"pid {other} is not a stray" in served.text(refused)
            assert alive(pid)
            both = await served.call("job_kill", pid=pid, id=job["job"]["id"])
            assert both.is_error and "cannot be combined" in served.text(both)
            assert alive(pid)
            killed = await served.call("job_kill", pid=pid)
            assert not killed.is_error, served.text(killed)
            jsonschema.validate(killed.structured_content, kill_tool.output_schema)
            assert killed.structured_content["stray"]["pid"] == pid
            assert killed.structured_content["stray"]["escalated"] is False
            assert f"killed stray {pid}" in served.text(killed)
            assert gone(pid)
            assert await served.ok("job_strays") == {"strays": []}
            status = await served.ok("job_status", id=job["job"]["id"])
            assert status["job"]["status"] == "running"
