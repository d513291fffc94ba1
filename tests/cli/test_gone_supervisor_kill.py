"""Issue 22: `kill` of a job whose shim is gone sweeps what is left of it before it settles
anything; with a cgroup, even a process that emptied its environment and left the session."""

from __future__ import annotations

import json
import os
import random
import signal
import time

from jobs_tui.engine.shim import cgroup
from jobs_tui.engine.shim.procs import job_marker
from tests.integration.leaks import kill_all, marked, sleeps_named


def _job(cli, job_id: str = "j1") -> dict:
    return cli.ok("status", job_id, "--json").json()["job"]


def _wait_for(predicate, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.05)
    return predicate()


def _kill_shim(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    assert _wait_for(lambda: not os.path.exists(f"/proc/{pid}"), 5)


def test_kill_after_the_shim_was_killed_sweeps_the_tree(cli):
    cli.ok("start", "--", "sleep 600 & sleep 600 & wait")
    assert len(_wait_for(lambda: marked(cli.registry_dir, "j1")) or []) >= 3
    left = marked(cli.registry_dir, "j1")
    try:
        _kill_shim(_job(cli)["shimPid"])
        killed = cli("kill", "j1")
        assert killed.code == 0, killed
        assert "already finished" not in killed.out + killed.err
        assert marked(cli.registry_dir, "j1") == []
        assert _job(cli)["status"] == "killed"
    finally:
        kill_all(left)


def test_kill_of_a_record_without_pids_sweeps_its_marked_processes(cli):
    """A record whose pids were never written (or lost) and whose shim died: the kill finds
    the job's processes by their marker, it does not just call it unknown."""
    cli.ok("start", "--", "sleep 600 & sleep 600 & wait")
    assert len(_wait_for(lambda: marked(cli.registry_dir, "j1")) or []) >= 3
    left = marked(cli.registry_dir, "j1")
    try:
        shim = _job(cli)["shimPid"]
        _kill_shim(shim)
        [name] = [n for n in os.listdir(cli.registry_dir) if n.startswith("registry-")]
        path = os.path.join(cli.registry_dir, name)
        with open(path) as fh:
            data = json.load(fh)
        for job in data["jobs"]:
            job.update(pid=None, shimPid=None, startToken=None, shimToken=None)
        with open(path, "w") as fh:
            json.dump(data, fh)
        cli("kill", "j1")
        assert marked(cli.registry_dir, "j1") == []
    finally:
        kill_all(left)


def test_an_escapee_without_environment_is_killed_by_its_cgroup(cli):
    seconds = 2001 + random.randrange(1000) / 1000  # one test's sleep, not another's
    cli.ok("start", "--", f'setsid sh -c "exec env -i sleep {seconds}" & sleep 2004')
    [escapee] = _wait_for(lambda: sleeps_named(f"sleep {seconds}"))
    try:
        job = _job(cli)
        assert job["cgroup"] and cgroup.holds(job["cgroup"], escapee)
        assert escapee not in marked(cli.registry_dir, "j1")  # the marker sweep misses it
        _kill_shim(job["shimPid"])
        assert cli("kill", "j1").code == 0
        assert sleeps_named(f"sleep {seconds}") == []
        assert not os.path.exists(job["cgroup"])
    finally:
        kill_all([escapee])


def test_without_a_cgroup_jobs_still_run_and_the_tree_is_still_swept(cli):
    env = {"JOBS_TUI_NO_CGROUP": "1"}
    cli.ok("start", "--", "sleep 600 & sleep 600 & wait", env=env)
    assert len(_wait_for(lambda: marked(cli.registry_dir, "j1")) or []) >= 3
    left = marked(cli.registry_dir, "j1")
    try:
        assert "cgroup" not in _job(cli)
        prefix = f"{cgroup.PREFIX}{job_marker(cli.registry_dir, 'j1').replace(':', '-')}-"
        base = cgroup.own_dir()
        assert base is None or not [n for n in os.listdir(base) if n.startswith(prefix)]
        assert cli("kill", "j1", env=env).code == 0
        assert marked(cli.registry_dir, "j1") == []
    finally:
        kill_all(left)
