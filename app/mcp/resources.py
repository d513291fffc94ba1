"""Resources a client reads and subscribes to: the list, one job, one job's log tail.

- `jobs://jobs`: `{"sessionId", "jobs": [JobRecord...]}` (own jobs, others' running).
- `jobs://job/{id}`: the job's full JobDetails (the whole record; `job_status`'s
  structuredContent is only what a model acts on, see modelview).
- `jobs://job/{id}/log`: a bounded tail, sanitized, head and tail kept, and where the
  full log is; from the second read on, the bytes that rotated away unread since the
  previous one (`_meta.skipped`, and a line saying so).

JSON is written with `ensure_ascii`, so a hostile label reaches the client escaped.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from jobs_tui.engine.records.format import earlier_note
from jobs_tui.engine.records.results import JobError
from jobs_tui.engine.tools import JobTools

from ..tty.text import render_lines, screen_tail
from .notify import JOBS_URI, job_uri, log_uri
from .shaping import DEFAULT_LIMIT, outcome, shape, where_log

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager

RESOURCE_NOT_FOUND = -32002  # the MCP spec's code for an unknown resource
_URI = re.compile(r"jobs://job/(j[1-9][0-9]{0,8})(/log)?\Z")
JSON = "application/json"
TEXT = "text/plain"


def parse(uri: str) -> tuple[str, str | None]:
    """("jobs", None), ("job", id) or ("log", id); MCPError for anything else."""
    if uri == JOBS_URI:
        return "jobs", None
    match = _URI.match(uri)
    if match is None:
        raise MCPError(RESOURCE_NOT_FOUND, f"unknown resource {uri[:80]!r}", {"uri": uri[:200]})
    return ("log" if match.group(2) else "job"), match.group(1)


class JobResources:
    def __init__(self, manager: JobManager, limit: int = DEFAULT_LIMIT) -> None:
        self.jm = manager
        self.tools = JobTools(manager, render=render_lines)  # tty jobs: their screen
        self.limit = limit
        # (job id, started at) -> where this client's last read of its log ended
        self._read_to: dict[tuple[str, int], int] = {}

    async def listing(self) -> list[types.Resource]:
        found = [
            types.Resource(
                uri=JOBS_URI,
                name="jobs",
                title="Jobs",
                description="This session's jobs and other sessions' running ones (JSON).",
                mime_type=JSON,
            )
        ]
        for record in await self.jm.list():
            found.append(
                types.Resource(
                    uri=job_uri(record.id), name=record.id, mime_type=JSON, title=record.id
                )
            )
            found.append(
                types.Resource(uri=log_uri(record.id), name=f"{record.id} log", mime_type=TEXT)
            )
        return found

    @staticmethod
    def templates() -> list[types.ResourceTemplate]:
        return [
            types.ResourceTemplate(
                uri_template="jobs://job/{id}",
                name="job",
                description="One job's details (JobDetails JSON), CPU/memory/ports while running.",
                mime_type=JSON,
            ),
            types.ResourceTemplate(
                uri_template="jobs://job/{id}/log",
                name="job log",
                description="A bounded, sanitized tail of the job's output.",
                mime_type=TEXT,
            ),
        ]

    async def check(self, uri: str) -> None:
        """Refuse a subscription to something that does not exist."""
        _kind, job_id = parse(uri)
        if job_id is not None and self.jm.find(job_id) is None:
            try:
                self.jm.get(job_id)
            except JobError as exc:
                raise MCPError(RESOURCE_NOT_FOUND, str(exc), {"uri": uri}) from None

    async def read(self, uri: str) -> types.TextResourceContents:
        kind, job_id = parse(uri)
        if kind == "jobs":
            records = await self.jm.list()
            body: dict[str, Any] = {
                "sessionId": self.jm.session_id,
                "jobs": [r.to_json() for r in records],
            }
            return types.TextResourceContents(uri=uri, mime_type=JSON, text=json.dumps(body))
        assert job_id is not None
        try:
            if kind == "job":
                details = await self.tools.call({"action": "status", "id": job_id})
                if "error" in details and "job" not in details:
                    raise MCPError(RESOURCE_NOT_FOUND, details["error"], {"uri": uri})
                return types.TextResourceContents(uri=uri, mime_type=JSON, text=json.dumps(details))
            result = await self.jm.logs(job_id)
        except JobError as exc:
            raise MCPError(RESOURCE_NOT_FOUND, str(exc), {"uri": uri}) from None
        job = result.job.to_json()
        text, earlier = result.text, (result.earlier_lines, result.earlier_bytes)
        if result.job.tty:  # a terminal job: the rows its terminal shows, not its bytes
            try:
                rows, lines_before, bytes_before = await screen_tail(
                    self.jm, job_id, self.jm.config.max_log_lines
                )
            except JobError as exc:
                raise MCPError(RESOURCE_NOT_FOUND, str(exc), {"uri": uri}) from None
            text, earlier = "\n".join(rows), (lines_before, bytes_before)
        shaped = shape(text, self.limit)
        skipped = self._skipped(
            (job_id, result.job.started_at), result.retained_from, result.position
        )
        lines = [outcome(job)]
        if skipped:
            lines.append(f"… {skipped} bytes rotated away unread since the last read")
        if any(earlier) if result.job.tty else result.truncated:
            lines.append(earlier_note(*earlier))
        lines.append(shaped.text)
        if (where := where_log(job)) is not None:
            lines.append(where)
        meta = {"skipped": skipped} if skipped else None
        return types.TextResourceContents(
            uri=uri, mime_type=TEXT, text="\n".join(lines), _meta=meta
        )

    def _skipped(
        self, key: tuple[str, int], retained_from: int | None, position: int | None
    ) -> int:
        """Bytes that rotated away between this client's last read of the log and this one.

        A subscriber re-reads the tail on each update; what it never saw but the log still
        holds it can page (`job` logs offset/limit); what rotated away is gone, and said
        (`skipped`), as `logs --follow` says it. The first read is a tail: nothing to say.
        """
        last = self._read_to.get(key)  # keyed by start time too: an id a new job reuses
        if position is not None:
            self._read_to[key] = position
        if last is None or retained_from is None:
            return 0
        return max(0, retained_from - last)
