"""A real `jobs-tui mcp` subprocess driven by the SDK's own stdio client, one registry per test."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

ENTRY = [sys.executable, "-m", "jobs_tui.app.cli"]


@dataclass
class Served:
    """A connected client, and what the server told it without being asked."""

    session: ClientSession
    logs: list[types.LoggingMessageNotificationParams] = field(default_factory=list)
    updates: list[str] = field(default_factory=list)
    changed: anyio.Event = field(default_factory=anyio.Event)

    async def call(self, name: str, **args: Any) -> types.CallToolResult:
        return await self.session.call_tool(name, args)

    async def ok(self, name: str, **args: Any) -> dict[str, Any]:
        """A call that must succeed; its structured content."""
        result = await self.call(name, **args)
        assert not result.is_error, (name, args, result.content)
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    async def record(self, job_id: str) -> dict[str, Any]:
        """The job's full registry record (pid, session, paths): the `jobs://job/{id}`
        resource; a tool's structuredContent carries only what a model acts on."""
        read = await self.session.read_resource(f"jobs://job/{job_id}")
        content = read.contents[0]
        assert isinstance(content, types.TextResourceContents)
        return json.loads(content.text)["job"]

    def text(self, result: types.CallToolResult) -> str:
        return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))

    async def until(self, predicate: Any, timeout: float = 10.0) -> None:
        """Wait (on this side, no request to the server) until a notification satisfies it."""
        with anyio.fail_after(timeout):
            while not predicate():
                self.changed = anyio.Event()
                await self.changed.wait()


@contextlib.asynccontextmanager
async def serve(
    cwd: str, registry_dir: str, *options: str, init: bool = True
) -> AsyncIterator[Served]:
    params = StdioServerParameters(
        command=ENTRY[0],
        args=[*ENTRY[1:], "mcp", "--registry-dir", registry_dir, *options],
        env=dict(os.environ),
        cwd=cwd,
    )
    served: Served | None = None

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        assert served is not None
        served.logs.append(params)
        served.changed.set()

    async def on_message(message: Any) -> None:
        if served is None:
            return
        if isinstance(message, types.ResourceUpdatedNotification):
            served.updates.append(str(message.params.uri))
            served.changed.set()

    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, logging_callback=on_log, message_handler=on_message) as session,
    ):
        served = Served(session)
        if init:
            await session.initialize()
        yield served


@pytest.fixture
def project(tmp_path: Any) -> tuple[str, str]:
    """(cwd, registry dir) of one test's project."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    return str(cwd), str(tmp_path / "registry")
