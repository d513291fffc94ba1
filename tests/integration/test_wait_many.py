"""wait_many on real jobs: a ready line, any/all of several, lines in pieces, rotation, peers."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine import Config, InvalidArgument, JobManager
from jobs_tui.engine.records.model import JobStatus
from jobs_tui.engine.session import waiting

PY = sys.executable

# A dev server: binds a free port, says so after a delay, then serves until killed.
DEV_SERVER = (
    f"{PY} -c \"import socket,time,sys; s=socket.socket(); s.bind(('127.0.0.1',0)); "
    "s.listen(); time.sleep(1.5); print('compiling...'); "
    "print('ready on :%d' % s.getsockname()[1], flush=True); time.sleep(60)\""
)


@pytest.fixture
async def jm(tmp_path: Path):
    registry = str(tmp_path / "reg")
    async with JobManager(cwd=str(tmp_path), registry_dir=registry, config=Config()) as manager:
        yield manager


async def test_until_returns_the_ready_line_of_a_dev_server_still_running(jm: JobManager):
    rec = await jm.start(DEV_SERVER, label="dev")
    result = await jm.wait_many([rec.id], until=r"ready on :\d+", timeout_ms=20_000)
    assert result.reason == "match" and not result.timed_out
    assert result.match is not None and result.match.job_id == rec.id
    port = int(result.match.line.split(":")[1])
    assert result.match.line == f"ready on :{port}"
    data = Path(rec.log_path).read_bytes()
    assert data[result.match.offset :].startswith(b"ready on :")
    (job,) = result.jobs
    assert job.running
    usage = (await jm.usage([rec.id]))[rec.id]
    assert port in [p.port for p in usage.ports]
    await jm.kill(rec.id)


async def test_any_returns_when_the_first_of_three_ends_and_all_when_the_last_does(
    jm: JobManager,
):
    short, middle, long = [await jm.start(f"sleep {s}") for s in ("0.3", "1.2", "2.2")]
    ids = [long.id, short.id, middle.id]
    result = await jm.wait_many(ids, mode="any", timeout_ms=20_000)
    assert result.reason == "finished"
    assert [r.id for r in result.jobs] == ids
    assert [r.running for r in result.jobs] == [True, False, True]
    result = await jm.wait_many(ids, mode="all", timeout_ms=20_000)
    assert result.reason == "finished" and all(r.status is JobStatus.EXITED for r in result.jobs)


async def test_a_timeout_says_so_and_leaves_the_jobs_running(jm: JobManager):
    rec = await jm.start("sleep 30")
    started = time.monotonic()
    result = await jm.wait_many([rec.id], until="never", timeout_ms=400)
    assert result.reason == "timeout" and result.timed_out and result.match is None
    assert 0.35 <= time.monotonic() - started < 5 and result.jobs[0].running
    await jm.kill(rec.id)


async def test_a_line_written_in_pieces_matches_and_earlier_output_only_with_from_start(
    jm: JobManager,
):
    rec = await jm.start("echo early-ready; printf 'rea'; sleep 1.5; printf 'dy 42\\n'; sleep 30")
    result = await jm.wait_many([rec.id], until=r"^ready \d+$", timeout_ms=20_000)
    assert result.match is not None and result.match.line == "ready 42"
    assert result.match.offset == len(b"early-ready\n")
    result = await jm.wait_many([rec.id], until=r"^early", from_start=True, timeout_ms=5_000)
    assert result.match is not None and result.match.offset == 0
    result = await jm.wait_many([rec.id], until=r"^early", timeout_ms=300)
    assert result.reason == "timeout"  # from now on: that line was written before the call
    await jm.kill(rec.id)


async def test_a_job_that_ends_without_a_match_ends_the_wait_and_its_last_line_counts(
    jm: JobManager,
):
    rec = await jm.start("sleep 0.3; printf 'last words'; exit 3")
    result = await jm.wait_many([rec.id], until="ready", timeout_ms=20_000)
    assert result.reason == "finished" and result.jobs[0].exit_code == 3
    rec = await jm.start("sleep 0.3; printf 'all ready'; exit 0")
    result = await jm.wait_many([rec.id], until="ready$", timeout_ms=20_000)
    assert result.reason == "match" and result.match.line == "all ready"


async def test_a_job_that_ends_while_its_output_is_read_still_has_its_last_line_tested(
    jm: JobManager, monkeypatch: pytest.MonkeyPatch
):
    """The race CI hit: the job's end arrives while its last unterminated line is being
    read. The wait must not end as `finished` without testing that line."""
    rec = await jm.start("printf 'all ready'; sleep 0.5; exit 0")
    scan = waiting._Watch.scan

    def scan_then_let_the_job_end(watch: waiting._Watch):
        found = scan(watch)
        if watch.scanner is not None and watch.scanner._held:  # the line is held, untested
            deadline = time.monotonic() + 20
            while (jm.find(rec.id) or rec).running and time.monotonic() < deadline:
                time.sleep(0.01)  # in the reading thread: the loop takes in the end meanwhile
        return found

    monkeypatch.setattr(waiting._Watch, "scan", scan_then_let_the_job_end)
    await asyncio.sleep(0.2)
    result = await jm.wait_many([rec.id], until="ready$", timeout_ms=20_000)
    assert result.reason == "match" and result.match.line == "all ready"


async def test_a_match_after_a_rotation_is_not_lost(tmp_path: Path):
    config = Config(max_log_bytes=64 * 1024)
    registry = str(tmp_path / "reg")
    async with JobManager(cwd=str(tmp_path), registry_dir=registry, config=config) as jm:
        # 40 chunks of 16 KiB (20-byte lines) 0.05 s apart: ten rotations while it waits,
        # the marker line in the middle
        command = (
            f'{PY} -c "import sys,time; w=sys.stdout.write\n'
            "for c in range(40):\n"
            "    [w('%07d filler line\\n' % i) for i in range(c * 820, c * 820 + 820)]\n"
            "    w('the marker\\n') if c == 20 else None; sys.stdout.flush(); time.sleep(0.05)\n"
            'time.sleep(30)"'
        )
        rec = await jm.start(command)
        result = await jm.wait_many([rec.id], until="^the marker$", timeout_ms=20_000)
        assert result.reason == "match" and result.match.offset == 21 * 820 * 20
        assert Path(rec.log_path + ".1").exists()  # it did rotate
        await jm.kill(rec.id)


async def test_bad_arguments_are_refused_naming_the_field_before_anything_waits(
    jm: JobManager,
):
    rec = await jm.start("sleep 30")
    cases = [
        ({"ids": [rec.id], "until": "(unclosed"}, "until"),
        ({"ids": [], "until": "x"}, "ids"),
        ({"ids": [rec.id], "mode": "some"}, "mode"),
        ({"ids": [rec.id], "timeout_ms": 600_001}, "timeoutMs"),
    ]
    for kwargs, field in cases:
        with pytest.raises(InvalidArgument) as bad:
            await jm.wait_many(**kwargs)
        assert bad.value.field == field, kwargs
    await jm.kill(rec.id)


async def test_waiting_on_a_quiet_job_does_not_poll(jm: JobManager, monkeypatch):
    """No busy polling: over 1.5 s of silence the log is read only at the wakes it had."""
    scans = []
    real = waiting._Watch.scan

    def counted(self):
        scans.append(time.monotonic())
        return real(self)

    monkeypatch.setattr(waiting._Watch, "scan", counted)
    rec = await jm.start("sleep 30")
    result = await jm.wait_many([rec.id], until="never", timeout_ms=1_500)
    assert result.reason == "timeout"
    assert len(scans) <= 4, len(scans)  # the first read, and a wake or two (registry events)
    await jm.kill(rec.id)


async def test_a_peers_job_is_waited_for_by_a_slow_look(tmp_path: Path):
    registry = str(tmp_path / "reg")
    async with (
        JobManager(cwd=str(tmp_path), registry_dir=registry, config=Config()) as owner,
        JobManager(cwd=str(tmp_path), registry_dir=registry, config=Config()) as other,
    ):
        rec = await owner.start("sleep 0.5; echo peer-ready; sleep 1; exit 4")
        result = await other.wait_many(
            [rec.id], until="peer-ready", from_start=True, timeout_ms=20_000
        )
        assert result.reason == "match" and other.supervisor.link(rec.id) is None
        result = await other.wait_many([rec.id], timeout_ms=20_000)
        assert result.reason == "finished" and result.jobs[0].exit_code == 4


async def test_any_with_until_returns_the_first_line_of_whichever_job_prints_it(
    jm: JobManager,
):
    rec = await jm.start("sleep 30")
    rec2 = await jm.start("sleep 2; echo go; sleep 30")
    result = await jm.wait_many([rec.id, rec2.id], mode="any", until="^go$", timeout_ms=20_000)
    assert result.reason == "match" and result.match.job_id == rec2.id
    assert [r.running for r in result.jobs] == [True, True]
    for job_id in (rec.id, rec2.id):
        await jm.kill(job_id)


async def test_waits_run_side_by_side(jm: JobManager):
    a = await jm.start("sleep 0.4; echo A; sleep 30")
    b = await jm.start("sleep 0.2; echo B; sleep 30")
    ra, rb = await asyncio.gather(
        jm.wait_many([a.id], until="^A$", from_start=True, timeout_ms=20_000),
        jm.wait_many([b.id], until="^B$", from_start=True, timeout_ms=20_000),
    )
    assert ra.match.job_id == a.id and rb.match.job_id == b.id
    await jm.clear(all=True)
