"""Being told: job events become MCP notifications, without the client polling.

- A job of this session finishes: `notifications/message` (level `info` on success,
  `warning` otherwise) whose data is the outcome line, at once; with `--channel`, also
  Claude Code's `notifications/claude/channel` (`content`: that line; `meta`: job_id,
  status, exit_code or signal, strings under identifier keys as Claude Code requires),
  which it shows its model as a `<channel source="jobs" job_id="j4" ...>` message.
- A subscribed resource changed: `notifications/resources/updated` at once on a start or
  a finish, at most once a second per resource on new output (a burst of output is one
  update at the end of the second, never lost).

On the handshake era (every client today) they go out on the connection's channel
(captured from the first request after `initialize`). On a 2026-07-28 connection the
resource updates go to `subscriptions/listen` streams through the SDK's subscription bus;
that era has no unsolicited log messages, so there a finish is seen as the update of
`jobs://jobs` and `jobs://job/{id}`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated

from jobs_tui.engine.records.model import JobEvent, JobRecord, JobStatus
from jobs_tui.engine.records.sanitize import sanitize_line

from ..tty.text import shown_last_line
from .shaping import outcome

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

    from jobs_tui.engine import JobManager

logger = logging.getLogger(__name__)

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
OUTPUT_INTERVAL_S = 1.0  # resources/updated for new output: at most once a second each
JOBS_URI = "jobs://jobs"
CHANNEL_METHOD = "notifications/claude/channel"


def job_uri(job_id: str) -> str:
    return f"jobs://job/{job_id}"


def log_uri(job_id: str) -> str:
    return f"jobs://job/{job_id}/log"


def finish_level(record: JobRecord) -> str:
    return "info" if record.status is JobStatus.EXITED else "warning"


def channel_meta(record: JobRecord) -> dict[str, str]:
    """The `<channel>` tag's attributes: identifier keys, string values (Claude Code drops
    any other key)."""
    meta = {"job_id": record.id, "status": record.status.value}
    if record.exit_code is not None and record.status is not JobStatus.KILLED:
        meta["exit_code"] = str(record.exit_code)
    if record.signal:
        meta["signal"] = sanitize_line(str(record.signal), 20)
    return meta


def finish_text(record: JobRecord) -> str:
    """The outcome line, and the last output line of a job that did not succeed."""
    text = outcome(record.to_json())
    if record.status is not JobStatus.EXITED and record.last_line:
        text += f" · last line: {sanitize_line(record.last_line, 300)}"
    return text


class Notifier:
    """Turns the session's JobEvents into notifications; one per server process."""

    def __init__(
        self,
        manager: JobManager,
        *,
        interval_s: float = OUTPUT_INTERVAL_S,
        channel: bool = False,
    ) -> None:
        self.jm = manager
        self.interval_s = interval_s
        self.channel = channel
        self.session: ServerSession | None = None  # the handshake-era connection's
        self.min_level = 0  # logging/setLevel: debug (everything) until the client says
        self.subscribed: set[str] = set()
        self.bus = InMemorySubscriptionBus()
        self._events: asyncio.Queue[JobEvent] = asyncio.Queue()
        self._last: dict[str, float] = {}
        self._due: dict[str, asyncio.TimerHandle] = {}
        self._sends: set[asyncio.Task[Any]] = set()
        self._unsubscribe = manager.subscribe(self._events.put_nowait)

    def close(self) -> None:
        self._unsubscribe()
        for handle in self._due.values():
            handle.cancel()
        self._due.clear()

    def set_level(self, level: str) -> None:
        self.min_level = LEVELS.index(level) if level in LEVELS else 0

    def attach(self, session: ServerSession) -> None:
        """The handshake-era connection to notify on (the first one wins: stdio has one)."""
        if self.session is None:
            self.session = session

    async def run(self) -> None:
        """Until cancelled: each event, in order."""
        while True:
            event = await self._events.get()
            try:
                await self._handle(event)
            except Exception:  # a notification is best-effort; the server goes on
                logger.exception("notification for %s failed", event.id)

    async def _handle(self, event: JobEvent) -> None:
        record = event.record
        if event.kind == "job-finished" and record is not None:
            if self.jm.is_own(record):
                # a terminal job's last line: its screen's last row (read off the loop)
                shown = await asyncio.to_thread(shown_last_line, self.jm.paths, record)
                await self.log(finish_level(shown), finish_text(shown))
                if self.channel:
                    await self.tell_channel(shown)
            for uri in (JOBS_URI, job_uri(record.id), log_uri(record.id)):
                await self.updated(uri)
        elif event.kind == "job-started" and record is not None:
            await self.updated(JOBS_URI)
            self.soon(job_uri(record.id))
        elif event.kind == "job-output" and record is not None:
            self.soon(log_uri(record.id))
            self.soon(job_uri(record.id))
        elif event.kind == "registry-changed":
            self.soon(JOBS_URI)

    async def log(self, level: str, text: str) -> None:
        if self.session is None or LEVELS.index(level) < self.min_level:
            return
        note = types.LoggingMessageNotification(
            params=types.LoggingMessageNotificationParams(level=level, logger="jobs", data=text)
        )
        await self._send(note)

    async def tell_channel(self, record: JobRecord) -> None:
        """The finish as Claude Code's channel message (only the handshake era has one)."""
        session = self.session
        if session is None:
            return
        params = {"content": finish_text(record), "meta": channel_meta(record)}
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            # not one of the SDK's typed notifications: the connection's raw channel
            await session._connection.outbound.notify(CHANNEL_METHOD, params)

    def soon(self, uri: str) -> None:
        """An update within the second: now if none went out in the last one, else at its end."""
        if uri in self._due:
            return
        wait = self._last.get(uri, 0.0) + self.interval_s - time.monotonic()
        if wait <= 0:
            self._spawn(self.updated(uri))
            return
        loop = asyncio.get_running_loop()
        self._due[uri] = loop.call_later(wait, self._fire, uri)

    def _fire(self, uri: str) -> None:
        self._due.pop(uri, None)
        self._spawn(self.updated(uri))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)

    async def updated(self, uri: str) -> None:
        """`resources/updated` for `uri` to whoever subscribed (either era)."""
        self._last[uri] = time.monotonic()
        handle = self._due.pop(uri, None)
        if handle is not None:
            handle.cancel()
        await self.bus.publish(ResourceUpdated(uri=uri))
        if self.session is not None and uri in self.subscribed:
            note = types.ResourceUpdatedNotification(
                params=types.ResourceUpdatedNotificationParams(uri=uri)
            )
            await self._send(note)

    async def _send(self, note: Any) -> None:
        session = self.session
        if session is None:
            return
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await session.send_notification(note)
