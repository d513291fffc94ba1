"""Job ids: unique across every process of every session, never reusing another job's files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.registry.paths import RegistryPaths

STARTER = textwrap.dedent(
    """
    import asyncio, json, os, random, sys, time
    from jobs_tui.engine import Config, JobManager
    COMMAND = "printf '%s-marker' \\"$JOBS_TUI_JOB_ID\\""
    async def main():
        directory, go, count, session = sys.argv[1:5]
        config = Config(max_jobs=500)
        if session:  # one command-line call per start, as `jobs-tui start` runs
            while not os.path.exists(go):
                time.sleep(0.005)
            ids = []
            for _ in range(int(count)):
                jm = JobManager(registry_dir=directory, config=config, session_id=session,
                                persistent=True)
                await jm.open()
                await asyncio.sleep(random.uniform(0, 0.03))  # a call's own work, siblings run
                ids.append((await jm.start(COMMAND)).id)
                await jm.close()
        else:  # one long-lived session
            jm = JobManager(registry_dir=directory, config=config)
            await jm.open()
            while not os.path.exists(go):
                time.sleep(0.005)
            ids = [(await jm.start(COMMAND)).id for _ in range(int(count))]
            for job_id in ids:
                await jm.wait(job_id, 30_000)
            await jm.close(kill_jobs=False)
        print(json.dumps({"ids": ids}), flush=True)
    asyncio.run(main())
    """
)


def _torn_reader(directory: str, stop: threading.Event, torn: list[str], reads: list[int]):
    while not stop.is_set():
        for name in os.listdir(directory):
            if name.startswith("registry-") and name.endswith(".json"):
                try:
                    raw = Path(directory, name).read_bytes()
                except FileNotFoundError:
                    continue
                try:
                    json.loads(raw)
                    reads[0] += 1
                except ValueError:
                    torn.append(name)
        time.sleep(0.05)


def _starter(registry_dir: str, go: Path, count: int, session: str):
    args = [registry_dir, str(go), str(count), session]
    return subprocess.Popen(
        [sys.executable, "-c", STARTER, *args], stdout=subprocess.PIPE, text=True
    )


@pytest.mark.timeout(240)  # up to 400 real starts: the time depends mostly on the load
@pytest.mark.parametrize("starts", [8, pytest.param(25, marks=pytest.mark.slow)])
def test_one_session_in_eight_processes_and_eight_sessions_never_share_an_id(
    registry_dir: str, tmp_path, starts: int
):
    """8 processes of ONE session x `starts`, and 8 sessions x `starts`, all at once (the
    default run: 8 each; `-m slow`: 25 each, 400 ids)."""
    Path(registry_dir).mkdir(mode=0o700)
    go = tmp_path / "go"
    procs = [_starter(registry_dir, go, starts, "cli") for _ in range(8)]
    procs += [_starter(registry_dir, go, starts, "") for _ in range(8)]
    stop, torn, reads = threading.Event(), [], [0]
    reader = threading.Thread(target=_torn_reader, args=(registry_dir, stop, torn, reads))
    time.sleep(1.0)
    reader.start()
    go.write_text("go")
    try:
        outputs = [json.loads(p.communicate(timeout=220)[0]) for p in procs]
    finally:
        stop.set()
        reader.join()
        for p in procs:
            p.kill()
    ids = [i for out in outputs for i in out["ids"]]
    assert len(ids) == 16 * starts
    assert len(set(ids)) == 16 * starts, sorted(i for i in set(ids) if ids.count(i) > 1)
    paths = RegistryPaths(registry_dir)
    deadline = time.monotonic() + 10  # the command-line jobs end after their calls do
    while time.monotonic() < deadline and not all(paths.status(i).exists() for i in ids):
        time.sleep(0.05)
    wrong = {}
    for job_id in ids:
        text = Path(registry_dir, f"{job_id}.log").read_text()
        if text != f"{job_id}-marker":
            wrong[job_id] = text
    assert wrong == {}
    assert torn == [] and reads[0] > 0
    on_disk: list[str] = []
    for name in os.listdir(registry_dir):
        if name.startswith("registry-") and name.endswith(".json"):
            on_disk += [j["id"] for j in json.loads(Path(registry_dir, name).read_text())["jobs"]]
    assert sorted(on_disk) == sorted(ids)


async def test_an_id_whose_files_exist_is_never_reserved(registry_dir: str):
    """A stray log, status, end or base file of an earlier job keeps its number taken."""
    Path(registry_dir).mkdir(mode=0o700)
    paths = RegistryPaths(registry_dir)
    for path in (paths.log("j1"), paths.previous_log("j2"), paths.status("j3")):
        path.write_text("earlier job\n")
    paths.end("j4").write_text("{}")
    paths.log_base("j5").write_text("1 0")
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("printf new")
        assert rec.id == "j6"
        await jm.wait(rec.id, 10_000)
    assert paths.log("j1").read_text() == "earlier job\n"
    assert paths.status("j3").read_text() == "earlier job\n"
    assert paths.log("j6").read_text() == "new"


async def test_a_sibling_process_commit_is_seen_by_a_session_opened_earlier(registry_dir: str):
    """Two processes of one session: the one opened first must not reuse the other's id."""
    first = JobManager(registry_dir=registry_dir, session_id="cli", persistent=True)
    second = JobManager(registry_dir=registry_dir, session_id="cli", persistent=True)
    await first.open()
    await second.open()
    try:
        a = await second.start("printf A")
        await second.wait(a.id, 10_000)
        os.unlink(RegistryPaths(registry_dir).log(a.id))  # only the record tells now
        b = await first.start("printf B")
        await first.wait(b.id, 10_000)
        assert a.id != b.id
    finally:
        await second.close()
        await first.close()
