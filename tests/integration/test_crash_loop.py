"""The crash loop: 8 callers starting jobs while sessions, shims and callers die by kill -9.

It ends with no live job process outside the registry's records (a running record, or a
finished one whose shim still supervises its leftovers), every file parsing, no id given
twice and no started job without a record. The default run is bounded (15 s of chaos);
`python -m pytest -m slow` runs the long variant (6 rounds of 40 s).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.registry.paths import session_hash
from jobs_tui.engine.registry.store import load_all
from jobs_tui.engine.shim import procs

WORKER = textwrap.dedent(
    """
    import asyncio, json, random, sys
    from jobs_tui.engine import Config, JobManager
    async def main():
        directory, kind, slot, seed, starts = sys.argv[1:6]
        rng = random.Random(int(seed))
        persistent = kind == "cli"
        jm = JobManager(registry_dir=directory, config=Config(max_jobs=500),
                        session_id=f"cli-{slot}" if persistent else None, persistent=persistent)
        await jm.open()
        for _ in range(int(starts)):
            command = rng.choice(["sleep 2", "sleep 1; echo x", "(setsid sleep 3 &); sleep 2"])
            rec = await jm.start(command, detached=kind == "detached")
            print(json.dumps({"id": rec.id, "session": jm.session_id}), flush=True)
        await jm.close()
    asyncio.run(main())
    """
)
KINDS = ("attached", "detached", "cli")


class Worker:
    """A caller process; its printed ids are read as they come, so a kill can aim mid-start."""

    def __init__(self, registry_dir: str, slot: int, rng: random.Random) -> None:
        self.kind = KINDS[slot % len(KINDS)]
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                registry_dir,
                self.kind,
                str(slot),
                str(rng.randrange(1 << 30)),
                "12",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)

    def starting(self) -> bool:
        """Alive and past its first start: it is in the middle of the next one."""
        return self.proc.poll() is None and bool(self.lines)

    def started(self) -> list[dict]:
        self.proc.wait()
        self.reader.join(10)
        return [json.loads(line) for line in self.lines if line.strip()]


def _shims(registry_dir: str) -> list[int]:
    found = []
    for pid in map(int, filter(str.isdigit, os.listdir("/proc"))):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b'"readyFd"' in cmdline and registry_dir.encode() in cmdline:
            found.append(pid)
    return found


def _job_processes(registry_dir: str) -> dict[int, str]:
    """pid -> job id, for every live process carrying a marker of this registry."""
    prefix = procs.job_marker(Path(registry_dir).resolve(), "").encode()
    found = {}
    for pid in map(int, filter(str.isdigit, os.listdir("/proc"))):
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        for entry in env:
            if entry.startswith(b"JOBS_TUI_JOB=" + prefix) and procs.pid_alive(pid):
                found[pid] = entry.split(b":", 1)[1].decode()
    return found


def _enough(kills: dict[str, int], started: list[dict]) -> bool:
    return kills["caller"] >= 5 and kills["shim"] >= 2 and len(started) >= 5


def crash_loop(registry_dir: str, seconds: float, seed: int) -> dict:
    rng = random.Random(seed)
    os.makedirs(registry_dir, mode=0o700)
    workers: dict[int, Worker] = {slot: Worker(registry_dir, slot, rng) for slot in range(8)}
    started: list[dict] = []
    kills = {"caller": 0, "shim": 0}
    deadline = time.monotonic() + seconds
    # A loaded machine starts callers slowly (one caller kill in 8 s at load 9.5): the loop
    # goes on, up to three times as long, until it has done enough to mean something.
    last = deadline + 2 * seconds
    while (now := time.monotonic()) < deadline or (not _enough(kills, started) and now < last):
        time.sleep(rng.uniform(0.05, 0.3))
        for slot, worker in list(workers.items()):
            if worker.proc.poll() is not None:
                started += worker.started()
                workers[slot] = Worker(registry_dir, slot, rng)
        if rng.random() < 0.5:
            busy = [w for w in workers.values() if w.starting()]
            if busy:  # it printed a start and is in its next one (or opening, or closing)
                rng.choice(busy).proc.send_signal(signal.SIGKILL)
                kills["caller"] += 1
        else:
            shims = _shims(registry_dir)
            if shims:
                try:
                    os.kill(rng.choice(shims), signal.SIGKILL)
                    kills["shim"] += 1
                except ProcessLookupError:
                    pass
    for worker in workers.values():
        worker.proc.send_signal(signal.SIGKILL)
        started += worker.started()
    return {"started": started, "kills": kills}


async def _settle_everything(registry_dir: str) -> None:
    """The next sessions: one adopts every dead session, each command-line one reconciles."""
    config = Config(max_jobs=500)
    for slot in range(8):
        if KINDS[slot % len(KINDS)] == "cli":
            async with JobManager(
                registry_dir=registry_dir,
                config=config,
                session_id=f"cli-{slot}",
                persistent=True,
            ):
                pass
    async with JobManager(
        registry_dir=registry_dir, config=config, persistent=True, session_id="final"
    ):
        pass


def check(registry_dir: str, started: list[dict]) -> None:
    ids = [s["id"] for s in started]
    assert len(ids) == len(set(ids)), "an id was given to two jobs"
    root = Path(registry_dir)
    assert not list(root.glob("*.corrupt-*")), "a registry file did not parse"
    loaded = load_all(root)
    assert not loaded.problems, loaded.problems
    records: dict[str, dict] = {}
    where: dict[str, str] = {}
    for file in loaded.files:
        assert ".adopting-" not in file.path.name, "a claim was left behind"
        for record in file.jobs:
            assert record.id not in records, f"{record.id}: {where.get(record.id)}, {file.path}"
            records[record.id] = record
            where[record.id] = str(file.path)
    for name in os.listdir(root):
        if name.endswith(".status"):
            assert (root / name).read_text().strip().lstrip("-").isdigit(), name
    print(f"{len(records)} records, {sum(r.running for r in records.values())} running")
    lost = [i for i in ids if i not in records]
    assert not lost, f"started jobs without a record: {lost}"
    escaped = {
        pid: job
        for pid, job in _job_processes(registry_dir).items()
        if not _accounted(records.get(job))
    }
    assert not escaped, "job processes outside the registry's records: " + "; ".join(
        _describe(pid, records.get(job)) for pid, job in escaped.items()
    )


def _accounted(record) -> bool:
    """A job process is accounted for by a running record, or by a finished one whose shim
    still supervises what the job left behind (it ends once they are gone)."""
    if record is None:
        return False
    return record.running or procs.same_process(record.shim_pid, record.shim_token)


def _describe(pid: int, record) -> str:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        ppid = procs._proc_stat(pid)[1]
    except (OSError, TypeError):
        cmdline, ppid = "?", "?"
    about = (
        "no record"
        if record is None
        else (
            f"{record.id} {record.status.value} end={record.end_reason} pid={record.pid} "
            f"shim={record.shim_pid} detached={record.detached} session={record.session_id}"
        )
    )
    return f"pid {pid} (ppid {ppid}, {cmdline!r}): {about}"


def cleanup(registry_dir: str) -> None:
    for pid in [*_shims(registry_dir), *_job_processes(registry_dir)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


async def _run(registry_dir: str, seconds: float) -> None:
    seed = int(os.environ.get("JOBS_TUI_CRASH_SEED", random.randrange(1 << 30)))
    try:
        result = await asyncio.to_thread(crash_loop, registry_dir, seconds, seed)
        print(f"seed {seed}: {len(result['started'])} starts, kills {result['kills']}")
        kills, starts = result["kills"], len(result["started"])
        assert _enough(kills, result["started"]), f"too little to mean anything: {kills} {starts}"
        await asyncio.sleep(1.5)  # shims of killed owners finish their kills
        await _settle_everything(registry_dir)
        check(registry_dir, result["started"])
    except AssertionError as exc:
        raise AssertionError(f"seed {seed}: {exc}") from None
    finally:
        cleanup(registry_dir)


async def test_crash_loop(registry_dir: str):
    await _run(registry_dir, 8)  # the long one below runs 6 rounds of 40 s (-m slow)


@pytest.mark.slow
@pytest.mark.timeout(900)
async def test_crash_loop_long(registry_dir: str):
    # Rounds of 40 s, each in a fresh directory: one round's jobs stay under max_jobs,
    # so every record of it is still there to be checked.
    for round_ in range(6):
        await _run(f"{registry_dir}-{round_}", 40)


async def test_a_claim_whose_dead_claimer_merged_it_is_not_adopted_twice(registry_dir: str):
    """Found by the crash loop: a (command-line) claimer killed between writing the records
    into its own file and removing the claim; the next adopter must not copy them again."""
    from .test_registry_faults import reference_record, write_session

    running = {"status": "running", "exitCode": None, "finishedAt": None}
    record = reference_record("j1", registry_dir, "cli-a", pid=None, **running)
    paths = write_session(registry_dir, "cli-a", [record], pid=None, persistent=True)
    write_session(registry_dir, "dead", [{**record, "sessionId": "dead"}], pid=None)
    dead_file = paths.registry_file("dead")
    dead_file.rename(f"{dead_file}.adopting-{session_hash('cli-a')}")
    async with JobManager(registry_dir=registry_dir) as jm:
        assert not jm.is_own(jm.get("j1")), "the claimer's file owns it already"
    holders = [f.path.name for f in load_all(Path(registry_dir)).files if f.jobs]
    assert holders == [paths.registry_file("cli-a").name], holders
