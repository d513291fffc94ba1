"""The exec_command vocabulary end to end with real processes."""

from __future__ import annotations

import base64
import sys
import time

from jobs_tui.engine import JobManager
from jobs_tui.engine.tools import ExecCommandTools

from .conftest import RAW_KEYS, WINCH, eventually

SUPERVISION = {
    "state",
    "stop_reason",
    "deadline_utc",
    "quiet_ms",
    "log_bytes",
    "log_truncated",
    "cleanup",
}


async def test_a_quick_command_returns_its_exit_result(ec: ExecCommandTools):
    r = await ec.exec_command(cmd="echo out; echo err >&2; exit 3", yield_time_ms=5000)
    assert r["operation"] == "exec_command" and r["running"] is False
    assert r["status"] == "failed" and r["exit_code"] == 3 and r["signal"] is None
    assert r["output"] == "out\nerr\n" and r["wait_status"] == "completed"
    assert r["failure"] == "exited with code 3" and r["log_path"].endswith("j1.log")
    sup = r["supervision"]
    assert set(sup) == SUPERVISION
    assert sup["state"] == "failed" and sup["stop_reason"] == "exit" and sup["log_bytes"] == 8
    assert sup["log_truncated"] is False and sup["cleanup"] == "not_needed"
    assert sup["deadline_utc"].endswith("Z")  # the default 30-minute lifetime


async def test_a_long_command_becomes_a_session_read_once_per_byte(ec: ExecCommandTools):
    started = time.monotonic()
    r = await ec.exec_command(cmd="echo first; sleep 0.6; echo second", yield_time_ms=250)
    assert time.monotonic() - started < 2.5
    assert r["running"] is True and r["session_id"] == 1 and r["wait_status"] == "deadline"
    assert r["output"] == "first\n" and "exit_code" not in r
    empty = await ec.write_stdin(session_id=1, yield_time_ms=0)
    assert empty["output"] == "" and empty["wait_mode"] == "immediate"
    assert empty["wait_status"] == "snapshot"
    done = await ec.write_stdin(session_id="j1", yield_time_ms=10_000)  # returns early on exit
    assert done["wait_status"] == "completed" and done["output"] == "second\n"
    assert done["status"] == "exited" and done["exit_code"] == 0
    again = await ec.write_stdin(session_id=1, yield_time_ms=0)
    assert again["output"] == "" and again["wait_status"] == "completed"


async def test_a_positive_empty_wait_returns_early_on_exit(ec: ExecCommandTools):
    r = await ec.exec_command(cmd="sleep 0.5", yield_time_ms=250)
    started = time.monotonic()
    done = await ec.write_stdin(session_id=r["session_id"], yield_time_ms=1)
    took = time.monotonic() - started
    assert done["status"] == "exited" and done["wait_mode"] == "relative"
    assert 0.1 < took < 4.0  # waited (1 ms became the 5 s minimum) but not past the exit


async def test_input_with_escapes_base64_and_end_of_stdin(ec: ExecCommandTools):
    r = await ec.exec_command(cmd="cat", yield_time_ms=250)
    sid = r["session_id"]
    sent = await ec.write_stdin(session_id=sid, chars=r"one\ttwo\n")
    assert sent["bytes_written"] == 8 and sent["output"] == "one\ttwo\n"
    raw = base64.b64encode(b"\xffbin\n").decode()
    sent = await ec.write_stdin(session_id=sid, chars_b64=raw, end_stdin=True, yield_time_ms=5000)
    assert sent["stdin_closed"] is True and sent["status"] == "exited"
    assert sent["output"] == "\ufffdbin\n"  # the raw byte arrived; output is text


async def test_write_stdin_errors_name_the_field_and_change_nothing(ec: ExecCommandTools):
    r = await ec.exec_command(cmd="cat", yield_time_ms=250)
    sid = r["session_id"]
    cases = [
        ({"chars": "a", "chars_b64": "YQ=="}, "chars_b64"),
        ({"chars_b64": "%%%"}, "chars_b64"),
        ({"chars": "bad \\q"}, "chars"),
        ({"cols": 100}, "rows"),
        ({"cols": 100, "rows": 30}, "cols"),  # a pipe, not a PTY
        ({"yield_until": "2030-01-01T00:00:00Z", "chars": "x"}, "chars"),
        ({"yield_until": "not a time"}, "yield_until"),
        ({"surprise": 1}, "surprise"),
    ]
    for extra, field in cases:
        result = await ec.write_stdin(session_id=sid, **extra)
        assert result["status"] == "error" and result["field"] == field, (extra, result)
        assert result["code"] == "invalid"
    unknown = await ec.write_stdin(session_id=99, yield_time_ms=0)
    assert unknown["code"] == "unknown-id" and unknown["field"] == "session_id"
    nothing = await ec.write_stdin(session_id=sid, chars=r"still here\n", end_stdin=True)
    assert nothing["output"] == "still here\n"  # nothing reached cat before this call
    finished = await ec.write_stdin(session_id=sid, chars="late", yield_time_ms=5000)
    assert finished["code"] == "refused" and "already exited" in finished["error"]


async def test_output_is_bounded_per_call_and_continues_exactly(jm: JobManager):
    ec = ExecCommandTools(jm, output_cap=1000)
    r = await ec.exec_command(cmd="seq 1 2000", yield_time_ms=5000)
    assert r["output_truncated"] is True and r["unread_bytes"] > 0
    assert "more bytes of output are unread" in r["note"] and len(r["output"]) == 1000
    text = r["output"]
    while True:
        more = await ec.write_stdin(session_id=r["session_id"], yield_time_ms=0)
        text += more["output"]
        if not more.get("output_truncated"):
            break
    assert text == "".join(f"{n}\n" for n in range(1, 2001))


async def test_a_lifetime_limit_times_the_job_out(ec: ExecCommandTools):
    r = await ec.exec_command(cmd="sleep 30", timeout_seconds=0.3, yield_time_ms=5000)
    assert r["status"] == "timed_out" and r["running"] is False
    assert r["supervision"]["stop_reason"] == "timed_out" and "lifetime" in r["failure"]


async def test_list_sessions_consumes_neither_output_nor_the_wake(ec: ExecCommandTools):
    r = await ec.exec_command(cmd="sleep 0.4; echo hi", yield_time_ms=250, on_exit="wake")
    assert r["running"] and r["output"] == ""
    await ec.jm.wait(r["job_id"], 5000)
    ec.jm.registry.get(r["job_id"]).seen = False  # as if nobody had waited for it
    listed = await ec.list_sessions()
    (entry,) = listed["sessions"]
    assert entry["unread_bytes"] == 3 and entry["on_exit"] == "wake"
    assert entry["output_bytes_total"] == 3 and set(entry["supervision"]) == SUPERVISION
    assert listed["completed_count"] == listed["just_exited_count"] == 1
    assert [j.id for j in ec.jm.pending_reports()] == ["j1"]
    read = await ec.write_stdin(session_id=1, yield_time_ms=0)
    assert read["output"] == "hi\n" and ec.jm.pending_reports() == []
    assert (await ec.list_sessions(surprise=1))["field"] == "surprise"


async def test_set_on_exit_arms_and_disarms_only(ec: ExecCommandTools):
    r = await ec.exec_command(cmd="sleep 30", yield_time_ms=250)
    armed = await ec.set_on_exit(session_id=r["session_id"], on_exit="wake")
    assert armed["on_exit"] == "wake" and ec.jm.get("j1").wake is True
    assert armed["running"] is True
    off = await ec.set_on_exit({"session_id": 1, "on_exit": "none"})
    assert off["on_exit"] == "none" and ec.jm.get("j1").wake is False
    bad = await ec.set_on_exit(session_id=1, on_exit="none", yield_time_ms=0)
    assert bad["field"] == "yield_time_ms"
    await ec.kill_session(session_id=1)


async def test_kill_session_reports_killed_and_escalated(ec: ExecCommandTools):
    plain = await ec.exec_command(cmd="sleep 30", yield_time_ms=250)
    k = await ec.kill_session(session_id=plain["session_id"])
    assert k["killed"] is True and k["escalated"] is False and k["status"] == "killed"
    assert k["signal"] == "SIGTERM" and k["supervision"]["cleanup"] == "unconfirmed"
    stubborn = await ec.exec_command(cmd="trap '' TERM; sleep 30", yield_time_ms=250)
    k = await ec.kill_session(session_id=stubborn["session_id"])
    assert k["killed"] is True and k["escalated"] is True and k["signal"] == "SIGKILL"
    again = await ec.kill_session(session_id=stubborn["session_id"])
    assert again["killed"] is False and "already exited" in again["note"]
    assert ec.jm.pending_reports() == []  # an explicit stop is not notified


async def test_pty_repl_round_trip_and_resize(ec: ExecCommandTools):
    r = await ec.exec_command(cmd=f"{sys.executable} -q", tty=True, yield_time_ms=250)
    sid = r["session_id"]

    async def read() -> str:
        return (await ec.write_stdin(session_id=sid, yield_time_ms=0))["output"]

    sent = await ec.write_stdin(session_id=sid, chars=r"print(6 * 7)\r")
    assert "42" in await eventually(read, "42", r["output"] + sent["output"])
    bad = await ec.write_stdin(session_id=sid, end_stdin=True)
    assert bad["field"] == "end_stdin"
    await ec.write_stdin(session_id=sid, chars=r"exit()\r", yield_time_ms=5000)
    done = await ec.write_stdin(session_id=sid, yield_time_ms=5000)
    assert done["status"] == "exited"

    w = await ec.exec_command(cmd=f"{sys.executable} -c {_q(WINCH)}", tty=True, yield_time_ms=250)
    sid = w["session_id"]
    assert "size 80 24" in await eventually(read, "size 80 24", w["output"])
    resized = await ec.write_stdin(session_id=sid, cols=120, rows=40, yield_time_ms=1000)
    assert "size 120 40" in await eventually(read, "size 120 40", resized["output"])
    await ec.kill_session(session_id=sid)


async def test_pty_input_keeps_raw_control_bytes(ec: ExecCommandTools):
    command = f"{sys.executable} -c {_q(RAW_KEYS)}"
    r = await ec.exec_command(cmd=command, tty=True, yield_time_ms=250)
    sid = r["session_id"]

    async def read() -> str:
        return (await ec.write_stdin(session_id=sid, yield_time_ms=0))["output"]

    await eventually(read, "ready", r["output"])
    sent = await ec.write_stdin(session_id=sid, chars=r"\e[A\x03q", yield_time_ms=1000)
    seen = await eventually(read, "q'", sent["output"])
    assert r"\x1b[A\x03q" in seen
    assert (await ec.write_stdin(session_id=sid, yield_time_ms=5000))["status"] == "exited"


async def test_invalid_calls_start_nothing(ec: ExecCommandTools):
    for call in ({"cmd": "echo x", "tty": 1}, {"cmd": "echo x", "workdir": "/no/such/dir"}):
        result = await ec.exec_command(call)
        assert result["status"] == "error"
    assert ec.jm.jobs() == []
    assert (await ec.call("no_such_tool", {}))["field"] == "tool"


def _q(code: str) -> str:
    import shlex

    return shlex.quote(code)


async def test_yield_until_waits_for_an_absolute_time(ec: ExecCommandTools):
    from jobs_tui.engine.tools.common import iso_utc

    r = await ec.exec_command(cmd="sleep 30", yield_time_ms=250)
    started = time.monotonic()
    until = iso_utc(time.time() * 1000 + 400)
    w = await ec.write_stdin(session_id=r["session_id"], yield_until=until)
    took = time.monotonic() - started
    assert w["wait_mode"] == "absolute" and w["wait_status"] == "deadline" and w["running"]
    assert 0.25 < took < 3.0
    past = await ec.write_stdin(session_id=r["session_id"], yield_until="2001-01-01T00:00:00Z")
    assert past["wait_status"] == "deadline" and past["wait_mode"] == "absolute"
    far = await ec.write_stdin(session_id=r["session_id"], yield_until="2999-01-01T00:00:00Z")
    assert far["field"] == "yield_until" and "24 hours" in far["error"]
    await ec.kill_session(session_id=r["session_id"])


async def test_a_finished_job_is_seen_only_once_its_output_is_read(jm: JobManager):
    # Its result is reported only when the last unread byte went out: before that the
    # job still has news, and pruning must not take it (issue 8, item 3).
    ec = ExecCommandTools(jm, output_cap=1000)
    r = await ec.exec_command(cmd="seq 1 2000", yield_time_ms=5000)
    assert r["running"] is False and r["output_truncated"] is True
    assert jm.get(r["job_id"]).seen is False
    while True:
        more = await ec.write_stdin(session_id=r["session_id"], yield_time_ms=0)
        if not more.get("output_truncated"):
            break
        assert jm.get(r["job_id"]).seen is False
    assert jm.get(r["job_id"]).seen is True
