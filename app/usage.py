"""What running jobs use, for one short call: two passes over the process table 100 ms apart.

A CPU rate needs two samples, and a command-line call has no earlier one, so `status`
and `list --json` take the first, wait `WINDOW_S`, and report the second (CPU % of one
core over that window; RSS, process count and listening ports as of the second pass).
Synchronous, no event loop: `list` and `status` may run on a glance. Only running jobs
are sampled; a call about finished jobs pays nothing.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any

    from jobs_tui.engine.model import JobRecord
    from jobs_tui.engine.resources import JobUsage

WINDOW_S = 0.1


def sample(records: list[JobRecord], window_s: float = WINDOW_S) -> dict[str, JobUsage]:
    """Usage of each running record's tree (no entry for one that is not a live process)."""
    running = [r for r in records if r.running and r.pid]
    if not running:
        return {}
    from jobs_tui.engine.resources import UsageSampler

    sampler = UsageSampler(interval=0)
    sampler.sample_now(running)
    time.sleep(window_s)
    return sampler.sample_now(running)


def with_usage(job: dict[str, Any], usage: JobUsage | None) -> dict[str, Any]:
    """A record's JSON with the usage fields (`cpuPercent`, `rssBytes`, `processCount`,
    `ports`) when it is running here; a finished job's stays as it is."""
    return job if usage is None else {**job, **usage.to_json()}
