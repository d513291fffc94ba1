"""Take-over: after `kill` of a peer's job or `adopt`, exactly one session owns the record."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jobs_tui.engine import JobManager, UnknownJob
from jobs_tui.engine.registry.paths import RegistryPaths

from .helpers import gone, until

CLI = [sys.executable, "-m", "jobs_tui.app.cli"]


def cli(registry_dir: str, *words: str, session: str = "cli") -> subprocess.CompletedProcess:
    env = dict(os.environ, JOBS_TUI_REGISTRY_DIR=registry_dir, JOBS_TUI_SESSION=session)
    return subprocess.run(
        [*CLI, *words], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def holders(registry_dir: str, job_id: str) -> dict[str, dict]:
    """sessionId of each registry file that holds `job_id` -> its entry."""
    found = {}
    for name in os.listdir(registry_dir):
        if name.startswith("registry-") and name.endswith(".json"):
            data = json.loads(Path(registry_dir, name).read_text())
            for entry in data["jobs"]:
                if entry["id"] == job_id:
                    found[data["sessionId"]] = entry
    return found


async def view(registry_dir: str, session: str, job_id: str):
    """What a command-line call of `session` sees: (own?, owner) or None if unknown."""
    jm = JobManager(registry_dir=registry_dir, session_id=session, persistent=True)
    await jm.open()
    try:
        record = jm.get(job_id)
        return jm.is_own(record), record.session_id, record.status.value
    except UnknownJob:
        return None
    finally:
        await jm.close()


def start_cli_job(registry_dir: str) -> tuple[str, int]:
    started = cli(registry_dir, "start", "--", "sleep", "300")
    assert started.returncode == 0, started.stderr
    path = RegistryPaths(registry_dir).registry_file("cli")
    (job,) = json.loads(path.read_text())["jobs"]
    return job["id"], job["pid"]


async def test_kill_of_a_cli_sessions_job_from_another_session_moves_the_record(registry_dir):
    job_id, pid = start_cli_job(registry_dir)
    try:
        killed = cli(registry_dir, "kill", job_id, session="B")
        assert killed.returncode == 0, killed.stderr
        assert list(holders(registry_dir, job_id)) == ["B"]
        assert holders(registry_dir, job_id)["B"]["takenFrom"] == "cli"
        assert await view(registry_dir, "cli", job_id) == (False, "B", "killed")
        assert await view(registry_dir, "B", job_id) == (True, "B", "killed")
        refused = cli(registry_dir, "clear", job_id)  # the old owner may no longer clear it
        assert refused.returncode == 4, refused.stderr
        cleared = cli(registry_dir, "clear", job_id, session="B")
        assert cleared.returncode == 0, cleared.stderr
        assert holders(registry_dir, job_id) == {}
        for session in ("cli", "B", "third"):
            assert await view(registry_dir, session, job_id) is None
    finally:
        if not gone(pid):
            os.kill(pid, 9)


async def test_adopt_of_a_cli_sessions_job_leaves_one_owner_and_no_ghost(registry_dir):
    job_id, pid = start_cli_job(registry_dir)
    try:
        async with JobManager(registry_dir=registry_dir) as screen:
            record = await screen.adopt(job_id)
            assert screen.is_own(record) and record.running
            assert list(holders(registry_dir, job_id)) == [screen.session_id]
            assert await view(registry_dir, "cli", job_id) == (False, screen.session_id, "running")
            await screen.kill(job_id)
            assert [r.id for r in await screen.clear(job_id)] == [job_id]
            assert holders(registry_dir, job_id) == {}
        assert await view(registry_dir, "cli", job_id) is None
        assert await view(registry_dir, "third", job_id) is None
        assert gone(pid)
    finally:
        if not gone(pid):
            os.kill(pid, 9)


OLD_OWNER = textwrap.dedent(
    """
    import asyncio, json, sys
    from jobs_tui.engine import JobManager
    async def main():
        jm = JobManager(registry_dir=sys.argv[1])
        await jm.open()
        rec = await jm.start("sleep 300")
        print(json.dumps({"session": jm.session_id, "id": rec.id, "pid": rec.pid}), flush=True)
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if line.strip() != "report":
                break
            await jm.list()
            peers = {r.id: r.session_id for r in jm.jobs() if not jm.is_own(r)}
            own = [r.id for r in jm.jobs(include_peers=False)]
            print(json.dumps({"own": own, "links": jm.supervisor.linked_ids(), "peers": peers}),
                  flush=True)
        await jm.close()
        print("closed", flush=True)
    asyncio.run(main())
    """
)


async def test_a_live_old_owner_lets_go_of_a_taken_job_and_leaves_it_running(registry_dir):
    old = subprocess.Popen(
        [sys.executable, "-c", OLD_OWNER, registry_dir],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    pid = None
    try:
        info = json.loads(await asyncio.to_thread(old.stdout.readline))
        job_id, pid = info["id"], info["pid"]
        async with JobManager(registry_dir=registry_dir) as taker:
            await taker.adopt(job_id)
            assert list(holders(registry_dir, job_id)) == [taker.session_id]

            def report() -> dict:
                old.stdin.write("report\n")
                old.stdin.flush()
                return json.loads(old.stdout.readline())

            seen: list[dict] = []

            async def let_go() -> bool:
                seen.append(await asyncio.to_thread(report))
                await asyncio.sleep(0.2)
                return seen[-1]["own"] == [] and seen[-1]["links"] == []

            for _ in range(25):
                if await let_go():
                    break
            assert seen[-1] == {"own": [], "links": [], "peers": {job_id: taker.session_id}}
            old.stdin.write("exit\n")
            old.stdin.flush()
            assert await asyncio.to_thread(old.stdout.readline) == "closed\n"
            old.wait(timeout=30)
            await asyncio.sleep(0.5)
            assert not gone(pid), "the old owner's close killed a job it no longer owns"
            assert jobs_of(registry_dir, info["session"]) in (None, [])
            await taker.kill(job_id)
            assert await until(lambda: gone(pid), 10)
            await taker.clear(job_id)
        assert holders(registry_dir, job_id) == {}
        assert await view(registry_dir, "anyone", job_id) is None
    finally:
        if old.poll() is None:
            old.kill()
            old.wait()
        if pid and not gone(pid):
            os.kill(pid, 9)


def jobs_of(registry_dir: str, session: str) -> list[str] | None:
    path = RegistryPaths(registry_dir).registry_file(session)
    if not path.exists():
        return None
    return [j["id"] for j in json.loads(path.read_text())["jobs"]]


async def test_after_two_take_overs_the_first_owner_sees_the_last_one(registry_dir):
    async with (
        JobManager(registry_dir=registry_dir) as first,
        JobManager(registry_dir=registry_dir) as second,
        JobManager(registry_dir=registry_dir) as third,
    ):
        job = await first.start("sleep 300")
        await second.list()
        await second.adopt(job.id)
        await third.list()
        await third.adopt(job.id)
        assert list(holders(registry_dir, job.id)) == [third.session_id]
        for session in (first, second):
            session.registry.refresh_peers(0, force=True)
            seen = session.get(job.id)
            assert not session.is_own(seen) and seen.session_id == third.session_id
        await third.kill(job.id)
        await third.clear(job.id)
        for session in (first, second, third):
            session.registry.refresh_peers(0, force=True)
            with pytest.raises(UnknownJob):
                session.get(job.id)
