"""The kernel's out-of-memory kills (issue 27, feature 3), for the session side.

The shim counts them (shim/ending.py: the job's cgroup's `oom_kill`, else /proc/vmstat's,
read once the job runs and again at its SIGKILL) and writes which moved in the job's end
(`oomKill: {"source": "cgroup"|"machine", "kills": n}`). `from_end` reads that back, and
the counters are here for a reader that watches a process itself (an adopted one).

Wiring: `endedby.EndFacts(oom_source=found.source if found else None, ...)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jobs_tui.engine.shim.ending import OomCount, cgroup_kills, machine_kills

__all__ = ["OomCount", "OomKill", "cgroup_kills", "from_end", "machine_kills"]


@dataclass(frozen=True)
class OomKill:
    """An OOM kill counter moved while the job ran, and it died of SIGKILL."""

    source: str  # "cgroup": the job's own (certain); "machine": /proc/vmstat (likely)
    kills: int

    @property
    def certain(self) -> bool:
        return self.source == "cgroup"


def from_end(fields: Mapping[str, Any]) -> OomKill | None:
    """The `oomKill` of an end file or exit event; None when absent or malformed (a peer's
    or an older shim's end has none)."""
    raw = fields.get("oomKill")
    if not isinstance(raw, Mapping):
        return None
    source, kills = raw.get("source"), raw.get("kills")
    if source not in ("cgroup", "machine") or type(kills) is not int or kills < 1:
        return None
    return OomKill(source, kills)
