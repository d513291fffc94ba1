"""What running jobs use, for one short call: one pass over the process table.

A CPU rate needs two samples, and a command-line call has no earlier one; waiting for a
second would make every `status` slow. So `status` and `list --json` report CPU as `ps`
does: the tree's CPU time over its age (a busy loop ~100%, a sleeping server ~0%, a
server busy at start and idle now somewhere between). The screen, the tools and the MCP
server keep samples and show the last second. RSS, process count and listening ports are
as of the pass. Synchronous, no event loop: `list` and `status` may run on a glance.
Only running jobs are sampled; a call about finished jobs pays nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any

    from jobs_tui.engine.procs.resources import JobUsage
    from jobs_tui.engine.records.model import JobRecord


def sample(records: list[JobRecord]) -> dict[str, JobUsage]:
    """Usage of each running record's tree (no entry for one that is not a live process)."""
    running = [r for r in records if r.running and r.pid]
    if not running:
        return {}
    from jobs_tui.engine.procs.resources import UsageSampler

    return UsageSampler(interval=0).sample_once(running)


def with_usage(job: dict[str, Any], usage: JobUsage | None) -> dict[str, Any]:
    """A record's JSON with the usage fields (`cpuPercent`, `rssBytes`, `processCount`,
    `ports`) when it is running here; a finished job's stays as it is."""
    return job if usage is None else {**job, **usage.to_json()}
