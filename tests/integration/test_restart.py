"""restart on real jobs, and environment values that never reach a command line."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine import Config, JobError, JobManager, Refused
from jobs_tui.engine.records.model import JobStatus

SECRET = "s3cr3t-value-7f1c"


@pytest.fixture
async def jm(tmp_path: Path):
    registry = str(tmp_path / "reg")
    async with JobManager(cwd=str(tmp_path), registry_dir=registry, config=Config()) as manager:
        yield manager


def cmdlines() -> list[bytes]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                found.append(Path(f"/proc/{pid}/cmdline").read_bytes())
            except OSError:
                continue
    return found


def running_count(jm: JobManager) -> int:
    return sum(1 for r in jm.jobs(include_peers=False) if r.running)


async def test_restart_of_a_running_job_kills_it_and_starts_the_same_as_a_new_id(
    jm: JobManager, tmp_path: Path
):
    work = tmp_path / "work"
    work.mkdir()
    rec = await jm.start(
        'echo "$GREETING from $(pwd)"; sleep 30',
        label="greeter",
        cwd=str(work),
        env={"GREETING": "hello"},
        timeout_ms=600_000,
        wake=True,
    )
    await jm.wait_many([rec.id], until="hello", from_start=True, timeout_ms=10_000)
    new = await jm.restart(rec.id)
    old = jm.get(rec.id)
    assert new.id != rec.id and new.running and new.restart_of == rec.id
    assert old.status is JobStatus.KILLED and running_count(jm) == 1
    assert (new.command, new.cwd, new.label) == (rec.command, rec.cwd, "greeter")
    assert (new.timeout_ms, new.wake, new.detached, new.stdin) == (600_000, True, False, False)
    assert new.env_names == ("GREETING",)
    found = await jm.wait_many([new.id], until="from", from_start=True, timeout_ms=10_000)
    assert found.match.line == f"hello from {work}"
    on_disk = jm.paths.registry_file(jm.session_id).read_text()
    assert '"restartOf":"j1"' in on_disk and '"hello"' not in on_disk
    await jm.kill(new.id)


async def test_restart_of_a_finished_job_and_of_a_terminal_job_keeps_stdin_tty_and_size(
    jm: JobManager,
):
    rec = await jm.start("stty size; exit 3", tty=True, cols=111, rows=33)
    rec = await jm.wait(rec.id, 10_000)
    assert rec.exit_code == 3
    new = await jm.restart(rec.id)
    assert new.tty and new.stdin and new.restart_of == rec.id
    new = await jm.wait(new.id, 10_000)
    assert (await jm.logs(new.id)).lines[0] == "33 111"
    rec = await jm.start("cat", stdin=True)
    new = await jm.restart(rec.id)
    assert new.stdin and not new.tty
    await jm.send(new.id, "echoed")
    found = await jm.wait_many([new.id], until="^echoed$", from_start=True, timeout_ms=10_000)
    assert found.reason == "match"
    await jm.clear(all=True)


async def test_env_values_never_appear_on_a_command_line_and_go_with_the_record(
    jm: JobManager,
):
    rec = await jm.start('printf "%s\\n" "$TOKEN" | wc -c; sleep 30', env={"TOKEN": SECRET})
    await jm.wait_many([rec.id], until=r"^\s*\d+$", from_start=True, timeout_ms=10_000)
    assert not any(SECRET.encode() in line for line in cmdlines())
    assert SECRET.encode() in Path(f"/proc/{rec.pid}/environ").read_bytes()  # it got there
    assert SECRET not in jm.paths.registry_file(jm.session_id).read_text()
    env_file = jm.paths.env(rec.id)
    assert oct(env_file.stat().st_mode & 0o777) == "0o600" and SECRET in env_file.read_text()
    new = await jm.restart(rec.id)
    assert not any(SECRET.encode() in line for line in cmdlines())
    await jm.wait_many([new.id], until=r"^\s*\d+$", from_start=True, timeout_ms=10_000)
    assert (await jm.logs(new.id)).lines[0].strip() == str(len(SECRET) + 1)
    await jm.clear(all=True)
    assert not env_file.exists() and not jm.paths.env(new.id).exists()


async def test_a_peers_running_job_is_refused_and_a_lost_env_file_refuses_before_any_kill(
    tmp_path: Path,
):
    registry = str(tmp_path / "reg")
    async with (
        JobManager(cwd=str(tmp_path), registry_dir=registry, config=Config()) as owner,
        JobManager(cwd=str(tmp_path), registry_dir=registry, config=Config()) as other,
    ):
        rec = await owner.start("sleep 30", env={"A": "1"})
        other.get(rec.id)
        with pytest.raises(Refused) as refused:
            await other.restart(rec.id)
        assert refused.value.field == "id" and "take it over" in str(refused.value)
        owner.paths.env(rec.id).unlink()
        with pytest.raises(JobError) as lost:
            await owner.restart(rec.id)
        assert "gone" in str(lost.value) and owner.get(rec.id).running
        await owner.kill(rec.id)


async def test_a_restart_whose_new_shim_cannot_start_leaves_the_old_job_running(
    jm: JobManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The replacement's supervisor fails before it is ready (its log cannot be opened):
    the old job was never touched, and nothing of the new one is left."""
    from jobs_tui.engine.session import launch

    rec = await jm.start("sleep 600")
    real = launch.spawn

    def broken(spec, env=None, **hold):
        return real({**spec, "log": str(tmp_path / "no-such-dir" / "x.log")}, env, **hold)

    monkeypatch.setattr(launch, "spawn", broken)
    with pytest.raises(JobError) as caught:
        await jm.restart(rec.id)
    message = str(caught.value)
    assert message.startswith("the job supervisor "), message
    assert "is not in the registry directory" in message, message
    assert message.endswith(f"; {rec.id} not restarted: it still runs"), message
    assert jm.get(rec.id).running and os.path.exists(f"/proc/{rec.pid}")
    assert [r.id for r in jm.jobs(include_peers=False)] == [rec.id]
    assert sorted(p.name for p in jm.paths.root.glob("j2*")) == []
    monkeypatch.undo()
    new = await jm.restart(rec.id)
    assert new.running and not jm.get(rec.id).running


async def test_a_restart_starts_the_new_command_only_after_the_old_one_stopped(
    jm: JobManager, tmp_path: Path
):
    trace = tmp_path / "trace"
    command = (
        f"echo start >> {trace}; trap 'echo bye >> {trace}; exit 0' TERM; "
        "while :; do sleep 0.05; done"
    )
    rec = await jm.start(command)
    deadline = asyncio.get_running_loop().time() + 10
    while not trace.exists() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
    new = await jm.restart(rec.id)
    while trace.read_text().count("start") < 2 and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
    assert trace.read_text() == "start\nbye\nstart\n"
    assert new.started_at >= (jm.get(rec.id).finished_at or 0)
    await jm.kill(new.id)


@pytest.mark.slow
def test_a_restart_held_through_a_long_grace_is_not_settled_by_another_call(tmp_path: Path):
    """The old job ignores SIGTERM and takes its whole grace (20 s, past the 15 s launch
    window): the new record, waiting without pids, is not taken for a launch that died by
    another call of the same session meanwhile."""
    config = tmp_path / "config.toml"
    config.write_text("[job]\nkill_grace_ms = 20000\n")
    env = {**os.environ, "JOBS_TUI_CONFIG": str(config)}
    cli = [sys.executable, "-m", "jobs_tui.app.cli", "--registry-dir", str(tmp_path / "reg")]

    def run(*args: str) -> dict:
        done = subprocess.run([*cli, *args], env=env, capture_output=True, text=True, timeout=90)
        return json.loads(done.stdout)

    old = run("start", "--json", "--", "trap '' TERM; sleep 600")["job"]
    restart = subprocess.Popen(
        [*cli, "restart", old["id"], "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(17)
        jobs = {j["id"]: j for j in run("list", "--all", "--json")["jobs"]}
        assert len(jobs) == 2 and all(j["status"] == "running" for j in jobs.values()), jobs
        out, err = restart.communicate(timeout=60)
        assert restart.returncode == 0, err
        new = json.loads(out)["job"]
        rec = run("status", new["id"], "--json")["job"]
        assert rec["status"] == "running" and rec["pid"] == new["pid"], rec
    finally:
        restart.kill()
        for job in run("list", "--all", "--json")["jobs"]:
            if job["status"] == "running":
                run("kill", job["id"], "--signal", "SIGKILL", "--json")


async def test_a_restart_keeps_the_terminal_size_the_job_had_last(jm: JobManager):
    """docs/screen.md (`r`): a restart keeps the size. The size a job was resized to, not its
    first one."""
    rec = await jm.start("stty size; sleep 30", tty=True, cols=80, rows=24)
    await jm.resize(rec.id, 157, 39)
    new = await jm.restart(rec.id)
    try:
        assert (new.term_cols, new.term_rows) == (157, 39)
        found = await jm.wait_many([new.id], until="39 157", from_start=True, timeout_ms=10_000)
        assert found.reason == "match", found
    finally:
        await jm.kill(new.id, "SIGKILL")
