"""Sessions sharing one registry: peers, adoption of dead sessions, shutdown, ownership rules."""

from __future__ import annotations

import json
import os
import signal

import pytest

from jobs_tui.engine import Config, JobManager, Refused
from jobs_tui.engine.records.model import JobStatus
from jobs_tui.engine.session import starting
from jobs_tui.engine.shim.protocol import ENV_OWNER_POLL
from jobs_tui.engine.tools import JobTools

from .helpers import gone, until
from .sessions import SessionProcess


async def test_detached_job_of_a_killed_session_is_adopted_and_fully_controllable(
    registry_dir: str, session_procs
):
    job = {"command": "cat; exit 7", "stdin": True, "detached": True, "label": "feeder"}
    other = SessionProcess(registry_dir, [job])
    session_procs.append(other)
    info = await other.started()
    other.kill(signal.SIGKILL)
    (started,) = info["jobs"]
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = jm.get(started["id"])
        assert jm.is_own(rec) and rec.running and rec.label == "feeder"
        files = [n for n in os.listdir(registry_dir) if n.startswith("registry-")]
        assert files == [jm.paths.registry_file(jm.session_id).name]
        await jm.send(rec.id, "fed after adoption", eof=True)
        rec = await jm.wait(rec.id, 10_000)
        assert rec.status is JobStatus.FAILED and rec.exit_code == 7
        assert (await jm.logs(rec.id)).text == "fed after adoption\n"


async def test_non_detached_job_of_a_live_peer_is_shown_and_left_alone(
    registry_dir: str, session_procs
):
    other = SessionProcess(registry_dir, [{"command": "sleep 300", "stdin": True}])
    session_procs.append(other)
    info = await other.started()
    (started,) = info["jobs"]
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = jm.get(started["id"])
        assert not jm.is_own(rec) and rec.running and rec.session_id == info["session"]
        listed = await JobTools(jm).call({"action": "list"})
        assert [j["id"] for j in listed["jobs"]] == [rec.id]
        assert listed["sessionId"] == jm.session_id != listed["jobs"][0]["sessionId"]
        with pytest.raises(Refused, match="another session's job"):
            await jm.send(rec.id, "x")
        with pytest.raises(Refused, match="another session's job; not cleared"):
            await jm.clear(rec.id)
        assert jm.pending_reports() == []
        killed = await JobTools(jm).call({"action": "kill", "id": rec.id})
        assert killed["adopted"] is True and killed["job"]["status"] == "killed"
        assert killed["job"]["sessionId"] == jm.session_id
    assert gone(started["pid"])


async def test_peer_job_finish_is_visible_without_writing_the_peers_file(
    registry_dir: str, session_procs
):
    other = SessionProcess(registry_dir, [{"command": "sleep 0.5; exit 3"}])
    session_procs.append(other)
    info = await other.started()
    (started,) = info["jobs"]
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.wait(started["id"], 10_000)
        assert rec.status is JobStatus.FAILED and rec.exit_code == 3
        assert not jm.is_own(rec)
        own_file = json.loads(jm.paths.registry_file(jm.session_id).read_text())
        assert own_file["jobs"] == []


async def test_sigterm_to_a_session_with_handlers_closes_it_cleanly(
    registry_dir: str, session_procs
):
    other = SessionProcess(registry_dir, [{"command": "sleep 300"}], handlers=True)
    session_procs.append(other)
    info = await other.started()
    other.kill(signal.SIGTERM)
    assert other.proc.returncode == -signal.SIGTERM
    (started,) = info["jobs"]
    assert gone(started["pid"])
    from jobs_tui.engine.registry.paths import RegistryPaths

    paths = RegistryPaths(registry_dir)
    written = json.loads(paths.registry_file(info["session"]).read_text())
    assert written["jobs"][0]["status"] == "killed"
    assert not paths.marker_file(info["session"]).exists()


async def test_a_second_session_counts_and_reports_only_its_own(registry_dir: str):
    async with (
        JobManager(registry_dir=registry_dir) as a,
        JobManager(registry_dir=registry_dir) as b,
    ):
        failed = await a.wait((await a.start("exit 1")).id, 10_000)
        mine = await b.start("exit 2")
        assert await until(lambda: not b.registry.get(mine.id).running, 10)
        assert failed.id != mine.id
        await b.list()
        assert {r.id for r in b.jobs()} == {failed.id, mine.id}
        assert [r.id for r in b.pending_reports()] == [mine.id]
        assert [r.id for r in b.take_reports()] == [mine.id]
        assert b.pending_reports() == []
        cleared = await b.clear()
        assert [r.id for r in cleared] == [mine.id]
        assert a.registry.get(failed.id) is not None


async def test_windows_refuses_detached_with_the_alternatives(registry_dir, monkeypatch):
    monkeypatch.setattr(starting, "WINDOWS", True)
    async with JobManager(registry_dir=registry_dir, config=Config(detached_by_default=True)) as jm:
        details = await JobTools(jm).call({"action": "start", "command": "true", "detached": True})
        assert "detached=false" in details["error"] and "WSL" in details["error"]
        assert "subagent" in details["error"]
        assert jm.jobs() == []
        rec = await jm.start("true")  # detached_by_default is inert there
        assert rec.detached is False


def _pidfds(pid: int) -> int:
    """How many pidfds process `pid` holds."""
    fds = os.listdir(f"/proc/{pid}/fd")
    return sum(_readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:[pidfd]" for fd in fds)


def _readlink(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


@pytest.mark.parametrize("watch", ["pidfd", "poll"])
async def test_session_killed_with_sigkill_leaves_no_attached_job_behind(
    registry_dir: str, session_procs, monkeypatch, watch: str
):
    # "poll": the shim polls its owner, as where pidfd_open is missing (macOS).
    if watch == "poll":
        monkeypatch.setenv(ENV_OWNER_POLL, "1")
    jobs = [{"command": "sleep 300"}, {"command": "trap '' TERM; sleep 300"}]
    other = SessionProcess(registry_dir, jobs)
    session_procs.append(other)
    info = await other.started()
    if hasattr(os, "pidfd_open"):
        shims = [j["shim"] for j in info["jobs"]]
        assert [_pidfds(shim) for shim in shims] == [1 if watch == "pidfd" else 0] * 2
    other.kill(signal.SIGKILL)
    pids = [j["pid"] for j in info["jobs"]]
    assert await until(lambda: all(gone(p) for p in pids), 2.5)
    async with JobManager(registry_dir=registry_dir) as jm:
        for job in info["jobs"]:
            rec = jm.get(job["id"])
            assert jm.is_own(rec)
            assert rec.status is JobStatus.KILLED and rec.end_reason == "owner-gone"
