"""An asyncio client of one job's shim: requests answered in order, events pushed."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Callable
from typing import Any

EventHandler = Callable[[str, dict[str, Any]], None]


class LinkClosed(ConnectionError):
    """The shim went away (its job is over, or it was killed)."""


class ShimLink:
    def __init__(self, job_id: str, on_event: EventHandler, on_close: Callable[[str], None]):
        self.job_id = job_id
        self._on_event = on_event
        self._on_close = on_close
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._pending: deque[asyncio.Future[dict[str, Any]]] = deque()
        self._task: asyncio.Task[None] | None = None
        self.closed = False
        self._closing = False

    async def connect(self, path: str) -> dict[str, Any]:
        """Connect and start watching; returns the shim's current state."""
        self._reader, self._writer = await asyncio.open_unix_connection(path, limit=1 << 20)
        self._task = asyncio.get_running_loop().create_task(self._read_loop())
        return await self.request({"op": "watch"})

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        if self.closed or self._writer is None:
            raise LinkClosed(f"{self.job_id}: supervisor connection is closed")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending.append(future)
        try:
            self._writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            await self._writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            future.cancel()
            raise LinkClosed(f"{self.job_id}: supervisor connection is closed") from exc
        return await asyncio.wait_for(future, timeout)

    async def _read_loop(self) -> None:
        assert self._reader is not None
        try:
            while True:
                line = await self._reader.readline()
                if not line:
                    break
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if "ev" in message and message["ev"] != "state":
                    self._on_event(self.job_id, message)
                elif self._pending:
                    future = self._pending.popleft()
                    if not future.done():
                        future.set_result(message)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            self.closed = True
            if self._writer is not None and not self._closing:
                self._writer.close()  # the shim hung up: our end goes too
            while self._pending:
                future = self._pending.popleft()
                if not future.done():
                    future.set_exception(LinkClosed(f"{self.job_id}: supervisor went away"))
            if not self._closing:
                self._on_close(self.job_id)

    async def close(self) -> None:
        self.closed = True
        self._closing = True
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
