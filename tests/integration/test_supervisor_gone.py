"""A shim killed with kill -9 takes its job's whole tree; records never steer a kill elsewhere."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.records.format import outcome
from jobs_tui.engine.records.model import JobStatus
from jobs_tui.engine.shim.procs import start_token

from .helpers import gone, tree, until
from .test_registry_faults import dead_pid, reference_record, write_session

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


# -- records never steer a kill at a process that is not their job ------------------------


@pytest.fixture
def bystander():
    """A process of ours, leading its own group, that jobs-tui never started."""
    proc = subprocess.Popen(["sleep", "120"], start_new_session=True)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _planted(registry_dir: str, proc: subprocess.Popen, **fields) -> None:
    record = reference_record(
        "j1",
        registry_dir,
        "planted",
        status="running",
        exitCode=None,
        finishedAt=None,
        pid=proc.pid,
        startToken=start_token(proc.pid),
        **fields,
    )
    write_session(registry_dir, "planted", [record], pid=dead_pid())


@pytest.mark.parametrize(
    "fields",
    [
        {},  # an orphan of a dead session: the orphan kill
        {
            "shimPid": dead_pid(),
            "shimToken": "not-a-shim",
        },  # a dead supervisor: the settle-gone kill
        {"detached": True},  # adopted and reattached: then killed by hand
    ],
)
async def test_a_planted_record_never_signals_an_unrelated_process(
    registry_dir: str, bystander: subprocess.Popen, fields: dict
):
    _planted(registry_dir, bystander, **fields)
    async with JobManager(registry_dir=registry_dir, config=Config(kill_grace_ms=100)) as jm:
        await jm.list()
        if jm.get("j1").running:
            result = await jm.kill("j1", "SIGKILL")
            assert not result.signalled
    time.sleep(0.2)
    assert bystander.poll() is None, "a process that is not a job's tree was signalled"
