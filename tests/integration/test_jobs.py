"""Real jobs through JobManager: start, output, exit codes, stdin, wait, clear, prune, events."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

from jobs_tui.engine import Config, JobError, JobManager, Refused, UnknownJob
from jobs_tui.engine.records.model import JobEvent, JobStatus
from jobs_tui.engine.tools import JobTools

from .helpers import until


@pytest.fixture
async def jm(registry_dir: str):
    async with JobManager(cwd=".", registry_dir=registry_dir, config=Config()) as manager:
        yield manager


async def test_start_returns_running_record_already_on_disk(jm: JobManager, registry_dir: str):
    rec = await jm.start("sleep 30", label="sleeper")
    assert rec.status is JobStatus.RUNNING and rec.pid and rec.id == "j1"
    on_disk = json.loads(jm.paths.registry_file(jm.session_id).read_text())
    assert on_disk["version"] == 1 and on_disk["sessionId"] == jm.session_id
    (entry,) = on_disk["jobs"]
    assert entry["id"] == "j1" and entry["status"] == "running" and entry["label"] == "sleeper"
    assert entry["pid"] == rec.pid and entry["startToken"]
    assert oct(os.stat(registry_dir).st_mode & 0o777) == "0o700"
    assert oct(os.stat(jm.paths.registry_file(jm.session_id)).st_mode & 0o777) == "0o600"
    await jm.kill(rec.id, "SIGKILL")


async def test_stdout_and_stderr_share_one_log_in_order(jm: JobManager):
    rec = await jm.start("echo one; echo two >&2; echo three; printf 'no newline'")
    rec = await jm.wait(rec.id, 10_000)
    assert rec.status is JobStatus.EXITED and rec.exit_code == 0 and rec.exit_status == 0
    result = await jm.logs(rec.id)
    assert result.lines == ["one", "two", "three", "no newline"]
    assert rec.last_line == "no newline"
    assert result.truncated is False


@pytest.mark.parametrize(
    ("command", "status", "code", "signal"),
    [
        ("exit 0", JobStatus.EXITED, 0, None),
        ("exit 3", JobStatus.FAILED, 3, None),
        ("exit 255", JobStatus.FAILED, 255, None),
        ("kill -9 $$", JobStatus.KILLED, None, "SIGKILL"),
        ("kill -INT $$", JobStatus.KILLED, None, "SIGINT"),
    ],
)
async def test_exact_exit_status(jm: JobManager, command, status, code, signal):
    rec = await jm.wait((await jm.start(command)).id, 10_000)
    assert (rec.status, rec.exit_code, rec.signal) == (status, code, signal)
    assert rec.end_reason == "exit"
    assert jm.paths.status(rec.id).read_text() == str(rec.exit_status)


async def test_job_without_stdin_reads_eof_instead_of_hanging(jm: JobManager):
    rec = await jm.wait((await jm.start('read line; echo "rc=$?"')).id, 10_000)
    assert rec.status is JobStatus.EXITED
    assert (await jm.logs(rec.id)).lines == ["rc=1"]


async def test_stdin_round_trip_with_cat(jm: JobManager):
    rec = await jm.start("cat", stdin=True)
    sent = await jm.send(rec.id, "hello")
    assert sent["sent"] == 5 and sent["stdinClosed"] is False
    await jm.send(rec.id, "no-newline", newline=False)
    closed = await jm.send(rec.id, eof=True)
    assert closed["stdinClosed"] is True and closed["sent"] == 0
    rec = await jm.wait(rec.id, 10_000)
    assert rec.status is JobStatus.EXITED
    assert (await jm.logs(rec.id)).text == "hello\nno-newline"


async def test_stdin_round_trip_with_python_repl(jm: JobManager):
    rec = await jm.start(f"{sys.executable} -i -q", stdin=True, label="repl")
    await jm.send(rec.id, "print(6 * 7)")
    assert await until(lambda: "42" in jm.paths.log(rec.id).read_text(), 10)
    await jm.send(rec.id, "import sys; sys.exit(5)", eof=True)
    rec = await jm.wait(rec.id, 10_000)
    assert rec.status is JobStatus.FAILED and rec.exit_code == 5
    assert "42" in (await jm.logs(rec.id)).text


async def test_send_refusals_change_nothing(jm: JobManager):
    plain = await jm.start("sleep 30")
    with pytest.raises(Refused, match="not started with stdin"):
        await jm.send(plain.id, "x")
    fed = await jm.start("cat", stdin=True)
    with pytest.raises(JobError, match="input is 8193 characters"):
        await jm.send(fed.id, "x" * 8193)
    done = await jm.wait((await jm.start("true", stdin=True)).id, 10_000)
    with pytest.raises(Refused, match="already finished"):
        await jm.send(done.id, "x")
    await jm.send(fed.id, "still works", eof=True)
    assert (await jm.wait(fed.id, 10_000)).status is JobStatus.EXITED
    assert (await jm.logs(fed.id)).text == "still works\n"
    with pytest.raises(UnknownJob):
        await jm.send("j99", "x")
    await jm.kill(plain.id, "SIGKILL")


async def test_wait_times_out_and_cancelling_leaves_job_running(jm: JobManager):
    rec = await jm.start("sleep 30")
    details = await JobTools(jm).call({"action": "wait", "id": rec.id, "timeoutMs": 100})
    assert details["timedOut"] is True and details["job"]["status"] == "running"
    task = asyncio.create_task(
        JobTools(jm).call({"action": "wait", "id": rec.id, "timeoutMs": 30_000})
    )
    await asyncio.sleep(0.1)
    task.cancel()
    details = await task
    assert details["cancelled"] is True and details["job"]["status"] == "running"
    assert jm.registry.get(rec.id).running
    await jm.kill(rec.id, "SIGKILL")


async def test_job_finished_event_once_per_job(jm: JobManager):
    events: list[JobEvent] = []
    jm.subscribe(events.append)
    rec = await jm.start("exit 2", label="build")
    await jm.wait(rec.id, 10_000)
    await asyncio.sleep(0.3)
    finished = [e for e in events if e.kind == "job-finished"]
    assert len(finished) == 1
    assert finished[0].to_json() == {
        "kind": "job-finished",
        "id": rec.id,
        "label": "build",
        "status": "failed",
        "exitCode": 2,
        "signal": None,
    }


async def test_clear_one_all_finished_and_all(jm: JobManager):
    a = await jm.wait((await jm.start("true")).id, 10_000)
    b = await jm.wait((await jm.start("false")).id, 10_000)
    running = await jm.start("sleep 30")
    with pytest.raises(Refused, match="still running"):
        await jm.clear(running.id)
    assert [r.id for r in await jm.clear(a.id)] == [a.id]
    assert not jm.paths.log(a.id).exists()
    assert [r.id for r in await jm.clear()] == [b.id]
    assert [r.id for r in jm.jobs()] == [running.id]
    cleared = await jm.clear(all=True)
    assert [r.id for r in cleared] == [running.id] and cleared[0].status is JobStatus.KILLED
    assert jm.jobs() == []
    on_disk = json.loads(jm.paths.registry_file(jm.session_id).read_text())
    assert on_disk["jobs"] == []


async def test_finished_records_beyond_max_jobs_are_pruned_oldest_first(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, config=Config(max_jobs=2)) as jm:
        ids = []
        for _ in range(4):
            ids.append((await jm.wait((await jm.start("true")).id, 10_000)).id)
        assert sorted(r.id for r in jm.jobs()) == ids[2:]
        assert not jm.paths.log(ids[0]).exists()


async def test_ids_are_never_reused_after_clear(jm: JobManager):
    first = await jm.wait((await jm.start("true")).id, 10_000)
    await jm.clear(first.id)
    second = await jm.start("true")
    assert second.id == "j2"


async def test_close_kills_own_non_detached_jobs(registry_dir: str):
    from .helpers import gone

    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("sleep 30")
    assert await until(lambda: gone(rec.pid), 10)
    on_disk = json.loads(jm.paths.registry_file(jm.session_id).read_text())
    assert on_disk["jobs"][0]["status"] == "killed"
    assert not jm.paths.marker_file(jm.session_id).exists()


async def test_env_reaches_the_job_verbatim_and_bad_names_are_refused(jm: JobManager):
    hostile = 'it\'s $HOME `x` "q"'
    rec = await jm.start('printf "%s|%s" "$A" "$B_2"', env={"A": hostile, "B_2": ""})
    rec = await jm.wait(rec.id, 10_000)
    assert (await jm.logs(rec.id)).text == f"{hostile}|"
    assert "A=" not in rec.command
    before = len(jm.jobs())
    with pytest.raises(JobError, match="not a valid variable name") as caught:
        await jm.start("true", env={"1BAD": "x"})
    assert caught.value.field == "env"
    with pytest.raises(JobError, match="without NUL"):
        await jm.start("true", env={"A": "nul\x00"})
    assert len(jm.jobs()) == before


async def test_read_since_never_cuts_an_escape_or_a_character_in_two(jm: JobManager):
    rec = await jm.wait((await jm.start(r"printf 'ab\033[31mréd\033[0m!'")).id, 10_000)
    offset, texts = 0, []
    while True:
        got = await jm.read_since(rec.id, offset, 4)
        if got.offset == offset:
            break
        texts.append(got.text)
        offset = got.offset
    assert "".join(texts) == "abréd!" and offset == got.end
    assert all("[" not in t and "\ufffd" not in t for t in texts)


async def test_a_finished_jobs_cut_last_character_is_read_not_held_for_ever(jm: JobManager):
    """A cut sequence is held back only while more may come: once the job has ended, its
    last bytes are returned (as the tail read shows them) and nothing stays unread."""
    rec = await jm.wait((await jm.start(r"printf 'ab\342\202'")).id, 10_000)
    got = await jm.read_since(rec.id, 0, 1024)
    assert got.text == "ab\ufffd" and got.offset == got.end == 4
    assert (await jm.logs(rec.id)).lines == ["ab\ufffd"]


async def test_page_says_its_first_line_and_log_end_is_where_new_output_starts(jm: JobManager):
    rec = await jm.wait((await jm.start("printf 'a\\nb\\nc\\nd\\n'; sleep 30")).id, 300)
    assert await until(lambda: jm.get(rec.id).log_bytes == 8)
    page = await jm.page(rec.id, 2, 1)
    assert (page.lines, page.offset, page.total_lines, page.truncated) == (["c"], 2, 4, True)
    first = await jm.page(rec.id, 0, 10)
    assert (first.offset, first.truncated) == (0, False)
    end = await jm.log_end(rec.id)
    assert end == 8
    assert (await jm.read_since(rec.id, end)).text == ""  # only what comes next
    await jm.kill(rec.id, "SIGKILL")


async def test_typed_methods_refuse_bad_arguments_naming_the_field_and_do_nothing(
    jm: JobManager,
):
    from jobs_tui.engine import InvalidArgument

    rec = await jm.start("sleep 30", stdin=True)
    before = [r.id for r in jm.jobs()]
    bad = [
        (jm.start("   "), "command"),
        (jm.start("true", timeout_ms=0), "timeoutMs"),
        (jm.start("true", tty=True, cols=5), "cols"),
        (jm.start("true", cwd="/no/such/dir"), "cwd"),
        (jm.kill(rec.id, "SIGFOO"), "signal"),
        (jm.logs(rec.id, lines=0), "lines"),
        (jm.send(rec.id, None), "input"),
        (jm.resize(rec.id, 10**6, 24), "id"),  # not a terminal job: refused, not invalid
    ]
    for call, field in bad:
        with pytest.raises(JobError) as caught:
            await call
        assert caught.value.field == field, (field, caught.value)
        assert isinstance(caught.value, InvalidArgument) == (field != "id"), field
    assert [r.id for r in jm.jobs()] == before and jm.get(rec.id).running
    await jm.kill(rec.id, "SIGKILL")
