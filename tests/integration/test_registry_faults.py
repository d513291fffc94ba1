"""The registry under faults: corrupt files, hostile paths, stale locks, pid reuse, races."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.records.model import JobStatus
from jobs_tui.engine.registry.paths import RegistryPaths, session_hash
from jobs_tui.engine.tools import JobTools

from .helpers import gone

NOW = int(time.time() * 1000)


def reference_record(job_id: str, directory: str, session: str, **fields) -> dict:
    """A JobRecord as the reference `job` tool writes it (registry-format.md), plus extras."""
    record = {
        "id": job_id,
        "label": f"ref {job_id}",
        "command": "make test",
        "cwd": "/tmp",
        "pid": None,
        "status": "exited",
        "exitCode": 0,
        "signal": None,
        "startedAt": NOW - 5000,
        "finishedAt": NOW - 1000,
        "logPath": os.path.join(directory, f"{job_id}.log"),
        "detached": False,
        "wake": False,
        "sessionId": session,
        "seen": False,
        "lastLine": "ok",
        "refOnlyField": {"keep": [1, 2, 3]},
    }
    record.update(fields)
    return record


def write_session(directory: str, session: str, jobs: list[dict], *, pid: int | None, **extra):
    paths = RegistryPaths(directory)
    Path(directory).mkdir(mode=0o700, parents=True, exist_ok=True)
    data = {"version": 1, "sessionId": session, "counter": len(jobs) + 1, "jobs": jobs, **extra}
    paths.registry_file(session).write_text(json.dumps(data))
    if pid is not None:
        marker = {"sessionId": session, "pid": pid, "updatedAt": int(time.time() * 1000)}
        paths.marker_file(session).write_text(json.dumps(marker))
    return paths


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


async def test_reference_registry_loads_as_peers_then_survives_adoption(registry_dir: str):
    jobs = [
        reference_record("j1", registry_dir, "pi-ref"),
        reference_record("j2", registry_dir, "pi-ref", status="failed", exitCode=2),
    ]
    paths = write_session(registry_dir, "pi-ref", jobs, pid=os.getpid(), agentName="pi")
    async with JobManager(registry_dir=registry_dir) as jm:
        listed = await JobTools(jm).call({"action": "list", "all": True})
        assert {j["id"]: j["sessionId"] for j in listed["jobs"]} == {"j1": "pi-ref", "j2": "pi-ref"}
        assert all(not jm.is_own(r) for r in jm.jobs())
        assert (await jm.start("true")).id == "j3"
    paths.marker_file("pi-ref").unlink()  # the reference session ends
    async with JobManager(registry_dir=registry_dir) as jm:
        assert {r.id for r in jm.jobs(include_peers=False)} >= {"j1", "j2"}
        written = json.loads(jm.paths.registry_file(jm.session_id).read_text())
        by_id = {j["id"]: j for j in written["jobs"]}
        assert by_id["j1"]["refOnlyField"] == {"keep": [1, 2, 3]}
        assert by_id["j2"]["exitCode"] == 2 and by_id["j2"]["sessionId"] == jm.session_id
    assert not paths.registry_file("pi-ref").exists()


async def test_legacy_shared_registry_is_migrated_once(registry_dir: str):
    Path(registry_dir).mkdir(mode=0o700)
    legacy = {"version": 1, "counter": 5, "jobs": [reference_record("j4", registry_dir, "old")]}
    (Path(registry_dir) / "registry.json").write_text(json.dumps(legacy))
    async with JobManager(registry_dir=registry_dir) as jm:
        assert jm.is_own(jm.get("j4"))
        assert not (Path(registry_dir) / "registry.json").exists()
        assert (await jm.start("true")).id == "j5"


async def test_corrupt_registry_file_is_quarantined_in_place(registry_dir: str):
    paths = write_session(
        registry_dir, "healthy", [reference_record("j1", registry_dir, "healthy")], pid=os.getpid()
    )
    bad = paths.registry_file("broken")
    bad.write_text('{"version": 1, "jobs": [')
    async with JobManager(registry_dir=registry_dir) as jm:
        assert not bad.exists()
        kept = [n for n in os.listdir(registry_dir) if n.startswith(bad.name + ".corrupt-")]
        assert len(kept) == 1
        assert (Path(registry_dir) / kept[0]).read_text() == '{"version": 1, "jobs": ['
        assert any("not valid JSON" in p for p in jm.problems)
        assert jm.get("j1").session_id == "healthy"
        assert (await jm.start("true")).id == "j2"


async def test_paths_outside_the_registry_are_never_opened(registry_dir: str, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "j1.status").write_text("0")
    (outside / "j1.log").write_text("secret\n")
    pid = dead_pid()
    record = reference_record(
        "j1",
        registry_dir,
        "evil",
        status="running",
        exitCode=None,
        finishedAt=None,
        pid=pid,
        logPath=str(outside / "j1.log"),
        statusPath=str(outside / "j1.status"),
        socketPath=str(outside / "j1.sock"),
    )
    write_session(registry_dir, "evil", [record], pid=None)
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = jm.get("j1")
        assert rec.status is JobStatus.UNKNOWN  # the outside status file was not believed
        details = await JobTools(jm).call({"action": "logs", "id": "j1"})
        assert "outside the registry directory" in details["error"]
        assert "secret" not in json.dumps(details)


async def test_stale_locks_are_skipped_never_reused(registry_dir: str):
    Path(registry_dir).mkdir(mode=0o700)
    for n in (1, 2):
        (Path(registry_dir) / f"j{n}.lock").write_text("{}")
    async with JobManager(registry_dir=registry_dir) as jm:
        assert (await jm.start("true")).id == "j3"
        assert not (Path(registry_dir) / "j3.lock").exists()


async def test_pid_now_belonging_to_another_process_is_never_signalled(registry_dir: str):
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        record = reference_record(
            "j1",
            registry_dir,
            "gone",
            status="running",
            exitCode=None,
            finishedAt=None,
            pid=bystander.pid,
            startToken="not-the-same-process",
        )
        write_session(registry_dir, "gone", [record], pid=dead_pid())
        async with JobManager(registry_dir=registry_dir) as jm:
            assert jm.get("j1").status is JobStatus.UNKNOWN
            details = await JobTools(jm).call({"action": "kill", "id": "j1", "signal": "SIGKILL"})
            assert details["signalled"] is False
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


WRITER = textwrap.dedent(
    """
    import sys, time
    from jobs_tui.engine.config import Config
    from jobs_tui.engine.records.model import JobRecord, JobStatus
    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.engine.registry.table import Registry
    reg = Registry(RegistryPaths(sys.argv[1]), sys.argv[2], Config())
    n = 0
    while True:
        n += 1
        reg.add(JobRecord(id=f"j{n}", label="x" * (n % 300), command="c", cwd="/", pid=None,
                          status=JobStatus.EXITED, exit_code=0, signal=None, started_at=n,
                          finished_at=n, log_path="/x", detached=False, wake=False,
                          session_id=sys.argv[2]))
        reg.counter = n + 1
        reg.persist()
        if n == 1:
            print("ready", flush=True)
    """
)


def test_kill_9_in_the_middle_of_registry_writes_never_tears_the_file(registry_dir: str):
    Path(registry_dir).mkdir(mode=0o700)
    rng = random.Random(7)
    for attempt in range(25):
        session = f"writer-{attempt}"  # one writer process per session, as in real use
        target = RegistryPaths(registry_dir).registry_file(session)
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, registry_dir, session], stdout=subprocess.PIPE
        )
        assert proc.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.05))
        proc.kill()
        proc.wait()
        data = json.loads(target.read_text())
        assert data["counter"] == len(data["jobs"]) + 1
        assert [j["id"] for j in data["jobs"]] == [f"j{i}" for i in range(1, len(data["jobs"]) + 1)]


ADOPTER = textwrap.dedent(
    """
    import asyncio, json, os, sys, time
    from jobs_tui.engine import JobManager
    async def main():
        directory, go = sys.argv[1], sys.argv[2]
        while not os.path.exists(go):
            time.sleep(0.001)
        jm = JobManager(registry_dir=directory)
        await jm.open()
        own = sorted(r.id for r in jm.jobs(include_peers=False))
        print(json.dumps({"session": jm.session_id, "own": own}), flush=True)
        await asyncio.sleep(2)
        await jm.close()
    asyncio.run(main())
    """
)


@pytest.mark.parametrize("racers", [2, 4])
def test_sessions_racing_to_adopt_a_dead_session_adopt_it_exactly_once(
    registry_dir: str, tmp_path, racers: int
):
    jobs = [reference_record(f"j{n}", registry_dir, "dead") for n in range(1, 11)]
    paths = write_session(registry_dir, "dead", jobs, pid=dead_pid())
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", ADOPTER, registry_dir, str(go)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(racers)
    ]
    time.sleep(0.8)
    go.write_text("go")
    results = [json.loads(p.stdout.readline()) for p in procs]
    for p in procs:
        p.wait(timeout=30)
    winners = [r for r in results if r["own"]]
    assert len(winners) == 1, results
    assert winners[0]["own"] == sorted(f"j{n}" for n in range(1, 11))
    assert not paths.registry_file("dead").exists()
    assert not [n for n in os.listdir(registry_dir) if ".adopting-" in n]


async def test_a_claim_left_by_a_crashed_adopter_is_adopted_by_the_next_session(registry_dir):
    paths = write_session(
        registry_dir, "dead", [reference_record("j1", registry_dir, "dead")], pid=None
    )
    claim = paths.registry_file("dead").with_name(
        paths.registry_file("dead").name + ".adopting-" + session_hash("crashed-adopter")
    )
    os.rename(paths.registry_file("dead"), claim)
    async with JobManager(registry_dir=registry_dir) as jm:
        assert jm.is_own(jm.get("j1"))
    assert not claim.exists()


async def test_killed_supervisor_of_a_dead_sessions_job_settles_truthfully(
    registry_dir: str,
):
    from .sessions import SessionProcess

    other = SessionProcess(registry_dir, [{"command": "sleep 300", "detached": True}])
    try:
        info = await other.started()
        other.kill()
        (job,) = info["jobs"]
        os.kill(job["shim"], 9)
        await asyncio.sleep(0.2)
        async with JobManager(registry_dir=registry_dir) as jm:
            rec = jm.get(job["id"])
            assert rec.status is JobStatus.KILLED and rec.end_reason == "shim-gone"
        assert gone(job["pid"])
    finally:
        other.close()
