"""`JobManager.strays` / `kill_strays` (issue 27, feature 2) over a real escaped server:
the typed API the doors call. A kill names its pids; one that is not a stray (a running
job's, init, a bad value) is an InvalidArgument naming `pid`, and nothing is killed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.records.results import InvalidArgument
from tests.escaped import alive, escaped, gone

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


async def test_strays_then_a_checked_kill(tmp_path: Path, registry_dir: str):
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    async with JobManager(cwd=str(project / "sub"), registry_dir=registry_dir) as jm:
        job = await jm.start("sleep 30")
        with escaped(project / "sub") as (pid, port):
            found = await jm.strays()
            assert [s.pid for s in found] == [pid]
            assert [p.port for p in found[0].ports] == [port]
            for bad in ([pid, job.pid], [pid, 1], [], [0], [True]):
                with pytest.raises(InvalidArgument) as info:
                    await jm.kill_strays(bad)
                assert info.value.field == "pid"
                assert alive(pid)
            assert jm.get(job.id).running
            (killed,) = await jm.kill_strays([pid, pid])  # named twice: killed once
            assert (killed.pid, killed.processes, killed.escalated) == (pid, 1, False)
            assert gone(pid)
            assert await jm.strays() == []
        await jm.kill(job.id, "SIGKILL")
