"""A wait's `port` condition: does a waited job's process tree listen on this TCP port?

The same look `status` takes at a job's ports (`resources.UsageSampler`: one pass over
the process table, the sockets from sock_diag on Linux), but fresh on every call (no
one-second cache) and for the waited jobs only: about 4 ms for a hundred processes, so a
wait can look five times a second. A port is a fact of the kernel's, not of the log: no
event tells us, so this is the one part of a wait that polls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .resources import UsageSampler

if TYPE_CHECKING:
    from jobs_tui.engine.records.model import JobRecord

PORT_POLL_S = 0.2  # how often a wait with `port` looks


class PortWatch:
    """Which of the waited jobs (the first in the order asked) listens on `port`."""

    def __init__(self, port: int, sampler: UsageSampler | None = None) -> None:
        self.port = port
        self._sampler = sampler or UsageSampler(interval=0)

    async def listener(self, records: Sequence[JobRecord]) -> str | None:
        """The id of the first running job among `records` whose tree listens on the port."""
        running = [r for r in records if r.running and r.pid]
        if not running:
            return None
        found = await asyncio.to_thread(self._sampler.sample_now, running)
        for record in running:
            usage = found.get(record.id)
            if usage is not None and any(
                p.port == self.port and p.proto == "tcp" for p in usage.ports
            ):
                return record.id
        return None
