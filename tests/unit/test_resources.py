"""The pure rules of `engine/procs/resources.py` over plain rows: trees, CPU deltas, ports,
the line."""

from __future__ import annotations

import asyncio

import pytest

from jobs_tui.engine.procs.proctable import Port, ProcRow, Scan
from jobs_tui.engine.procs.resources import (
    JobRoots,
    JobUsage,
    TreeSample,
    UsageSampler,
    average_cpu_percent,
    cpu_percent,
    group_trees,
    job_ports,
    roots,
)
from jobs_tui.engine.records.format import memory, usage_line
from jobs_tui.engine.records.model import JobRecord, JobStatus

pytestmark = pytest.mark.timeout(30)


def row(pid, ppid, pgid=None, sid=None, started=1.0, cpu=0.0, child=0.0, rss=0) -> ProcRow:
    pgid = pid if pgid is None else pgid
    return ProcRow(pid, ppid, pgid, pgid if sid is None else sid, started, cpu, child, rss)


# A machine: init 1, an unrelated shell 50 (with child 51), job A's shim 100 -> sh 101 ->
# 102 -> 103, an orphan 104 of A re-parented to its shim, a setsid daemon 105 of A orphaned
# to its shim, 106 that kept A's group but hangs under init; job B's shim 200 -> sh 201.
TABLE = [
    row(1, 0),
    row(50, 1),
    row(51, 50, pgid=50),
    row(100, 1),
    row(101, 100),
    row(102, 101, pgid=101),
    row(103, 102, pgid=101),
    row(104, 100, pgid=101),
    row(105, 100, pgid=105, sid=105),
    row(106, 1, pgid=101, sid=101),
    row(200, 1),
    row(201, 200),
]


def pids(rows: list[ProcRow]) -> list[int]:
    return sorted(r.pid for r in rows)


def test_a_tree_is_the_shims_descendants_and_whoever_keeps_the_group():
    trees = group_trees(TABLE, [JobRoots("j1", 101, 100), JobRoots("j2", 201, 200)])
    assert pids(trees["j1"]) == [101, 102, 103, 104, 105, 106]  # never the shim, never 50/51
    assert pids(trees["j2"]) == [201]


def test_without_a_live_shim_the_walk_starts_at_sh_and_orphans_count_by_group():
    (tree,) = group_trees(TABLE, [JobRoots("j1", 101, None)]).values()
    assert pids(tree) == [101, 102, 103, 104, 106]  # 105 kept neither group nor session


def test_a_job_started_by_a_job_is_its_own_and_counts_once():
    # j2's shim re-parented to j1's shim (a subreaper): j1 must not swallow it.
    table = [*TABLE[:-2], row(200, 100), row(201, 200)]
    trees = group_trees(table, [JobRoots("j1", 101, 100), JobRoots("j2", 201, 200)])
    assert pids(trees["j1"]) == [101, 102, 103, 104, 105, 106]
    assert pids(trees["j2"]) == [201]


def test_a_root_that_is_not_the_jobs_process_gives_an_empty_tree():
    assert group_trees(TABLE, [JobRoots("j1", None, None)]) == {"j1": []}
    assert group_trees(TABLE, [JobRoots("j9", 999, 998)]) == {"j9": []}


def test_roots_trust_a_pid_only_with_its_start_token():
    record = JobRecord(
        "j1", "l", "c", "/", 101, JobStatus.RUNNING, None, None, 0, None, "/x", False, False, "s"
    )
    record.start_token, record.shim_pid, record.shim_token = "b:7", 100, "b:5"
    assert roots(record, {101: "b:7", 100: "b:5"}) == JobRoots("j1", 101, 100)
    assert roots(record, {101: "b:8", 100: "b:5"}) == JobRoots("j1", None, 100)  # reused pid
    record.start_token = None  # no token, no proof
    assert roots(record, {101: "b:7"}).pid is None


def sample(wall, clock, procs: dict[tuple[int, float], tuple[int, float]]) -> TreeSample:
    return TreeSample(wall, clock, procs)


def test_cpu_is_none_on_the_first_sample_and_the_delta_over_the_wall_after():
    first = sample(10.0, 100.0, {(1, 1.0): (0, 5.0), (2, 1.0): (1, 1.0)})
    assert cpu_percent(None, first) is None
    second = sample(12.0, 102.0, {(1, 1.0): (0, 6.0), (2, 1.0): (1, 1.5)})
    assert cpu_percent(first, second) == pytest.approx(75.0)  # 1.5 s of CPU over 2 s
    assert cpu_percent(first, first) is None  # no wall time between


def test_average_cpu_is_the_trees_time_over_its_age_as_ps_reports_it():
    # shim born at 100, sh at 100.5 (with 2 s reaped from children), a child born at 104
    tree = [row(1, 0, started=100.0, cpu=0.5), row(2, 1, started=100.5, cpu=1.0, child=2.0)]
    tree.append(row(3, 2, started=104.0, cpu=1.5))
    assert average_cpu_percent(tree, 110.0) == pytest.approx(50.0)  # 5 s over 10 s
    assert average_cpu_percent([row(1, 0, started=100.0, cpu=0.0)], 160.0) == 0.0
    assert average_cpu_percent(tree, 100.0) is None  # no age yet: no rate
    assert average_cpu_percent([], 110.0) is None


def test_cpu_of_a_reused_pid_is_not_a_delta_of_the_old_process():
    first = sample(10.0, 100.0, {(7, 1.0): (0, 500.0)})
    # pid 7 now names a process born at 99 (before the first sample): not the job's history
    second = sample(11.0, 101.0, {(7, 99.0): (0, 3.0)})
    assert cpu_percent(first, second) == 0.0
    born_since = sample(11.0, 101.0, {(7, 100.5): (0, 0.25)})
    assert cpu_percent(first, born_since) == pytest.approx(25.0)


def test_cpu_of_a_child_reaped_between_samples_counts_once():
    # child 2 had used 1.0 s; it used 0.5 s more, died, and its parent reaped it (2.0 now).
    first = sample(10.0, 100.0, {(1, 1.0): (0, 0.5), (2, 1.0): (1, 1.0)})
    second = sample(11.0, 101.0, {(1, 1.0): (0, 0.5 + 1.5)})
    assert cpu_percent(first, second) == pytest.approx(50.0)
    # a short-lived child born and reaped between samples counts through its parent
    third = sample(12.0, 102.0, {(1, 1.0): (0, 2.0 + 0.3)})
    assert cpu_percent(second, third) == pytest.approx(30.0)
    # reaped by someone outside the tree (its parent gone): nothing to add, never negative
    lost = sample(11.0, 101.0, {(3, 50.0): (0, 0.0)})
    assert cpu_percent(first, lost) == 0.0


def test_ports_are_those_of_the_trees_pids_sorted_once():
    listening = [(5, Port(8080)), (6, Port(53, "udp")), (5, Port(8080)), (9, Port(22))]
    assert job_ports(listening, [5, 6]) == [Port(53, "udp"), Port(8080)]
    assert job_ports(listening, [7]) == []


def test_usage_json_names_and_the_detail_line():
    usage = JobUsage(12.34, 85 * 1024 * 1024, 3, [Port(5173)])
    assert usage.to_json() == {
        "cpuPercent": 12.3,
        "rssBytes": 85 * 1024 * 1024,
        "processCount": 3,
        "ports": [{"port": 5173, "proto": "tcp"}],
    }
    assert usage_line(usage) == "cpu 12% · mem 85 MiB · 3 procs · listening :5173"
    quiet = JobUsage(None, 640 * 1024, 1, [Port(5173), Port(53, "udp")])
    assert usage_line(quiet) == "cpu – · mem 640 KiB · 1 proc · listening :5173 :53/udp"
    assert memory(3 * 1024**3 // 2) == "1.5 GiB"


def test_the_sampler_passes_at_most_once_an_interval_and_forgets_gone_jobs():
    passes: list[int] = []

    def scan() -> Scan:
        passes.append(1)
        clock = float(len(passes))
        return Scan([row(100, 1), row(101, 100, cpu=clock)], clock, {100: "t0", 101: "t1"})

    record = JobRecord(
        "j1", "l", "c", "/", 101, JobStatus.RUNNING, None, None, 0, None, "/x", False, False, "s"
    )
    record.start_token, record.shim_pid, record.shim_token = "t1", 100, "t0"

    async def run() -> None:
        sampler = UsageSampler(interval=60.0, scan=scan, listening=lambda pids: [])
        first = await sampler.sample([record])
        again = await sampler.sample([record])
        assert len(passes) == 1 and first == again
        assert first["j1"].process_count == 1 and first["j1"].cpu_percent is None
        sampler.interval = 0.0
        second = await sampler.sample([record])
        assert len(passes) == 2 and second["j1"].cpu_percent is not None
        record.status = JobStatus.EXITED  # a finished job reports nothing
        assert await sampler.sample([record]) == {}

    asyncio.run(run())
