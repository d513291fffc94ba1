"""A declared job's restart policy, applied by its own shim (issue 26): the id, log and
socket stay; one marker line per restart; the record counts restarts and keeps the last
exit; past max_restarts a crash loop ends it; a kill through the socket never restarts."""

from __future__ import annotations

import asyncio
import itertools
import os
import re

from jobs_tui.engine import JobManager

from .declared_helpers import decl, ended, on_disk, read_json, record, request, until

MARKER = re.compile(r"^── restart (\d+)(?: of (\d+))? · (.+) after (\d+\.\d)s ──$")


def _log(rec) -> str:
    with open(rec.log_path, encoding="utf-8") as handle:
        return handle.read()


async def test_on_failure_restarts_up_to_max_restarts_then_a_crash_loop(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start(
            "echo try; exit 3",
            declared=decl("w", restart="on-failure", max_restarts=2, backoff_ms=50),
        )
        done = await until(ended(jm, rec.id), 5, "the crash loop's end")
        assert done.id == rec.id and done.log_path == rec.log_path
        assert (done.status.value, done.exit_code, done.end_reason) == ("failed", 3, "crash-loop")
        assert (done.restarts, done.last_exit) == (2, 3)
        lines = _log(rec).splitlines()
        assert lines[0::2] == ["try"] * 3
        markers = [MARKER.match(line) for line in lines[1::2]]
        assert [m.group(1, 2, 3) for m in markers] == [("1", "2", "exit 3"), ("2", "2", "exit 3")]
        assert lines[1] == f"── restart 1 of 2 · exit 3 after {markers[0].group(4)}s ──"
        end = read_json(jm.paths.end(rec.id))
        assert end["reason"] == "crash-loop" and end["restarts"] == 2
        assert "restarted 2 times" in end["phaseDetail"]
        await asyncio.sleep(0.1)
        jm.registry.save()
        entry = on_disk(jm, rec.id)
        assert (entry["restarts"], entry["lastExit"], entry["name"]) == (2, 3, "w")


async def test_on_failure_does_not_restart_a_clean_exit(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("echo done", declared=decl("w", restart="on-failure"))
        done = await until(ended(jm, rec.id), 5)
        assert (done.status.value, done.restarts, done.end_reason) == ("exited", 0, "exit")
        assert "restart" not in _log(rec)


async def test_always_restarts_a_clean_exit_too_and_unlimited_has_no_of(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("echo once", declared=decl("w", restart="always", backoff_ms=20))
        await until(lambda: (record(jm, rec.id).restarts or 0) >= 3, 5, "three restarts")
        assert record(jm, rec.id).running and record(jm, rec.id).last_exit == 0
        killed = await jm.kill(rec.id)
        assert killed.job.status.value == "killed"
        markers = [m for m in _log(rec).splitlines() if m.startswith("── restart")]
        assert markers and all(MARKER.match(m) and " of " not in m for m in markers)
        assert markers[0].startswith("── restart 1 · exit 0 after ")


async def test_no_never_restarts(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("exit 1", declared=decl("w", restart="no", max_restarts=5))
        done = await until(ended(jm, rec.id), 5)
        assert (done.status.value, done.exit_code, done.restarts) == ("failed", 1, 0)


async def test_a_signal_the_shim_did_not_send_is_a_failure_that_restarts(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start(
            "kill -SEGV $$", declared=decl("w", restart="on-failure", max_restarts=1)
        )
        done = await until(ended(jm, rec.id), 5)
        assert (done.restarts, done.last_exit, done.end_reason) == (1, -11, "crash-loop")
        assert "── restart 1 of 1 · SIGSEGV after " in _log(rec)


async def test_the_backoff_is_honoured(registry_dir: str, tmp_path):
    stamps = tmp_path / "stamps"
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start(
            f"date +%s.%N >> {stamps}; exit 1",
            declared=decl("w", restart="on-failure", max_restarts=2, backoff_ms=400),
        )
        await until(ended(jm, rec.id), 5)
    times = [float(line) for line in stamps.read_text().split()]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert len(gaps) == 2 and all(0.4 <= gap < 0.7 for gap in gaps), gaps


async def test_a_user_kill_is_never_restarted(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("sleep 30", declared=decl("w", restart="always", backoff_ms=0))
        killed = await jm.kill(rec.id)
        assert (killed.job.status.value, killed.job.restarts) == ("killed", 0)
        await asyncio.sleep(0.3)
        assert "restart" not in _log(rec)
        assert read_json(jm.paths.end(rec.id))["reason"] == "kill"


async def test_a_kill_during_the_backoff_ends_the_job_and_nothing_more_runs(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start(
            "echo run; exit 1", declared=decl("w", restart="always", backoff_ms=60_000)
        )
        await until(lambda: record(jm, rec.id).phase == "restarting", 5, "restarting")
        killed = await jm.kill(rec.id)
        assert (killed.job.status.value, killed.job.signal, killed.job.restarts) == (
            "killed",
            "SIGTERM",
            1,
        )
        assert _log(rec).count("run") == 1


async def test_a_restart_gives_the_record_the_new_pid(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start(
            "sleep 0.2; exit 1", declared=decl("w", restart="on-failure", backoff_ms=0)
        )
        first = rec.pid
        await until(lambda: record(jm, rec.id).restarts, 5, "a restart")
        await until(lambda: record(jm, rec.id).pid not in (None, first), 5, "the new pid")
        state = request(str(jm.paths.socket(rec.id)), {"op": "state"})
        assert state["pid"] == record(jm, rec.id).pid
        await jm.kill(rec.id)


async def test_a_stop_sends_the_declared_stop_signal(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        script = "trap 'echo got INT; exit 0' INT; echo up; while :; do sleep 0.05; done"
        rec = await jm.start(script, declared=decl("w", stop_signal="SIGINT", restart="always"))
        await until(lambda: "up" in _log(rec), 5)
        reply = request(str(jm.paths.socket(rec.id)), {"op": "kill", "stop": True})
        assert reply["signal"] == "SIGINT"
        done = await until(ended(jm, rec.id), 5)
        assert "got INT" in _log(rec) and done.restarts == 0


async def test_a_terminal_job_restarts_on_a_new_terminal_with_a_crlf_marker(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start(
            "echo hello; exit 5",
            tty=True,
            declared=decl("t", restart="on-failure", max_restarts=1, backoff_ms=0),
        )
        done = await until(ended(jm, rec.id), 5)
        assert (done.exit_code, done.restarts, done.end_reason) == (5, 1, "crash-loop")
        raw = open(rec.log_path, "rb").read()  # noqa: SIM115
        assert raw.count(b"hello\r\n") == 2
        marker = "── restart 1 of 1 · exit 5 after ".encode()
        assert marker in raw and raw.count("──\r\n".encode()) == 1


async def test_what_the_old_instance_left_running_is_killed_before_the_restart(
    registry_dir: str, tmp_path
):
    pids = tmp_path / "pids"
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start(
            f"sleep 30 & echo $! >> {pids}; exit 1",
            declared=decl("w", restart="on-failure", max_restarts=1, backoff_ms=100),
        )
        await until(ended(jm, rec.id), 5)
        first, second = (int(p) for p in pids.read_text().split())
        assert not os.path.exists(f"/proc/{first}")  # killed at the restart
        await jm.kill(rec.id)  # the last instance's leftover: the finished job's kill
        await until(lambda: not os.path.exists(f"/proc/{second}"), 5, "the last leftover gone")
