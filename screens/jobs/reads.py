"""The list's reads off the event loop: the selected job's latest line, what running jobs use."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from functools import partial

from jobs_tui.engine import JobError
from jobs_tui.engine.procs.resources import JobUsage
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.screens.widgets.source import JobSource

from .latest_line import LatestLines
from .tty_last import TtyLatest

Sample = dict[str, JobUsage]


class JobReads:
    """Each read runs in a task of its group (a new read replaces one under way) that
    cannot fail the host; a failed read is dropped (the next one comes soon).

    Plain tasks, not Textual workers: a worker posts a message per state it passes
    through, three for a read that takes a millisecond, twice a second."""

    def __init__(self, source: JobSource) -> None:
        self._source = source
        self.latest = LatestLines()
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def _run(self, work: Callable[[], Awaitable[None]], name: str, group: str) -> None:
        old = self._tasks.pop(group, None)
        if old is not None:
            old.cancel()
        task = asyncio.get_running_loop().create_task(_dropping(work), name=name)
        self._tasks[group] = task
        task.add_done_callback(partial(self._done, group))

    def _done(self, group: str, task: asyncio.Task[None]) -> None:
        if self._tasks.get(group) is task:
            del self._tasks[group]

    def cancel(self) -> None:
        """The screen is gone: reads under way end, and nothing they read is shown."""
        for task in self._tasks.values():
            task.cancel()
        self._tasks.clear()

    def read_latest(self, record: JobRecord, then: Callable[[str], None]) -> None:
        """Read the job's latest line when it is due; `then(job_id)` once it is kept."""
        reader = getattr(self._source, "latest_line", None)
        if record.tty and getattr(self._source, "follow", None) is not None:
            reader = TtyLatest(self._source, record)  # its screen's last row, not its bytes'
        if reader is None or not self.latest.due(record):
            return
        work = partial(
            self._fetch_latest, record.id, record.finished_at, reader, then, record.log_bytes
        )
        self._run(work, "latest line", "jobs-latest")

    async def _fetch_latest(
        self,
        job_id: str,
        finished_at: int | None,
        reader: Callable[[str], Awaitable[str | None]],
        then: Callable[[str], None],
        log_bytes: int = 0,
    ) -> None:
        if await self.latest.read(job_id, finished_at, reader, log_bytes):
            then(job_id)

    def can_sample(self) -> bool:
        """Whether the source says what its jobs use (without it: no usage shown)."""
        return getattr(self._source, "usage", None) is not None

    def sample_usage(self, then: Callable[[Sample], None]) -> None:
        """Sample every running job (the list shows peers' too: no ids to check); the
        engine samples off the event loop, one pass over the process table for all."""
        sampler = getattr(self._source, "usage", None)
        if sampler is not None:
            self._run(partial(self._fetch_usage, sampler, None, then), "usage", "jobs-usage")

    async def _fetch_usage(
        self,
        sampler: Callable[[list[str] | None], Awaitable[Sample]],
        ids: list[str] | None,
        then: Callable[[Sample], None],
    ) -> None:
        try:
            sample = dict(await sampler(ids))
        except (JobError, OSError):
            return
        then(sample)


async def _dropping(work: Callable[[], Awaitable[None]]) -> None:
    """A read that fails is dropped, never raised into the loop's exception handler."""
    with contextlib.suppress(Exception):
        await work()
