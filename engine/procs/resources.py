"""What a job is using: CPU %, RSS, process count and listening ports of its whole tree.

One pass over the process table serves every job (a ppid map, never a walk per job), and
one look at the sockets; both run off the event loop, at most once a second, and only
when someone asks (`JobManager.usage`). The rules (which processes are a job's, the CPU
delta, which ports) are pure functions over plain rows; the pass over the
process table is at the edge (`proctable`: `/proc` on Linux, psutil elsewhere).

A job's tree. The job is `sh -c COMMAND` (the record's `pid`, a session and group leader)
under its shim, which is a child subreaper. Its processes are:

- the descendants of its shim (the shim itself excluded: it is jobs-tui's, not the
  job's), which are `sh` and everything below it, plus every orphan of the tree: the
  kernel re-parents an orphan to the nearest subreaper, the shim. This is how a `setsid`
  grandchild (a daemon), which keeps neither the job's process group nor its session, is
  still counted once its parent is gone; while its parent lives it is a descendant of sh.
- every process that keeps the job's process group or session (`pgid` or `sid` equal to
  the job's pid), wherever it hangs: what left the tree but not the job.

With no live shim (a record without its token, or a peer's shim gone) the walk starts at
`sh`; an orphan that re-parented to init then counts only while it keeps the group or
session. Pid reuse: a root (shim or sh) counts only if its start token is the record's,
and CPU samples are keyed by (pid, start time), so a reused pid is never the job's.
A job started by a job (its shim re-parents to the outer shim) is not part of the outer
job: the walk stops at every other job's shim and sh, and each process counts once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from jobs_tui.engine.records.model import JobRecord

from .proctable import Port, ProcRow, Scan, scan_processes, socket_lookup

SAMPLE_INTERVAL_S = 1.0  # the cache: at most one pass over the process table a second


# -- records ---------------------------------------------------------------------------
@dataclass
class JobUsage:
    """One running job's use of the machine, its whole process tree summed."""

    cpu_percent: float | None  # None on the job's first sample: a rate needs two
    rss_bytes: int
    process_count: int
    ports: list[Port] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "cpuPercent": None if self.cpu_percent is None else round(self.cpu_percent, 1),
            "rssBytes": self.rss_bytes,
            "processCount": self.process_count,
            "ports": [p.to_json() for p in self.ports],
        }


@dataclass(frozen=True)
class JobRoots:
    """Where a job's tree starts; a pid is given only if it is still the job's process."""

    job_id: str
    pid: int | None  # the job's sh (session and group leader), if alive and its token matches
    shim_pid: int | None  # its shim, likewise


@dataclass
class TreeSample:
    """A job's tree at one sample: per process (pid, start) its parent and total CPU."""

    wall: float  # time.monotonic() of the pass
    clock: float  # the pass's time on the clock of `ProcRow.started`: who was born since
    cpu: dict[tuple[int, float], tuple[int, float]]  # key -> (ppid, own + reaped children)


# -- pure rules --------------------------------------------------------------------------
def group_trees(rows: Iterable[ProcRow], jobs: Iterable[JobRoots]) -> dict[str, list[ProcRow]]:
    """Each job's processes (see the module docstring); every process counts once."""
    rows = list(rows)
    jobs = list(jobs)
    children: dict[int, list[ProcRow]] = {}
    by_pid: dict[int, ProcRow] = {}
    for row in rows:
        children.setdefault(row.ppid, []).append(row)
        by_pid[row.pid] = row
    shims = {j.shim_pid for j in jobs if j.shim_pid}
    boundary = shims | {j.pid for j in jobs if j.pid}
    taken: set[int] = set(shims)
    trees: dict[str, list[ProcRow]] = {}
    for job in jobs:
        found: list[ProcRow] = []
        if job.shim_pid and job.shim_pid in by_pid:
            stack = list(children.get(job.shim_pid, ()))
        elif job.pid and job.pid in by_pid:
            stack = [by_pid[job.pid]]
        else:
            stack = []
        while stack:
            row = stack.pop()
            if row.pid in taken or (row.pid in boundary and row.pid != job.pid):
                continue  # another job's shim or sh (a job started by this one), or seen
            taken.add(row.pid)
            found.append(row)
            stack.extend(children.get(row.pid, ()))
        trees[job.job_id] = found
    leaders = {j.pid: j.job_id for j in jobs if j.pid}
    for row in rows:  # what left the tree but kept the job's group or session
        owner = leaders.get(row.pgid) or leaders.get(row.sid)
        if owner is not None and row.pid not in taken:
            taken.add(row.pid)
            trees[owner].append(row)
    return trees


def tree_sample(rows: Iterable[ProcRow], wall: float, clock: float) -> TreeSample:
    return TreeSample(wall, clock, {r.key: (r.ppid, r.cpu_s + r.child_cpu_s) for r in rows})


def cpu_percent(prev: TreeSample | None, cur: TreeSample) -> float | None:
    """CPU % of one core used by the tree between two samples; None without a previous one.

    Each process's CPU counts its own time plus that of the children it reaped, so a
    child that lived and died between samples still counts (through its parent). A
    process seen before and gone now was reaped by its parent: the part of its time the
    previous sample already had is taken back when that parent is still in the tree (or
    it would count twice). A process born since the previous sample counts whole; one
    older that was not seen (it joined the tree) counts from now on.
    """
    if prev is None:
        return None
    wall = cur.wall - prev.wall
    if wall <= 0:
        return None
    used = 0.0
    for key, (_ppid, total) in cur.cpu.items():
        if key in prev.cpu:
            used += total - prev.cpu[key][1]
        elif key[1] >= prev.clock:
            used += total
    alive = {pid for pid, _started in cur.cpu}
    for key, (ppid, total) in prev.cpu.items():
        if key not in cur.cpu and ppid in alive:
            used -= total
    return max(0.0, used) / wall * 100


def average_cpu_percent(rows: list[ProcRow], clock: float) -> float | None:
    """CPU % of one core averaged over the tree's life, as `ps` reports %CPU: the CPU time
    of its processes (reaped children included) over the age of its oldest. For a call
    with no earlier sample, which should not wait a second for a rate; None without age."""
    if not rows:
        return None
    age = clock - min(r.started for r in rows)
    if age <= 0:
        return None
    return sum(r.cpu_s + r.child_cpu_s for r in rows) / age * 100


def job_ports(
    listening: Iterable[tuple[int, Port]], pids: Iterable[int]
) -> list[Port]:  # (pid, port) pairs of every listening socket -> those of these pids
    mine = set(pids)
    return sorted({port for pid, port in listening if pid in mine})


def summarize(
    rows: list[ProcRow], cpu: float | None, listening: Iterable[tuple[int, Port]]
) -> JobUsage:
    return JobUsage(
        cpu_percent=cpu,
        rss_bytes=sum(r.rss for r in rows),
        process_count=len(rows),
        ports=job_ports(listening, (r.pid for r in rows)),
    )


def roots(record: JobRecord, tokens: dict[int, str]) -> JobRoots:
    """The record's sh and shim, each only if it is still the process the record names."""

    def valid(pid: int | None, expected: str | None) -> int | None:
        if not pid or not expected:
            return None  # no token, no proof: a bare pid may be anyone's by now
        return pid if tokens.get(pid) == expected else None

    return JobRoots(
        record.id, valid(record.pid, record.start_token), valid(record.shim_pid, record.shim_token)
    )


class UsageSampler:
    """Samples every running job together; keeps each job's previous tree for its CPU rate.

    `sample` is called only when someone asks; it passes over the process table at most
    once per `interval` (callers in between get the last answer) and never on the loop.
    """

    def __init__(
        self,
        interval: float = SAMPLE_INTERVAL_S,
        scan: Callable[[], Scan] = scan_processes,
        listening: Callable[[Iterable[ProcRow]], list[tuple[int, Port]]] | None = None,
    ) -> None:
        self.interval = interval
        self._scan, self._listening = scan, listening or socket_lookup()
        self._previous: dict[str, TreeSample] = {}
        self._cache: dict[str, JobUsage] = {}
        self._cached_at: float | None = None
        self._lock: Any = None  # an asyncio.Lock, made on first use: short calls never load asyncio

    async def sample(self, records: list[JobRecord]) -> dict[str, JobUsage]:
        import asyncio

        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # callers at the same time share one pass
            fresh = self._cached_at is not None
            if fresh and time.monotonic() - self._cached_at < self.interval:  # type: ignore[operator]
                return dict(self._cache)
            running = [r for r in records if r.running and r.pid]
            self._cache = await asyncio.to_thread(self.sample_now, running)
            self._cached_at = time.monotonic()
            return dict(self._cache)

    def sample_once(self, records: list[JobRecord]) -> dict[str, JobUsage]:
        """One pass for a short call (no rate to keep): CPU averaged over each tree's life."""
        return self.sample_now(records, average=True)

    def sample_now(self, records: list[JobRecord], average: bool = False) -> dict[str, JobUsage]:
        """One pass for all `records` (running jobs), blocking; the CPU rate since the last
        (or, with `average`, over each tree's life)."""
        if not records:
            self._previous.clear()
            return {}
        scan = self._scan()
        wall = time.monotonic()
        trees = group_trees(scan.rows, [roots(r, scan.tokens) for r in records])
        members = [row for tree in trees.values() for row in tree]
        listening = self._listening(members) if members else []
        result: dict[str, JobUsage] = {}
        previous, self._previous = self._previous, {}
        for job_id, tree in trees.items():
            if not tree:
                continue  # not (or no longer) a live process here: nothing to say
            now = tree_sample(tree, wall, scan.now)
            self._previous[job_id] = now
            if average:
                cpu = average_cpu_percent(tree, scan.now)
            else:
                cpu = cpu_percent(previous.get(job_id), now)
            result[job_id] = summarize(tree, cpu, listening)
        return result
