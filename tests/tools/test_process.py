"""The exec/process vocabulary end to end, and one engine under all three vocabularies."""

from __future__ import annotations

import shlex
import sys

from jobs_tui.engine import JobManager
from jobs_tui.engine.tools import ExecCommandTools, JobTools, ProcessTools

from .conftest import RAW_KEYS, eventually


async def test_exec_in_the_foreground_returns_output_and_code(pt: ProcessTools):
    ok = await pt.exec(command="echo hello")
    assert ok["status"] == "completed" and ok["exitCode"] == 0 and ok["output"] == "hello\n"
    assert ok["text"] == "hello\n" and ok["name"] == "echo hello"
    bad = await pt.exec(command="echo nope; exit 4", yieldMs=5000)
    assert bad["status"] == "failed" and bad["exitCode"] == 4
    assert bad["text"] == "nope\n\n\nProcess exited with code 4."


async def test_exec_env_workdir_and_background(pt: ProcessTools, tmp_path):
    env = {"GREETING": "it's a $HOME `day`", "EMPTY": ""}
    r = await pt.exec(
        command='printf "%s|%s" "$GREETING" "$EMPTY"; pwd', env=env, workdir=str(tmp_path)
    )
    assert r["output"] == f"it's a $HOME `day`|{tmp_path}\n"
    listed = await pt.process(action="list")
    assert listed["sessions"][0]["name"] == "printf %s|%s"  # the env prefix is not the verb
    bad = await pt.process(action="list", sessionId="j1")
    assert bad["status"] == "error" and bad["field"] == "sessionId"
    wrong = await pt.exec(command="true", env={"NOT-OK": "x"})
    assert wrong["field"] == "env"
    bg = await pt.exec(command="sleep 0.3; echo late", background=True)
    assert bg["status"] == "running" and bg["sessionId"] == "j2" and "still running" in bg["text"]
    polled = await pt.process(action="poll", sessionId="j2", timeout=5000)
    assert polled["status"] == "completed" and polled["output"] == "late\n"
    assert polled["text"] == "late\n\nProcess exited with code 0."


async def test_poll_drains_each_byte_once(pt: ProcessTools):
    r = await pt.exec(command="echo a; sleep 0.4; echo b", yieldMs=10)
    assert r["status"] == "running"
    first = await pt.process(action="poll", sessionId=r["sessionId"])
    assert first["text"].endswith("Process still running.")
    rest = await pt.process(action="poll", sessionId=r["sessionId"], timeout=5000)
    assert r["output"] + first["output"] + rest["output"] == "a\nb\n"
    empty = await pt.process(action="poll", sessionId=r["sessionId"])
    assert empty["output"] == "" and empty["text"].startswith("(no new output)")


async def test_concurrent_reads_never_return_a_byte_twice(pt: ProcessTools):
    import asyncio

    pt.output_cap = 700
    r = await pt.exec(command="seq 1 1000; sleep 0.2", yieldMs=10)
    parts = await asyncio.gather(
        *(pt.process(action="poll", sessionId=r["sessionId"], timeout=3000) for _ in range(8))
    )
    text = r["output"] + "".join(p["output"] for p in parts)
    while True:
        more = await pt.process(action="poll", sessionId=r["sessionId"])
        if not more["output"]:
            break
        text += more["output"]
    assert sorted(text.split()) == sorted(str(n) for n in range(1, 1001))


async def test_log_pages_by_lines_with_a_default_tail_and_hint(pt: ProcessTools):
    r = await pt.exec(command="seq 1 450")
    sid = r["sessionId"]
    tail = await pt.process(action="log", sessionId=sid)
    assert tail["lines"] == 200 and tail["offset"] == 250 and tail["totalLines"] == 450
    assert tail["output"].split("\n")[0] == "251"
    assert tail["text"].endswith("[showing last 200 of 450 lines; pass offset/limit to page]")
    page = await pt.process(action="log", sessionId=sid, offset=10, limit=3)
    assert page["output"] == "11\n12\n13" and page["totalLines"] == 450
    rest = await pt.process(action="log", sessionId=sid, offset=440)
    assert rest["output"].split("\n") == [str(n) for n in range(441, 451)]
    last = await pt.process(action="log", sessionId=sid, limit=2)
    assert last["output"] == "449\n450" and "showing" not in last["text"]
    big = await pt.process(action="log", sessionId=sid, limit=3000)
    assert big["lines"] == 450
    short = await pt.exec(command="echo only")
    small = await pt.process(action="log", sessionId=short["sessionId"])
    assert small["text"] == "only"


async def test_write_and_eof_through_a_pipe(pt: ProcessTools):
    r = await pt.exec(command="cat", background=True)
    sid = r["sessionId"]
    w = await pt.process(action="write", sessionId=sid, data="line\n")
    assert w["bytes"] == 5 and w["stdinClosed"] is False and w["status"] == "running"
    closed = await pt.process(action="write", sessionId=sid, eof=True)
    assert closed["stdinClosed"] is True and "(stdin closed)" in closed["text"]
    polled = await pt.process(action="poll", sessionId=sid, timeout=5000)
    assert polled["output"] == "line\n" and polled["status"] == "completed"
    again = await pt.process(action="write", sessionId=sid, data="x")
    assert again["code"] == "refused" and again["field"] == "sessionId"
    empty = await pt.process(action="write", sessionId=sid)
    assert empty["field"] == "data"


async def test_send_keys_submit_and_bracketed_paste_reach_a_terminal(pt: ProcessTools):
    r = await pt.exec(command=f"{sys.executable} -c {shlex.quote(RAW_KEYS)}", pty=True, yieldMs=10)
    sid = r["sessionId"]

    async def read() -> str:
        return (await pt.process(action="poll", sessionId=sid))["output"]

    await eventually(read, "ready", r["output"])
    keys = ["Up", "C-c", "M-x", "F5", "S-Tab", "hi"]
    sent = await pt.process(action="send-keys", sessionId=sid, keys=keys, hex=["1b", "0x4f"])
    assert sent["bytes"] == 2 + 3 + 1 + 2 + 5 + 3 + 2
    seen = await eventually(read, "hi'")
    assert r"b'\x1bO\x1b[A\x03\x1bx\x1b[15~\x1b[Zhi'" in seen.replace("\n", "")
    await pt.process(action="submit", sessionId=sid)
    assert r"b'\r'" in await eventually(read, r"b'\r'")
    await pt.process(action="paste", sessionId=sid, text="two\nlines")
    seen = await eventually(read, "201~'")
    assert r"\x1b[200~two\nlines\x1b[201~" in seen.replace("\n", "")
    await pt.process(action="paste", sessionId=sid, text="raw", bracketed=False)
    assert "b'raw'" in await eventually(read, "b'raw'")
    bad = await pt.process(action="send-keys", sessionId=sid, keys=["C-Nope"])
    assert bad["field"] == "keys"
    none = await pt.process(action="send-keys", sessionId=sid)
    assert none["field"] == "keys"
    await pt.process(action="send-keys", sessionId=sid, literal="q")
    done = await pt.process(action="poll", sessionId=sid, timeout=5000)
    assert done["status"] == "completed"


async def test_send_keys_follow_the_programs_cursor_key_mode(pt: ProcessTools):
    program = RAW_KEYS.replace("print('ready'", "print('\\x1b[?1hready'")
    r = await pt.exec(command=f"{sys.executable} -c {shlex.quote(program)}", pty=True, yieldMs=10)
    sid = r["sessionId"]

    async def read() -> str:
        return (await pt.process(action="poll", sessionId=sid))["output"]

    await eventually(read, "ready", r["output"])
    await pt.process(action="send-keys", sessionId=sid, keys=["Up", "q"])
    assert r"b'\x1bOAq'" in await eventually(read, "q'")


async def test_kill_clear_and_remove(pt: ProcessTools):
    running = await pt.exec(command="sleep 30", background=True)
    sid = running["sessionId"]
    refused = await pt.process(action="clear", sessionId=sid)
    assert refused["code"] == "refused"
    killed = await pt.process(action="kill", sessionId=sid)
    assert killed["killed"] is True and killed["state"] == "killed"
    assert (await pt.process(action="kill", sessionId=sid))["code"] == "refused"
    cleared = await pt.process(action="clear", sessionId=sid)
    assert cleared["text"] == f"Cleared {sid}."
    assert (await pt.process(action="poll", sessionId=sid))["code"] == "unknown-id"
    other = await pt.exec(command="sleep 30", background=True)
    removed = await pt.process(action="remove", sessionId=other["sessionId"])
    assert removed["text"] == f"Removed {other['sessionId']}."
    assert (await pt.process(action="list"))["text"] == "No running or recent sessions."


async def test_fields_must_apply_to_the_action(pt: ProcessTools):
    r = await pt.process(action="poll", sessionId="j1", data="x")
    assert r["status"] == "error" and r["field"] == "data" and "does not apply" in r["text"]
    assert (await pt.process(action="fly"))["field"] == "action"
    assert (await pt.process(action="poll"))["field"] == "sessionId"
    assert (await pt.call("nope", {}))["field"] == "tool"


async def test_one_engine_under_all_three_vocabularies(jm: JobManager):
    ec = ExecCommandTools(jm)
    pt = ProcessTools(jm)
    assert pt.cursors is ec.cursors  # one reader: this session
    started = await ec.exec_command(cmd="echo one; sleep 0.4; echo two", yield_time_ms=250)
    assert started["output"] == "one\n"
    via_process = await pt.process(action="poll", sessionId=started["job_id"], timeout=5000)
    assert via_process["output"] == "two\n"  # only what the other vocabulary had not returned
    via_job = await JobTools(jm).call({"action": "list"})
    assert [j["id"] for j in via_job["jobs"]] == ["j1"]
    assert (await pt.process(action="list"))["sessions"][0]["sessionId"] == "j1"
    job_started = await JobTools(jm).call({"action": "start", "command": "sleep 30", "stdin": True})
    k = await ec.kill_session(session_id=job_started["job"]["id"])
    assert k["killed"] is True
    status = await JobTools(jm).call({"action": "status", "id": "j2"})
    assert status["job"]["status"] == "killed"


async def test_poll_marks_a_finished_job_seen_only_once_its_output_is_read(jm: JobManager):
    pt = ProcessTools(jm, output_cap=1000)
    r = await pt.exec(command="seq 1 2000", yieldMs=5000)
    assert r["status"] == "completed" and r["truncated"] is True
    assert jm.get(r["sessionId"]).seen is False
    polled = await pt.process(action="poll", sessionId=r["sessionId"])
    assert polled["truncated"] is True and jm.get(r["sessionId"]).seen is False
    while polled.get("truncated"):
        polled = await pt.process(action="poll", sessionId=r["sessionId"])
    assert jm.get(r["sessionId"]).seen is True
