"""Bad bytes, huge numbers and long input: refused by name or carried losslessly, never a crash.

Issue 9, items 3, 4 and 11: a call never raises, never leaves the session unable to
continue, never starts anything it refuses, and never echoes a whole input back.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.registry.store import write_json_atomic
from jobs_tui.engine.tools import ExecCommandTools, JobTools, ProcessTools

HUGE = [10**5000, -(10**5000), 1e308, float("inf")]
HUGE_IDS = ["10**5000", "-10**5000", "1e308", "inf"]  # repr() of 10**5000 itself raises
LONG = "x" * 100_000


def _registry_files(jm: JobManager) -> list[dict]:
    return [json.loads(path.read_bytes()) for path in Path(jm.paths.root).glob("registry-*.json")]


def _jobs_on_disk(jm: JobManager) -> list[dict]:
    return [job for data in _registry_files(jm) for job in data["jobs"]]


# -- lone surrogates -------------------------------------------------------------------------


async def test_a_lone_surrogate_label_is_refused_and_the_session_goes_on(jm: JobManager):
    bad = await JobTools(jm).call({"action": "start", "command": "sleep 5", "label": "x\ud800y"})
    assert "label" in bad["error"] and "job" not in bad
    assert jm.jobs() == []
    good = await JobTools(jm).call({"action": "start", "command": "sleep 5", "label": "fine"})
    job_id = good["job"]["id"]
    assert [j["id"] for j in _jobs_on_disk(jm)] == [job_id]
    await jm.kill(job_id, "SIGKILL")
    await jm.close()  # does not raise


async def test_a_command_with_an_undecodable_byte_reaches_the_shell_as_that_byte(
    jm: JobManager, tmp_path: Path
):
    out = tmp_path / "out.bin"
    # What `jobs-tui start -- printf 'a\xffb'` makes of its argv (surrogateescape).
    command = os.fsdecode(b"printf 'a\xffb' > ") + str(out)
    label = os.fsdecode(b"build \xff")
    odd_dir = tmp_path / os.fsdecode(b"d\xfe")
    odd_dir.mkdir()
    rec = await jm.start(command, label=label, cwd=str(odd_dir))
    rec = await jm.wait(rec.id, 10_000)
    assert rec.exit_code == 0 and out.read_bytes() == b"a\xffb"
    assert rec.cwd == str(odd_dir)
    assert "\ufffd" in rec.label  # shown sanitized
    (stored,) = _jobs_on_disk(jm)  # stored losslessly: JSON \u escapes read back the same
    assert stored["command"] == command and stored["cwd"] == str(odd_dir)
    raw = next(Path(jm.paths.root).glob("registry-*.json")).read_bytes()
    assert b"\\udcff" in raw
    raw.decode("utf-8")  # valid UTF-8 on disk


async def test_send_text_with_an_undecodable_byte_arrives_as_that_byte(
    jm: JobManager, tmp_path: Path
):
    out = tmp_path / "in.bin"
    rec = await jm.start(f"cat > {out}", stdin=True)
    details = await JobTools(jm).call(
        {"action": "send", "id": rec.id, "input": "\udcff", "eof": True}
    )
    assert "error" not in details, details
    await jm.wait(rec.id, 10_000)
    assert out.read_bytes() == b"\xff\n"
    refused = await JobTools(jm).call({"action": "send", "id": rec.id, "input": "\ud800"})
    assert "input" in refused["error"]


def test_registry_files_escape_surrogates(tmp_path: Path):
    path = tmp_path / "r.json"
    write_json_atomic(path, {"command": "a\udcffb", "label": "é"})
    raw = path.read_bytes()
    assert b"\\udcff" in raw and "é".encode() in raw
    assert json.loads(raw) == {"command": "a\udcffb", "label": "é"}


async def test_exec_command_carries_undecodable_bytes_and_refuses_other_surrogates(
    ec: ExecCommandTools, tmp_path: Path
):
    out = tmp_path / "out.bin"
    r = await ec.exec_command(cmd=f"printf '\udcfe' > {out}; cat", yield_time_ms=250)
    assert r["status"] == "running", r
    sent = await ec.write_stdin(session_id=r["session_id"], chars="\udcff\\n", end_stdin=True)
    assert sent["bytes_written"] == 2, sent
    await ec.jm.wait(r["job_id"], 10_000)
    assert out.read_bytes() == b"\xfe"
    assert ec.jm.paths.log(r["job_id"]).read_bytes() == b"\xff\n"
    for call, field in [
        ({"cmd": "echo \ud800"}, "cmd"),
        ({"cmd": "true", "workdir": "/tmp/\udbff"}, "workdir"),
    ]:
        bad = await ec.exec_command(call)
        assert bad["status"] == "error" and bad["field"] == field, bad
    live = await ec.exec_command(cmd="cat", yield_time_ms=250)
    bad = await ec.write_stdin(session_id=live["session_id"], chars="\ud800")
    assert bad["field"] == "chars" and "surrogate" in bad["error"]
    await ec.kill_session(session_id=live["session_id"])
    assert len(ec.jm.jobs()) == 2


async def test_process_carries_undecodable_bytes_and_refuses_other_surrogates(
    pt: ProcessTools, tmp_path: Path
):
    out = tmp_path / "out.bin"
    r = await pt.exec(command=f"cat > {out}", background=True, env={"ODD": "\udcff"})
    sid = r["sessionId"]
    w = await pt.process(action="write", sessionId=sid, data="\udcfd", eof=True)
    assert w["bytes"] == 1, w
    await pt.jm.wait(sid, 10_000)
    assert out.read_bytes() == b"\xfd"
    for call, field in [
        ({"action": "write", "sessionId": sid, "data": "\ud800"}, "data"),
        ({"action": "paste", "sessionId": sid, "text": "\udfff"}, "text"),
        ({"action": "send-keys", "sessionId": sid, "literal": "\ud800"}, "literal"),
        ({"action": "send-keys", "sessionId": sid, "keys": ["\ud800"]}, "keys"),
    ]:
        bad = await pt.process(call)
        assert bad["status"] == "error" and bad["field"] == field, bad
    bad = await pt.exec(command="true", env={"A": "\ud800"})
    assert bad["field"] == "env"
    assert len(pt.jm.jobs()) == 1


# -- huge numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize("number", HUGE, ids=HUGE_IDS)
async def test_huge_numbers_in_a_job_call_name_the_field(jm: JobManager, number):
    for call, field in [
        ({"action": "logs", "id": "j1", "lines": number}, "lines"),
        ({"action": "start", "command": "true", "timeoutMs": number}, "timeoutMs"),
        ({"action": "wait", "id": "j1", "timeoutMs": number}, "timeoutMs"),
    ]:
        details = await JobTools(jm).call(call)
        assert field in details["error"] and len(details["error"]) < 200, details
    assert jm.jobs() == []


@pytest.mark.parametrize("number", HUGE, ids=HUGE_IDS)
async def test_huge_numbers_in_exec_command_and_write_stdin_name_the_field(
    ec: ExecCommandTools, number
):
    for call, field in [
        ({"cmd": "true", "yield_time_ms": number}, "yield_time_ms"),
        ({"cmd": "true", "timeout_seconds": number}, "timeout_seconds"),
    ]:
        bad = await ec.exec_command(call)
        assert bad["status"] == "error" and bad["field"] == field, bad
        assert len(bad["error"]) < 200
    assert ec.jm.jobs() == []
    r = await ec.exec_command(cmd="sleep 5", yield_time_ms=250)
    for call, field in [
        ({"session_id": number}, "session_id"),
        ({"session_id": 1, "yield_time_ms": number}, "yield_time_ms"),
        ({"session_id": 1, "cols": number, "rows": 24}, "cols"),
        ({"session_id": 1, "cols": 80, "rows": number}, "rows"),
    ]:
        bad = await ec.write_stdin(call)
        assert bad["status"] == "error" and bad["field"] == field, bad
        assert len(bad["error"]) < 200
    for call, field in [
        ({"session_id": number, "on_exit": "wake"}, "session_id"),
    ]:
        bad = await ec.set_on_exit(call)
        assert bad["field"] == field, bad
    bad = await ec.kill_session(session_id=number)
    assert bad["field"] == "session_id", bad
    await ec.kill_session(session_id=r["session_id"])


@pytest.mark.parametrize("number", HUGE, ids=HUGE_IDS)
async def test_huge_numbers_in_exec_and_process_name_the_field(pt: ProcessTools, number):
    for call, field in [
        ({"command": "true", "yieldMs": number}, "yieldMs"),
        ({"command": "true", "timeout": number}, "timeout"),
    ]:
        bad = await pt.exec(call)
        assert bad["status"] == "error" and bad["field"] == field, bad
    assert pt.jm.jobs() == []
    r = await pt.exec(command="echo hi", yieldMs=5000)
    sid = r["sessionId"]
    for call, field in [
        ({"action": "log", "sessionId": sid, "offset": number}, "offset"),
        ({"action": "log", "sessionId": sid, "limit": number}, "limit"),
        ({"action": "poll", "sessionId": sid, "timeout": number}, "timeout"),
    ]:
        bad = await pt.process(call)
        assert bad["status"] == "error" and bad["field"] == field, bad
        assert len(bad["error"]) < 200


# -- long input is quoted short ----------------------------------------------------------------


async def test_messages_quote_at_most_a_short_part_of_the_input(
    jm: JobManager, ec: ExecCommandTools, pt: ProcessTools
):
    errors = [
        (await JobTools(jm).call({"action": "status", "id": "j" + LONG}))["error"],
        (await JobTools(jm).call({"action": "kill", "id": "j1", "signal": LONG}))["error"],
        (await JobTools(jm).call({"action": LONG}))["error"],
        (await JobTools(jm).call({"action": "list", LONG: 1}))["error"],
        (await JobTools(jm).call({"action": "start", "command": "x", "cwd": "/" + LONG}))["error"],
        (await ec.write_stdin(session_id=LONG))["error"],
        (await ec.write_stdin(session_id=1, chars="\\q" + LONG))["error"],
        (await ec.write_stdin(session_id=1, yield_until=LONG))["error"],
        (await ec.exec_command(cmd="x", on_exit=LONG))["error"],
        (await pt.process(action="poll", sessionId=LONG))["error"],
        (await pt.process(action="send-keys", sessionId="j1", keys=["C-" + LONG[:250]]))["error"],
        (await pt.process(action="send-keys", sessionId="j1", hex=[LONG[:4] + "z"]))["error"],
        (await pt.exec(command="x", env={"1" + LONG: "v"}))["error"],
        (await pt.process(action=LONG))["error"],
    ]
    for message in errors:
        assert len(message) < 400, message[:200]
    assert all("x" * 81 not in message for message in errors)


def test_schemas_print_as_plain_json():
    from jobs_tui.engine.tools import all_schemas

    text = json.dumps(all_schemas(), ensure_ascii=False)
    text.encode("utf-8")  # no raw surrogate in any pattern
    assert sys.getsizeof(text) < 200_000
