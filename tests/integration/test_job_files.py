"""Issue 22: `clear` and the next session's sweep leave no file of a job that is gone."""

from __future__ import annotations

import os
import signal
import time

from jobs_tui.engine import Config, JobManager

from .helpers import gone, until

OLD = time.time() - 3600


def _files_of(registry_dir: str, ids: list[str]) -> list[str]:
    names = os.listdir(registry_dir)
    return sorted(n for n in names for i in ids if n.startswith(f"{i}.") or n.startswith(f".{i}."))


async def test_clear_removes_every_file_of_killed_jobs(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, config=Config(kill_grace_ms=200)) as jm:
        a = await jm.start("sleep 60")
        b = await jm.start("sleep 60")
        c = await jm.start("echo done")
        await jm.kill(a.id, "SIGTERM")
        os.kill(b.shim_pid, signal.SIGKILL)  # a killed shim leaves its socket behind
        assert await until(lambda: gone(b.shim_pid) and not jm.get(b.id).running, 10)
        await jm.wait(c.id, 10_000)
        # what a shim killed in the middle of writing its exit files leaves
        for name in (f"{c.id}.status.99999.tmp", f"{c.id}.end.99999.tmp"):
            with open(os.path.join(registry_dir, name), "w") as fh:
                fh.write("0")
        assert os.path.exists(jm.paths.socket(b.id))
        await jm.clear(all=True)
    assert _files_of(registry_dir, [a.id, b.id, c.id]) == []
    assert not os.path.exists(jm.paths.socket(b.id))


def _plant(registry_dir: str, names: list[str], mtime: float) -> None:
    for name in names:
        path = os.path.join(registry_dir, name)
        with open(path, "w") as fh:
            fh.write("x")
        os.utime(path, (mtime, mtime))


async def test_the_next_session_sweeps_files_of_jobs_no_record_holds(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        kept = await jm.wait((await jm.start("echo kept")).id, 10_000)
    stale = ["j40.sock", "j40.log", "j40.status.123.tmp", "j40.end", "j41.log.1"]
    fresh = ["j42.log"]  # a start of another session may be writing it right now
    _plant(registry_dir, [*stale, f"{kept.id}.status.77.tmp"], OLD)
    _plant(registry_dir, fresh, time.time())
    async with JobManager(registry_dir=registry_dir) as jm:
        assert jm.get(kept.id) is not None
    left = set(os.listdir(registry_dir))
    assert left.isdisjoint(stale) and f"{kept.id}.status.77.tmp" not in left
    assert set(fresh) <= left and f"{kept.id}.log" in left


async def test_the_next_session_removes_empty_cgroups_of_dead_shims(registry_dir: str):
    from jobs_tui.engine.shim import cgroup
    from jobs_tui.engine.shim.procs import job_marker

    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("sleep 0.1")
        await jm.wait(rec.id, 10_000)
    digest = job_marker(registry_dir, "j0").split(":")[0]
    stale = cgroup.create(f"{cgroup.PREFIX}{digest}-j9-{2**22 + 1}")  # past pid_max: dead
    assert stale is not None, "cgroup v2 with a writable subtree is expected here"
    async with JobManager(registry_dir=registry_dir):
        pass
    assert not os.path.exists(stale)
