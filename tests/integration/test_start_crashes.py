"""Whatever happens to the caller during `start`, no job escapes its supervision or its record.

A non-detached job either never starts or is supervised and dies with its owner; a
detached (or command-line) job is recorded before its shim exists and is reattached
through its socket by the next session.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.records.model import JobStatus
from jobs_tui.engine.registry.paths import RegistryPaths
from jobs_tui.engine.session.launch import shim_command
from jobs_tui.engine.shim import procs

from .helpers import gone, poll, until

# A job whose tree has a grandchild that left its group with setsid.
ESCAPING = "(setsid sh -c 'sleep 300' &); sleep 300"


def _spec(paths: RegistryPaths, job_id: str, owner: int | None) -> dict:
    return {
        "id": job_id,
        "command": ESCAPING,
        "cwd": "/",
        "log": str(paths.log(job_id)),
        "previous": str(paths.log(job_id)) + ".1",
        "status": str(paths.status(job_id)),
        "end": str(paths.end(job_id)),
        "socket": str(paths.socket(job_id)),
        "maxLogBytes": 0,
        "killGraceMs": 500,
        "timeoutMs": None,
        "stdin": False,
        "tty": False,
        "cols": 80,
        "rows": 24,
        "ownerPid": owner,
        "ownerToken": procs.start_token(owner) if owner else None,
        "marker": procs.job_marker(paths.root, job_id),
    }


def _launch_with_reader_closed(spec: dict) -> None:
    """Start a shim whose caller is gone before it reports ready: its ready write fails."""
    ready_r, ready_w = os.pipe()
    os.close(ready_r)
    proc = subprocess.Popen(
        shim_command(json.dumps({**spec, "readyFd": ready_w})),
        pass_fds=(ready_w,),
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(ready_w)
    proc.wait()


@pytest.fixture
def paths(registry_dir: str) -> RegistryPaths:
    os.makedirs(registry_dir, mode=0o700)
    return RegistryPaths(registry_dir)


async def _job_tree(marker: str, at_least: int) -> list[int]:
    assert await until(lambda: len(procs.marked_processes(marker)) >= at_least, 10)
    return procs.marked_processes(marker)


async def test_a_failed_ready_write_leaves_the_job_supervised_and_reachable(paths):
    spec = _spec(paths, "j1", owner=None)
    _launch_with_reader_closed(spec)
    pids = await _job_tree(spec["marker"], 3)
    await asyncio.sleep(0.3)
    assert not any(gone(p) for p in pids), "the shim gave up on the job when its caller left"
    reader, writer = await asyncio.open_unix_connection(spec["socket"])
    writer.write(b'{"op": "state"}\n')
    state = json.loads(await asyncio.wait_for(reader.readline(), 5))
    assert state["running"] and state["pid"] in pids and state["shimPid"]
    writer.write(b'{"op": "kill", "signal": "SIGKILL"}\n')
    await writer.drain()
    assert await until(lambda: all(gone(p) for p in pids), 5)
    writer.close()


async def test_a_failed_ready_write_still_watches_the_owner(paths):
    owner = subprocess.Popen(["sleep", "60"])
    try:
        spec = _spec(paths, "j1", owner=owner.pid)
        _launch_with_reader_closed(spec)
        pids = await _job_tree(spec["marker"], 3)
        owner.kill()
        owner.wait()
        assert await until(lambda: all(gone(p) for p in pids), 3), "the job outlived its owner"
    finally:
        owner.kill()
        owner.wait()


async def test_a_dead_owner_means_the_job_never_starts(paths):
    owner = subprocess.Popen(["true"])
    token = procs.start_token(owner.pid)
    owner.wait()
    spec = {**_spec(paths, "j1", owner=None), "ownerPid": owner.pid, "ownerToken": token}
    _launch_with_reader_closed(spec)
    await asyncio.sleep(0.5)
    assert procs.marked_processes(spec["marker"]) == []


# -- the caller killed between the shim's spawn and its ready line --------------------------

CALLER = textwrap.dedent(
    """
    import asyncio, os, signal, subprocess, sys, time
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.session import launch
    real = subprocess.Popen
    def popen_then_die(*args, **kwargs):
        proc = real(*args, **kwargs)
        time.sleep(float(sys.argv[4]))
        os.kill(os.getpid(), signal.SIGKILL)
    launch.subprocess.Popen = popen_then_die
    async def main():
        persistent = sys.argv[3] == "cli"
        jm = JobManager(registry_dir=sys.argv[1], session_id=sys.argv[3] if persistent else None,
                        persistent=persistent)
        await jm.open()
        print("open", flush=True)
        await jm.start(sys.argv[2], detached=sys.argv[3] == "detached")
    asyncio.run(main())
    """
)


def _kill_caller_mid_start(registry_dir: str, kind: str, delay: float) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CALLER, registry_dir, ESCAPING, kind, str(delay)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert "open" in proc.stdout


def _marked(registry_dir: str, job_id: str) -> list[int]:
    return procs.marked_processes(procs.job_marker(RegistryPaths(registry_dir).root, job_id))


@pytest.mark.parametrize("delay", [0.0, 0.3])
async def test_caller_killed_mid_start_non_detached_job_dies_and_is_recorded(
    registry_dir: str, delay: float
):
    _kill_caller_mid_start(registry_dir, "attached", delay)
    assert await until(lambda: not _marked(registry_dir, "j1"), 3), "the job outlived its owner"
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = jm.get("j1")  # recorded before its shim existed: adopted from the dead session
        assert jm.is_own(rec)
        assert await until(lambda: not jm.get("j1").running, 20)
        assert jm.get("j1").status in (JobStatus.KILLED, JobStatus.UNKNOWN)


@pytest.mark.parametrize("kind", ["detached", "cli"])
@pytest.mark.parametrize("delay", [0.0, 0.3])
async def test_caller_killed_mid_start_kept_job_is_recorded_and_reattached(
    registry_dir: str, kind: str, delay: float
):
    _kill_caller_mid_start(registry_dir, kind, delay)
    assert await until(lambda: len(_marked(registry_dir, "j1")) >= 3, 10)
    session = {"session_id": "cli", "persistent": True} if kind == "cli" else {}
    async with JobManager(registry_dir=registry_dir, **session) as jm:
        rec = jm.get("j1")
        assert jm.is_own(rec) and rec.running
        assert rec.pid in _marked(registry_dir, "j1") and rec.shim_pid, "reattached by socket"
        pids = _marked(registry_dir, "j1")
        result = await jm.kill("j1", "SIGKILL")
        assert result.job.status is JobStatus.KILLED
        assert all(gone(p) for p in pids)


def test_a_record_its_starter_never_completed_is_settled_from_its_shims_exit_at_once(tmp_path):
    """The starter's write of the pids was lost (a full disk) but the shim wrote the exit:
    the next reader settles the job from its files, without waiting out the launch window."""
    registry = tmp_path / "reg"
    registry.mkdir(mode=0o700)

    def cli(*args: str) -> dict:
        argv = [sys.executable, "-m", "jobs_tui.app.cli", "--registry-dir", str(registry), *args]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        return json.loads(done.stdout)

    job = cli("start", "--json", "--", "sleep 2; echo bye; exit 3")["job"]
    assert poll(lambda: (registry / f"{job['id']}.status").exists(), 20)
    (path,) = registry.glob("registry-*.json")
    data = json.loads(path.read_text())
    (rec,) = data["jobs"]
    assert rec["status"] == "running", rec  # nobody watched it end
    for key in ("pid", "startToken", "shimPid", "shimToken"):
        rec[key] = None  # as the starter first wrote it, before its shim reported ready
    path.write_text(json.dumps(data))
    got = cli("status", "--json", job["id"])["job"]
    assert (got["status"], got["exitCode"], got["lastLine"]) == ("failed", 3, "bye"), got
