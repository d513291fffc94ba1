"""A full disk: the job keeps running, its output is dropped and counted, its exit code is
kept until it can be written, and read-only calls keep working."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from jobs_tui.engine import JobError, JobManager
from jobs_tui.engine.records.model import JobStatus
from jobs_tui.engine.tools import JobTools

from .helpers import gone, poll, until


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
        (mount / "filler").unlink(missing_ok=True)  # room, so shims can write and end
        _end_shims(mount)
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _end_shims(mount: Path) -> None:
    """The shims a test left running under `mount` end (and take their jobs with them)."""
    shims = []
    for proc in psutil.process_iter(["cmdline"]):
        if any(str(mount) in part for part in proc.info["cmdline"] or ()):
            with contextlib.suppress(psutil.Error):
                proc.terminate()
                shims.append(proc)
    _gone, alive = psutil.wait_procs(shims, timeout=8)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()


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


def fill_but(mount: Path, room: int) -> Path:
    """Take every free byte but about `room` (so small registry writes still fit)."""
    filler = fill(mount)
    os.truncate(filler, max(0, filler.stat().st_size - room))
    return filler


def _json(done: subprocess.CompletedProcess) -> dict:
    assert done.stdout, (done.returncode, done.stderr)
    return json.loads(done.stdout)


def _record(registry: Path, job_id: str, verb: str = "status") -> dict:
    """The job as `status ID --json` (or `list --all --json`) shows it."""
    if verb == "status":
        return _json(cli(registry, "status", job_id, "--json"))["job"]
    jobs = _json(cli(registry, "list", "--all", "--json"))["jobs"]
    return next(j for j in jobs if j["id"] == job_id)


def test_a_restart_on_a_full_disk_leaves_the_old_job_running_and_says_why(small_disk: Path):
    registry = small_disk / "reg"
    old = _json(cli(registry, "start", "--json", "--", "sleep 600"))["job"]
    filler = fill(small_disk)
    try:
        done = cli(registry, "restart", old["id"])
        assert not gone(old["pid"]), "the old job must still run"
        assert done.returncode == 1, (done.returncode, done.stderr)
        assert done.stderr.startswith("jobs-tui: ") and "No space left on device" in done.stderr
        assert "unexpected" not in done.stderr and "Traceback" not in done.stderr
        assert "not restarted" in done.stderr and old["id"] in done.stderr, done.stderr
        assert _record(registry, old["id"])["status"] == "running"
        assert not list(registry.glob("j*.lock")), "no reservation is left behind"
        assert not list(registry.glob("j2.*")), "nor any file of the job that did not start"
    finally:
        filler.unlink()
    done = cli(registry, "restart", old["id"], "--json")  # with room again, it restarts
    assert done.returncode == 0, done.stderr
    new = _json(done)["job"]
    assert new["restartOf"] == old["id"] and not gone(new["pid"])
    assert poll(lambda: gone(old["pid"]), 10)
    cli(registry, "kill", new["id"], "--signal", "SIGKILL")


def test_clear_all_on_a_full_disk_is_a_named_error_and_clears_nothing(small_disk: Path):
    registry = small_disk / "reg"
    assert cli(registry, "start", "--", "true").returncode == 0
    sleeper = _json(cli(registry, "start", "--json", "--", "sleep 600"))["job"]
    assert poll(lambda: _record(registry, "j1")["status"] == "exited", 20)
    filler = fill(small_disk)
    try:
        done = cli(registry, "clear", "--all")
        assert done.returncode == 1, (done.returncode, done.stderr)
        assert "unexpected" not in done.stderr and "Traceback" not in done.stderr
        assert "jobs-tui: could not clear: No space left on device" in done.stderr
        # the directory, as long as the command line quotes a word (80 characters)
        assert f"(registry dir {str(registry)[:70]}" in done.stderr, done.stderr
        assert done.stderr.rstrip().endswith("nothing was cleared or killed"), done.stderr
        jobs = {j["id"]: j for j in _json(cli(registry, "list", "--all", "--json"))["jobs"]}
        assert set(jobs) == {"j1", sleeper["id"]}, "every record stays"
        assert jobs[sleeper["id"]]["status"] == "running" and not gone(sleeper["pid"])
        assert (registry / "j1.log").exists() and (registry / "j1.status").exists()
    finally:
        filler.unlink()
    done = cli(registry, "clear", "--all")
    assert done.returncode == 0, done.stderr
    assert poll(lambda: gone(sleeper["pid"]), 10)
    assert _json(cli(registry, "list", "--all", "--json"))["jobs"] == []


LOUD = "head -c 3000000 /dev/zero | tr '\\0' x; exit 3"


async def test_a_command_line_job_on_a_full_disk_has_its_lost_bytes_everywhere(small_disk: Path):
    registry = small_disk / "reg"
    registry.mkdir(mode=0o700)
    filler = fill_but(small_disk, 192 * 1024)
    try:
        job = _json(cli(registry, "start", "--json", "--", LOUD))["job"]
        assert await until(lambda: gone(job["pid"]), 30), "the job ends"
    finally:
        filler.unlink()
    end_file = registry / f"{job['id']}.end"
    assert await until(end_file.exists, 10), "its shim writes the end once there is room"
    # `.end` is written first and fits in the pages the disk had left; the exit code's
    # `.status` may have failed then and comes with the shim's next try (STATUS_RETRY_S)
    assert await until((registry / f"{job['id']}.status").exists, 10), "then the exit code"
    end = json.loads(end_file.read_text())
    assert end["lostBytes"] > 2_000_000 and end["logNote"] == "disk full", end
    want = (3, end["lostBytes"], "disk full")
    for verb in ("status", "list", "status"):  # the first settles it, the others read it
        rec = _record(registry, job["id"], verb)
        got = (rec["exitCode"], rec["logLostBytes"], rec["logNote"])
        assert got == want, f"{verb}: {json.dumps(rec)}"
    human = cli(registry, "status", job["id"]).stdout
    assert f"{end['lostBytes']} bytes lost: disk full" in human, human
    async with JobManager(registry_dir=registry, session_id="cli") as jm:
        details = await JobTools(jm).call({"action": "status", "id": job["id"]})
    got = details["job"]
    assert (got["exitCode"], got["logLostBytes"], got["logNote"]) == want, got


def test_list_says_what_the_shim_knows_of_a_job_that_ended_on_a_full_disk(small_disk: Path):
    registry = small_disk / "reg"
    registry.mkdir(mode=0o700)
    filler = fill_but(small_disk, 192 * 1024)
    try:
        job = _json(cli(registry, "start", "--json", "--", LOUD))["job"]
        assert poll(lambda: gone(job["pid"]), 30), "the job ends"
        assert not (registry / f"{job['id']}.status").exists()  # its shim could not say so
        for verb in ("status", "list"):
            rec = _record(registry, job["id"], verb)
            assert (rec["status"], rec["exitCode"]) == ("failed", 3), (verb, rec)
            assert rec["exitNotWritten"] == "disk full", rec
        rows = cli(registry, "list").stdout
        assert "0 running" in rows.splitlines()[0] and "not yet written: disk full" in rows, rows
        peer = _json(cli(registry, "--session", "other", "list", "--json"))["jobs"]
        assert [(j["status"], j["exitCode"], j["exitNotWritten"]) for j in peer] == [
            ("failed", 3, "disk full")
        ], peer  # another session's reader sees the same
        assert "exit 3" in cli(registry, "status", job["id"]).stdout
        shim = psutil.Process(job["shimPid"])
        shim.suspend()  # a shim that cannot answer: what is known is said, no more
        try:
            line = cli(registry, "status", job["id"]).stdout
            assert "ended · exit code not yet written: disk full" in line, line
            rec = _record(registry, job["id"], "list")
            assert (rec["status"], rec["exitCode"], rec["exitNotWritten"]) == (
                "unknown",
                None,
                "disk full",
            ), rec
            assert "ended · exit code not yet written: disk full" in cli(registry, "list").stdout
        finally:
            shim.resume()
    finally:
        filler.unlink()
    assert poll(lambda: (registry / f"{job['id']}.status").exists(), 10)
    rec = _record(registry, job["id"])
    assert (rec["status"], rec["exitCode"]) == ("failed", 3) and "exitNotWritten" not in rec


async def test_a_clear_whose_registry_write_fails_keeps_every_record_and_file(tmp_path: Path):
    """The room went between the check and the write: the records stay, in memory and on
    disk, with their files, and the error says what was done (the kill)."""
    registry = tmp_path / "reg"
    async with JobManager(registry_dir=registry, session_id="s1") as jm:
        done = await jm.wait((await jm.start("true")).id, 10_000)
        running = await jm.start("sleep 600")
        real = jm.registry.persist

        def full() -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        jm.registry.persist = full  # type: ignore[method-assign]
        with pytest.raises(JobError) as caught:
            await jm.clear(all=True)
        jm.registry.persist = real  # type: ignore[method-assign]
        message = str(caught.value)
        assert message.startswith("could not clear: No space left on device (registry dir ")
        assert f"{running.id} killed first; every record stays" in message, message
        assert {r.id for r in await jm.list(all=True)} == {done.id, running.id}
        assert jm.paths.log(done.id).exists() and jm.paths.status(done.id).exists()
        assert gone(running.pid)
        jm.registry.persist()
        assert f'"id":"{done.id}"' in jm.registry.own_path.read_text()
        assert {r.id for r in await jm.clear(all=True)} == {done.id, running.id}


def test_a_running_command_line_job_on_a_full_disk_shows_its_losses(small_disk: Path):
    """The session that started it ended at once: its shim is asked, while the disk is full."""
    registry = small_disk / "reg"
    registry.mkdir(mode=0o700)
    filler = fill_but(small_disk, 192 * 1024)
    try:
        job = _json(cli(registry, "start", "--json", "--", LOUD.replace("exit 3", "sleep 600")))
        job_id = job["job"]["id"]
        assert poll(lambda: _record(registry, job_id)["logLostBytes"] > 2_000_000, 30)
        rec = _record(registry, job_id, "list")
        assert rec["status"] == "running" and rec["logNote"] == "disk full", rec
        line = cli(registry, "status", job_id).stdout
        assert f"{rec['logLostBytes']} bytes lost: disk full" in line.splitlines()[0], line
    finally:
        filler.unlink()
    cli(registry, "kill", job_id, "--signal", "SIGKILL")


def test_losses_still_show_once_the_full_disk_has_a_few_pages_back(small_disk: Path):
    """The flake of this file: the session that started the job freed its own files after
    the log had filled the disk, so the disk was no longer at zero blocks and nobody asked
    the shim what it lost. A disk nearly full counts as full for that question."""
    registry = small_disk / "reg"
    registry.mkdir(mode=0o700)
    spare = small_disk / "spare"
    filler = fill_but(small_disk, 192 * 1024)
    spare.write_bytes(b"\0" * 64 * 1024)
    try:
        job_id = _json(cli(registry, "start", "--json", "--", LOUD.replace("exit 3", "sleep 600")))
        job_id = job_id["job"]["id"]
        assert poll(lambda: _record(registry, job_id)["logLostBytes"] > 2_000_000, 30)
        spare.unlink()  # a few pages free again: the output lost stays lost
        rec = _record(registry, job_id)
        assert rec["logLostBytes"] > 2_000_000 and rec["logNote"] == "disk full", rec
    finally:
        filler.unlink()
    cli(registry, "kill", job_id, "--signal", "SIGKILL")
