"""A kill through the MCP server's tools is said to come from an agent (door mcp) and its
session, in the model's view and in the full record (issue 27, feature 3)."""

from __future__ import annotations

from .conftest import serve


async def test_a_kill_through_mcp_names_the_mcp_door(project):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        await s.ok("job_start", command="sleep 300")
        killed_result = await s.call("job_kill", id="j1")
        killed = killed_result.structured_content
        assert isinstance(killed, dict)
        ended = killed["job"]["endedBy"]
        assert ended["by"] == "request" and ended["door"] == "mcp"
        assert ended["session"].startswith("mcp-") and "signal" not in ended
        assert "by an agent (MCP) (session mcp-" in s.text(killed_result)
        record = await s.record("j1")
        assert record["endedBy"]["door"] == "mcp"
        assert record["endedBy"]["session"] == record["sessionId"]
        await s.ok("job_start", command="exit 2")
        waited = await s.ok("job_wait", id="j2", timeoutMs=10_000)
        assert "endedBy" not in waited["job"]  # a plain exit: its exitCode says it
        assert (await s.record("j2"))["endedBy"] == {"by": "self", "exitCode": 2}
