"""Issue 22, section 3: a kill leaves no process of the job's tree, however it forks."""

from __future__ import annotations

import pytest

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.records.model import JobStatus

from .helpers import until
from .leaks import RESPAWN, kill_all, marked


async def _respawn_then_kill(registry_dir: str, rounds: int, cgroup: bool) -> list[int]:
    """Start the respawning job `rounds` times, kill it: the survivors of every kill."""
    survivors: list[int] = []
    config = Config(kill_grace_ms=300)
    async with JobManager(registry_dir=registry_dir, config=config) as jm:
        for _ in range(rounds):
            rec = await jm.start(RESPAWN)
            assert (rec.cgroup is not None) is cgroup  # cgroup v2 is writable on our CI
            assert await until(lambda rec=rec: len(marked(registry_dir, rec.id)) >= 20, 20)
            result = await jm.kill(rec.id, "SIGTERM")
            assert result.job.status is JobStatus.KILLED
            left = marked(registry_dir, rec.id)  # at once: the kill is reported when none is
            survivors += left
            kill_all(left)
    return survivors


# With the job's own cgroup (where the kernel lets us make one) and without: the tree
# sweep alone (every group, SIGKILL rounds until the subreaper has none left) suffices.
WAYS = [pytest.param("cgroup", id="cgroup"), pytest.param("1", id="no-cgroup")]


@pytest.mark.parametrize("no_cgroup", WAYS)
async def test_kill_of_a_respawning_tree_leaves_nothing(
    registry_dir: str, no_cgroup: str, monkeypatch: pytest.MonkeyPatch
):
    if no_cgroup == "1":
        monkeypatch.setenv("JOBS_TUI_NO_CGROUP", "1")
    survivors = await _respawn_then_kill(registry_dir, 3, no_cgroup != "1")
    assert survivors == []


@pytest.mark.slow
@pytest.mark.parametrize("no_cgroup", WAYS)
@pytest.mark.parametrize("run", range(10))
async def test_kill_of_a_respawning_tree_leaves_nothing_10_of_10(
    registry_dir: str, run: int, no_cgroup: str, monkeypatch: pytest.MonkeyPatch
):
    if no_cgroup == "1":
        monkeypatch.setenv("JOBS_TUI_NO_CGROUP", "1")
    survivors = await _respawn_then_kill(registry_dir, 10, no_cgroup != "1")
    assert survivors == []
