"""A kill through the MCP server's tools is said to come from an agent (door mcp) and its
session, in the model's view and in the full record (issue 27, feature 3)."""

from __future__ import annotations

from .conftest import serve


async def test_a_kill_through_mcp_names_the_mcp_door(project):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        await s.ok("job_start", command="sleep 300")
        killed = await s.ok("job_kill", id="j1")
        ended = killed["job"]["endedBy"]
        assert ended["by"] == "request" and ended["door"] == "mcp"
        assert ended["words"].startswith("killed · SIGTERM · by an agent (MCP) (session mcp-")
        record = await s.record("j1")
        assert record["endedBy"]["door"] == "mcp"
        assert record["endedBy"]["session"] == record["sessionId"]
        await s.ok("job_start", command="exit 2")
        waited = await s.ok("job_wait", id="j2", timeoutMs=10_000)
        assert waited["job"]["endedBy"] == {"by": "self", "exitCode": 2, "words": "exit 2"}
