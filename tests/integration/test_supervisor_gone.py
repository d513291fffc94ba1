"""A shim killed with kill -9 takes its job's whole tree; records never steer a kill elsewhere."""

from __future__ import annotations

import os
import signal
import time

from jobs_tui.engine import JobManager
from jobs_tui.engine.format import outcome
from jobs_tui.engine.model import JobStatus

from .helpers import gone, tree, until

# A child in the job's group and a grandchild that left it with setsid.
ESCAPING = "(setsid sh -c 'sleep 300' &); sleep 300 & sleep 300"


async def _tree(shim_pid: int, at_least: int) -> list[int]:
    assert await until(lambda: len(tree(shim_pid)) >= at_least, 10)
    return tree(shim_pid)


async def test_shim_killed_takes_the_whole_tree_for_a_live_session(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start(ESCAPING)
        pids = await _tree(rec.shim_pid, 4)
        assert any(os.getsid(p) != rec.pid for p in pids), "one process should have left"
        os.kill(rec.shim_pid, signal.SIGKILL)
        assert await until(lambda: all(gone(p) for p in pids), 3), [p for p in pids if not gone(p)]
        assert await until(lambda: not jm.get(rec.id).running, 3)
        settled = jm.get(rec.id)
        assert (settled.status, settled.end_reason) == (JobStatus.KILLED, "shim-gone")
        assert "supervisor gone" in outcome(settled, time.time() * 1000)


async def test_shim_killed_takes_the_whole_tree_at_the_next_command_line_call(
    registry_dir: str,
):
    async with JobManager(registry_dir=registry_dir, session_id="cli", persistent=True) as jm:
        rec = await jm.start(ESCAPING)
        pids = await _tree(rec.shim_pid, 4)
    os.kill(rec.shim_pid, signal.SIGKILL)
    # The group leader dies with its shim at once (PR_SET_PDEATHSIG)...
    assert await until(lambda: gone(rec.pid), 3)
    async with JobManager(registry_dir=registry_dir, session_id="cli", persistent=True) as jm:
        # ...and the next call of the session sweeps the rest, whoever adopted it.
        assert all(gone(p) for p in pids) or await until(lambda: all(gone(p) for p in pids), 1)
        settled = jm.get(rec.id)
        assert (settled.status, settled.end_reason) == (JobStatus.KILLED, "shim-gone")
