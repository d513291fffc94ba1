"""A full disk: the job keeps running, its output is dropped and counted, its exit code is
kept until it can be written, and read-only calls keep working."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.model import JobStatus

from .helpers import gone, until


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 1 MiB tmpfs (we are root in CI); skipped only where mounting is refused."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(mount: Path) -> Path:
    """Take every free byte; returns the filler file (unlink it to free the disk)."""
    filler = mount / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def cli(registry_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jobs_tui.app.cli", "--registry-dir", str(registry_dir), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


JOB = "read a; head -c 3000000 /dev/zero | tr '\\0' x; echo; echo after; read b; exit 7"


async def _state(socket: Path) -> dict:
    reader, writer = await asyncio.open_unix_connection(str(socket))
    writer.write(b'{"op": "state"}\n')
    await writer.drain()
    state = json.loads(await asyncio.wait_for(reader.readline(), 5))
    writer.close()
    return state


async def test_a_full_disk_drops_output_keeps_the_job_and_its_exit_code(small_disk: Path):
    registry = small_disk / "reg"
    async with JobManager(registry_dir=registry, session_id="s1") as jm:
        rec = await jm.start(JOB, stdin=True)
        filler = fill(small_disk)
        await jm.send(rec.id, "go")
        assert await until(lambda: jm.get(rec.id).log_lost_bytes > 1_000_000, 20)
        assert jm.get(rec.id).running and not gone(rec.pid), "the job must keep running"
        assert jm.get(rec.id).log_note == "disk full"
        # Read-only verbs work on a full disk, even from a session writing its marker.
        for args in (("status", rec.id), ("list",), ("logs", rec.id, "--lines", "5")):
            done = cli(registry, *args)
            assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr)
        await jm.send(rec.id, "end")
        rec = await jm.wait(rec.id, 10_000)
        assert (rec.status, rec.exit_code) == (JobStatus.FAILED, 7)
        assert not jm.paths.status(rec.id).exists()
        state = await _state(jm.paths.socket(rec.id))  # the shim keeps it until written
        assert state["running"] is False and state["exitStatus"] == 7
        assert any("No space left" in p for p in jm.take_problems())
        filler.unlink()
        assert await until(lambda: jm.paths.status(rec.id).exists(), 5)
        assert jm.paths.status(rec.id).read_text() == "7"
        assert await until(lambda: gone(rec.shim_pid), 5), "its shim ends once it is written"
        assert await until(lambda: '"exitCode":7' in jm.registry.own_path.read_text(), 5)
        assert (await jm.wait((await jm.start("echo fine")).id, 10_000)).exit_code == 0
    assert os.path.exists(registry)
