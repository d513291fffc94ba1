"""structuredContent a model can afford (issue 23, item C), measured on real calls.

Claude Code and Codex give the model `structuredContent`, not the text: on a session of
4 jobs every tool's structured JSON must stay within twice its text, hold nothing the
model cannot act on (tokens, paths, pids, the session id), and validate against the
output schema the tool declares. The full record stays the `jobs://job/{id}` resource.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types
import pytest

from jobs_tui.app.mcp.modelview import model_job, model_result, output_schema

from .conftest import Served, serve

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

MAX_RATIO = 2.0
# Registry-record fields no model acts on; none may appear anywhere in a result.
INTERNAL = {
    "startToken",
    "shimToken",
    "shimPid",
    "pid",
    "statusPath",
    "logPath",
    "cgroup",
    "sessionId",
    "startedAt",
    "finishedAt",
    "command",
    "cwd",
}
READY = "sleep 0.3; while :; do echo 'ready on :4711'; sleep 0.2; done"


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


class Meter:
    """Calls tools, checks each result against its declared schema, keeps the sizes."""

    def __init__(self, served: Served, schemas: dict[str, Any]) -> None:
        self.s = served
        self.schemas = schemas
        self.rows: list[tuple[str, int, int]] = []
        self.texts: list[str] = []

    async def call(self, name: str, **args: Any) -> dict[str, Any]:
        result = await self.s.call(name, **args)
        text = self.s.text(result)
        assert not result.is_error, (name, args, text)
        structured = result.structured_content
        assert isinstance(structured, dict), (name, result)
        jsonschema.Draft202012Validator(self.schemas[name]).validate(structured)
        size = len(json.dumps(structured, separators=(",", ":"), ensure_ascii=False))
        self.rows.append((name, len(text), size))
        self.texts.append(text)
        return structured

    def check(self, job_keys: bool = True) -> None:
        print()
        for name, text, size in self.rows:
            print(f"{name:<14} text {text:5d}  structured {size:5d}  ratio {size / text:4.2f}")
        over = [row for row in self.rows if row[2] > MAX_RATIO * row[1]]
        assert not over, over


async def _schemas(served: Served) -> dict[str, Any]:
    tools = (await served.session.list_tools()).tools
    return {tool.name: tool.output_schema for tool in tools}


async def test_every_job_tool_returns_what_a_model_acts_on_within_twice_its_text(project):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        meter = Meter(s, await _schemas(s))
        await meter.call("job_start", command="printf 'compiling\\ndone\\n'")
        await meter.call("job_start", command="echo 'error: no such file: a.c'; exit 2")
        await meter.call("job_start", command="cat", stdin=True, label="echo back")
        await meter.call("job_start", command=READY, label="dev server")
        done = await meter.call("job_wait", id="j1", timeoutMs=10_000)
        assert done["job"]["exitCode"] == 0 and done["job"]["lastLine"] == "done"
        failed = await meter.call("job_wait", id="j2", timeoutMs=10_000)
        assert failed["job"]["exitCode"] == 2 and failed["job"]["status"] == "failed"
        ready = await meter.call("job_wait", id="j4", until="ready on", timeoutMs=10_000)
        assert ready["match"] == {"line": "ready on :4711"}
        listed = await meter.call("job_list")
        assert [j["id"] for j in listed["jobs"]] == ["j4", "j3", "j2", "j1"]
        status = await meter.call("job_status", id="j4")
        assert status["job"]["status"] == "running" and status["processCount"] >= 1
        logs = await meter.call("job_logs", id="j1")
        assert logs["logs"] == "compiling\ndone\n"
        sent = await meter.call("job_send", id="j3", input="hello\n")
        assert sent["sent"] == 6
        short = await meter.call("job_wait", id="j3", timeoutMs=200)
        assert short["reason"] == "timeout" and short["job"]["status"] == "running"
        await meter.call("job_send", id="j3", eof=True)
        both = await meter.call("job_wait", ids=["j3", "j2"], timeoutMs=10_000)
        assert [j["lastLine"] for j in both["jobs"]] == ["hello", "error: no such file: a.c"]
        killed = await meter.call("job_kill", id="j4")
        assert killed["job"]["status"] == "killed" and killed["job"]["signal"] == "SIGTERM"
        restarted = await meter.call("job_restart", id="j1")
        assert restarted["restartOf"] == "j1" and restarted["job"]["id"] == "j5"
        cleared = await meter.call("job_clear", id="j2")
        assert cleared == {"cleared": 1, "ids": ["j2"]}
        (Path(cwd) / "jobs-tui.toml").write_text('[jobs.web]\ncommand = "exec sleep 30"\n')
        upped = await meter.call("job_up")  # issue 26: the declared jobs
        assert [j["name"] for j in upped["started"]] == ["web"]
        downed = await meter.call("job_down")
        assert [j["name"] for j in downed["stopped"]] == ["web"]
        strays = await meter.call("job_strays")  # issue 27: none here
        assert strays == {"strays": []}
        assert "reason" not in done and "signalled" not in killed  # said only when news
        # ... and the text says as much, for the clients that hand the model the text
        texts = dict(zip([name for name, _, _ in meter.rows], meter.texts, strict=True))
        assert "· exit 0 · " in meter.texts[4] and meter.texts[4].endswith("last line: done")
        assert "mem " in texts["job_status"] and " procs" in texts["job_status"]
        assert "exit 2" in texts["job_list"]
        assert "last line: error: no such file: a.c" in texts["job_list"]
        meter.check()
        seen = {name for name, _, _ in meter.rows}
        assert seen == set(meter.schemas), set(meter.schemas) - seen  # every tool measured
        leaked: set[str] = set()
        for row_result in (
            done,
            failed,
            ready,
            listed,
            status,
            logs,
            sent,
            both,
            killed,
            restarted,
            short,
            cleared,
            upped,
            downed,
        ):
            leaked |= _keys(row_result) & INTERNAL
        assert not leaked, leaked

        # The full record is still there, for whoever needs it.
        read = await s.session.read_resource("jobs://job/j4")
        content = read.contents[0]
        assert isinstance(content, types.TextResourceContents)
        full = json.loads(content.text)["job"]
        assert {"startToken", "statusPath", "logPath", "pid", "command", "cwd"} <= set(full)


async def test_a_cut_log_says_where_the_full_log_is_and_a_whole_one_does_not(project):
    cwd, registry = project
    async with serve(cwd, registry, "--max-output-bytes", "1024") as s:
        schemas = await _schemas(s)
        await s.ok("job_start", command="seq 1 2000")
        await s.ok("job_wait", id="j1", timeoutMs=10_000)
        long = await s.ok("job_logs", id="j1", lines=2000)
        jsonschema.Draft202012Validator(schemas["job_logs"]).validate(long)
        assert long["omittedBytes"] > 0 and long["logFile"].endswith("j1.log")
        short = await s.ok("job_logs", id="j1", lines=3)
        assert short["logs"] == "1998\n1999\n2000\n" and short["truncated"]
        assert short["earlierLines"] == 1997 and "logFile" in short
        await s.ok("job_start", command="echo one")
        await s.ok("job_wait", id="j2", timeoutMs=10_000)
        whole = await s.ok("job_logs", id="j2")
        assert "logFile" not in whole and "truncated" not in whole


async def test_the_other_vocabularies_stay_within_twice_their_text(project):
    """exec_command and process results are those tools' own published shapes (their
    text is the same fields as JSON, then the output): measured, not reshaped."""
    cwd, registry = project
    async with serve(cwd, registry, "--tools", "exec_command") as s:
        meter = Meter(s, await _schemas(s))
        await meter.call("exec_command", cmd="printf 'building\\ndone\\n'", yield_time_ms=5000)
        cat = await meter.call("exec_command", cmd="cat", yield_time_ms=300)
        session = cat["session_id"]
        await meter.call("write_stdin", session_id=session, chars="hi\n", yield_time_ms=500)
        await meter.call("list_sessions")
        await meter.call("set_on_exit", session_id=session, on_exit="none")
        await meter.call("kill_session", session_id=session)
        meter.check()
        assert {name for name, _, _ in meter.rows} == set(meter.schemas)
    async with serve(cwd, registry, "--tools", "process") as s:
        meter = Meter(s, await _schemas(s))
        await meter.call("exec", command="printf 'x\\n'; exit 2", yieldMs=5000)
        cat = await meter.call("exec", command="cat", yieldMs=300)
        session = cat["sessionId"]
        for args in (
            {"action": "list"},
            {"action": "write", "sessionId": session, "data": "hi\n"},
            {"action": "log", "sessionId": session},
            {"action": "kill", "sessionId": session},
        ):
            await meter.call("process", **args)
        meter.check()
        assert {name for name, _, _ in meter.rows} == set(meter.schemas)


def test_a_job_says_why_it_was_killed_what_it_left_running_and_whose_it_is():
    """The facts an outcome line states survive; a field with nothing to say is absent."""
    record = {
        "id": "j7",
        "label": "srv\x1b[31m",
        "status": "killed",
        "exitCode": None,
        "signal": "SIGTERM",
        "startedAt": 1000,
        "finishedAt": 4250,
        "lastLine": "",
        "endReason": "deadline",
        "remainingProcesses": 1,
        "sessionId": "other",
        "startToken": "secret",
        "pid": 42,
    }
    job = model_job(record, now_ms=9_999, session="mine")
    assert job == {
        "id": "j7",
        "label": "srv",
        "status": "killed",
        "signal": "SIGTERM",
        "elapsed": 3.2,
        "endReason": "deadline",
        "remainingProcesses": 1,
        "peer": True,
    }
    problem = "registry: j9.json unreadable \x1b]0;pwned\x07"
    listed = model_result(
        "list", {"jobs": [record], "sessionId": "mine", "usage": {}, "problems": [problem]}
    )
    assert listed["problems"] == ["registry: j9.json unreadable"]
    jsonschema.Draft202012Validator(output_schema("list")).validate(listed)
    waited = model_result("wait", {"job": record, "timedOut": True, "reason": "timeout"})
    assert waited["reason"] == "timeout" and "match" not in waited
    jsonschema.Draft202012Validator(output_schema("wait")).validate(waited)
