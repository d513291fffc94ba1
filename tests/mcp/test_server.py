"""`jobs-tui mcp` in a subprocess, driven by the SDK's own stdio client (real jobs)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import anyio
import psutil
import pytest

from jobs_tui.engine import job_tool_schema

from .conftest import ENTRY, serve

# subscribe and logging are what clients use today; the SDK warns they go in 2026-07-28
pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.02)
    return _gone(pid)


def _tree(pid: int) -> list[int]:
    """The job's shell and its descendants, once it has forked its command."""
    deadline = time.monotonic() + 5
    while not (children := psutil.Process(pid).children(recursive=True)):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return [pid, *(child.pid for child in children)]


async def test_tools_are_listed_with_input_and_output_schemas(project):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        tools = {tool.name: tool for tool in (await s.session.list_tools()).tools}
        actions = job_tool_schema()["properties"]["action"]["enum"]
        assert set(tools) == {f"job_{action}" for action in actions}
        for tool in tools.values():
            assert tool.input_schema["type"] == "object"
            assert "action" not in tool.input_schema["properties"]
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
            assert tool.description and len(tool.description) > 40
        assert tools["job_start"].input_schema["required"] == ["command"]
        assert tools["job_kill"].annotations.destructive_hint is True
        assert tools["job_status"].annotations.read_only_hint is True
        caps = s.session.server_capabilities
        assert caps is not None and caps.logging is not None
        assert caps.resources is not None and caps.resources.subscribe


async def test_start_send_logs_wait_kill_and_errors_naming_the_field(project):
    cwd, registry = project
    async with serve(cwd, registry, "--max-output-bytes", "2048") as s:
        started = await s.ok("job_start", command="cat", stdin=True, label="echo back")
        job = started["job"]
        assert job["id"] == "j1" and job["status"] == "running"
        full = await s.record("j1")
        assert full["sessionId"].startswith("mcp-") and full["cwd"] == cwd
        sent = await s.ok("job_send", id="j1", input="hello \x1b[31mthere")
        assert sent["sent"] > 0
        await s.ok("job_send", id="j1", eof=True)
        waited = await s.call("job_wait", id="j1", timeoutMs=10_000)
        assert not waited.is_error and "✓ j1 echo back · exit 0" in s.text(waited)
        logs = await s.call("job_logs", id="j1")
        assert "hello there" in s.text(logs) and "\x1b" not in s.text(logs)
        assert "full log: " in s.text(logs)

        # a long output: head and tail under the limit, with the marker
        await s.ok("job_start", command="seq 1 50000", label="long")
        await s.ok("job_wait", id="j2", timeoutMs=10_000)
        long = await s.call("job_logs", id="j2", lines=2000)
        text = s.text(long)
        assert "lines / " in text and "bytes omitted …" in text
        assert len(long.structured_content["logs"].encode()) <= 2048
        assert text.rstrip().splitlines()[-2] == "50000"  # the tail, then where the log is

        # errors: tool results with isError, naming the field, nothing started
        bad = await s.call("job_start", command="sleep 1", timeoutMs=0)
        assert bad.is_error and "timeoutMs" in s.text(bad) and "for job_start" in s.text(bad)
        assert bad.structured_content is None  # an error is its text (issue 23)
        unknown = await s.call("job_status", id="j99")
        assert unknown.is_error and "j99" in s.text(unknown)
        stray = await s.call("job_kill", id="j1", action="clear")
        assert stray.is_error and s.text(stray).startswith("action")
        nothing = await s.call("no_such_tool")
        assert nothing.is_error and "job_start" in s.text(nothing)
        listed = await s.ok("job_list")
        assert [j["id"] for j in listed["jobs"]] == ["j2", "j1"] or len(listed["jobs"]) == 2

        # kill a running job: its tree is gone when the result comes back
        await s.ok("job_start", command="sleep 30", label="sleeper")
        pid = (await s.record("j3"))["pid"]
        killed = await s.call("job_kill", id="j3")
        assert not killed.is_error and "killed" in s.text(killed)
        assert _gone(pid)
        again = await s.call("job_kill", id="j3")  # the job tool's answer: a note, no signal
        assert again.structured_content["signalled"] is False
        assert "already finished" in s.text(again)


async def test_finish_notification_and_resource_subscription(project):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        await s.ok("job_start", command="sleep 0.8; echo step one; sleep 0.4; exit 3", label="t")
        await s.session.subscribe_resource("jobs://job/j1")
        await s.session.subscribe_resource("jobs://job/j1/log")
        # no request from here on until the notifications arrive: nobody polls
        await s.until(lambda: s.logs)
        note = s.logs[0]
        assert note.level == "warning" and note.logger == "jobs"
        assert note.data.startswith("✗ j1 t · exit 3")
        assert "last line: step one" in note.data
        await s.until(lambda: {"jobs://job/j1", "jobs://job/j1/log"} <= set(s.updates))
        read = await s.session.read_resource("jobs://job/j1")
        details = json.loads(read.contents[0].text)
        assert details["job"]["status"] == "failed" and details["job"]["exitCode"] == 3
        log = await s.session.read_resource("jobs://job/j1/log")
        assert "step one" in log.contents[0].text
        listing = await s.session.read_resource("jobs://jobs")
        assert [j["id"] for j in json.loads(listing.contents[0].text)["jobs"]] == ["j1"]

        resources = {str(r.uri) for r in (await s.session.list_resources()).resources}
        assert {"jobs://jobs", "jobs://job/j1", "jobs://job/j1/log"} <= resources
        templates = (await s.session.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} == {"jobs://job/{id}", "jobs://job/{id}/log"}

        await s.ok("job_start", command="true", label="fine")
        await s.until(lambda: len(s.logs) == 2)
        assert s.logs[1].level == "info" and s.logs[1].data.startswith("✓ j2 fine · exit 0")

        await s.session.set_logging_level("warning")  # successes are no longer told
        await s.ok("job_start", command="true", label="quiet")
        await s.ok("job_wait", id="j3", timeoutMs=10_000)
        await s.ok("job_start", command="exit 1", label="loud")
        await s.until(lambda: len(s.logs) == 3)
        assert s.logs[2].data.startswith("✗ j4 loud · exit 1")  # and nothing about j3


async def test_output_updates_at_most_once_a_second(project):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        await s.ok("job_start", command="for i in $(seq 30); do echo $i; sleep 0.1; done")
        await s.session.subscribe_resource("jobs://job/j1/log")
        started = time.monotonic()
        await s.until(lambda: s.logs, timeout=15)
        took = time.monotonic() - started
        await anyio.sleep(0.3)
        output_updates = [u for u in s.updates if u == "jobs://job/j1/log"]
        assert len(output_updates) >= 2  # told while it printed, not only at the end
        assert len(output_updates) <= took + 2  # at most one a second, plus the finish's


async def test_wait_sends_progress_and_a_cancelled_wait_leaves_the_job_running(project):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        await s.ok("job_start", command="echo warming up; sleep 30", label="server")
        progress: list[tuple[float, str | None]] = []
        got = anyio.Event()

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append((value, message))
            if len(progress) >= 2:
                got.set()

        async with anyio.create_task_group() as group:

            async def wait() -> None:
                await s.session.call_tool(
                    "job_wait", {"id": "j1", "timeoutMs": 20_000}, progress_callback=on_progress
                )

            group.start_soon(wait)
            with anyio.fail_after(10):
                await got.wait()
            group.cancel_scope.cancel()  # the client cancels its request
        assert progress[1][0] > progress[0][0]
        assert "j1 running" in (progress[-1][1] or "")
        assert "warming up" in (progress[-1][1] or "")
        status = await s.ok("job_status", id="j1")
        assert status["job"]["status"] == "running"
        await s.ok("job_kill", id="j1")


async def test_closing_stdin_kills_the_sessions_jobs_but_not_a_detached_one(project):
    cwd, registry = project
    waiting = anyio.Event()
    async with serve(cwd, registry) as s:
        await s.ok("job_start", command="sleep 60; true", label="attached")
        await s.ok("job_start", command="sleep 60", label="away", detached=True)
        attached = await s.record("j1")
        detached = await s.record("j2")
        session = attached["sessionId"]
        tree = _tree(attached["pid"])
        assert session == f"mcp-{session.split('-')[1]}"

        # another session (the command line) sees them as a peer's while the server lives
        listed = subprocess.run(
            [*ENTRY, "list", "--json", "--registry-dir", registry],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=60,
            env=dict(os.environ),
        )
        rows = {j["id"]: j for j in json.loads(listed.stdout)["jobs"]}
        assert rows["j1"]["sessionId"] == session and rows["j1"]["status"] == "running"

        async def pending_wait() -> None:  # the client goes away in the middle of a call
            waiting.set()
            await s.session.call_tool("job_wait", {"id": "j1", "timeoutMs": 60_000})

        async with anyio.create_task_group() as group:
            group.start_soon(pending_wait)
            await waiting.wait()
            await anyio.sleep(0.2)
            closed = time.monotonic()
            group.cancel_scope.cancel()
    server_pid = int(session.split("-")[1])
    for pid in tree:  # the whole tree, not only its shell: no orphan
        assert _wait_gone(pid, max(0.1, 2.0 - (time.monotonic() - closed))), pid
    assert _wait_gone(server_pid, 2.0)
    assert not _gone(detached["pid"])

    # the next session adopts the detached job (and may stop it)
    async with serve(cwd, registry) as s:
        listed = await s.ok("job_list")
        mine = {j["id"]: j for j in listed["jobs"]}
        assert mine["j2"]["status"] == "running"
        assert "peer" not in mine["j2"]  # adopted: this session's own now
        adopted = (await s.record("j2"))["sessionId"]
        assert adopted.startswith("mcp-") and adopted != session
        await s.ok("job_kill", id="j2")
    assert _gone(detached["pid"])


async def test_a_named_session_is_persistent(project):
    cwd, registry = project
    async with serve(cwd, registry, "--session", "agent-1") as s:
        await s.ok("job_start", command="sleep 60")
        job = await s.record("j1")
        assert job["sessionId"] == "agent-1"
    assert not _gone(job["pid"])  # a persistent session's jobs outlive the server
    done = subprocess.run(
        [*ENTRY, "kill", "j1", "--session", "agent-1", "--registry-dir", registry],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        env=dict(os.environ),
    )
    assert done.returncode == 0, done.stderr
    assert _gone(job["pid"])


async def test_other_vocabularies(project):
    cwd, registry = project
    async with serve(cwd, registry, "--tools", "exec_command") as s:
        names = {tool.name for tool in (await s.session.list_tools()).tools}
        assert names == {
            "exec_command",
            "write_stdin",
            "list_sessions",
            "set_on_exit",
            "kill_session",
        }
        ran = await s.ok("exec_command", cmd="printf 'a\\rb\\n'; exit 4", yield_time_ms=5000)
        assert ran["exit_code"] == 4 and ran["output"] == "b\n"
        bad = await s.call("write_stdin", session_id="x")
        assert bad.is_error and "session_id" in s.text(bad) and bad.structured_content is None
    async with serve(cwd, registry, "--tools", "process") as s:
        names = {tool.name for tool in (await s.session.list_tools()).tools}
        assert names == {"exec", "process"}
        ran = await s.ok("exec", command="printf 'x\\033[1m\\n'; exit 2", yieldMs=5000)
        assert ran["exitCode"] == 2 and ran["output"] == "x\n"
        listed = await s.ok("process", action="list")
        assert ran["sessionId"] in [p["sessionId"] for p in listed["sessions"]]
        bad = await s.call("process", action="poll")
        assert bad.is_error and "sessionId" in s.text(bad) and bad.structured_content is None


def test_a_malformed_line_gets_an_answer_and_the_server_goes_on(project):
    cwd, registry = project
    server = subprocess.Popen(
        [*ENTRY, "mcp", "--registry-dir", registry],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    assert server.stdin is not None and server.stdout is not None

    def send(message: object) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        server.stdin.write(text + "\n")
        server.stdin.flush()

    def answer(request_id: int) -> dict:
        while True:
            line = server.stdout.readline()
            assert line, server.stderr.read()
            message = json.loads(line)
            if message.get("id") == request_id:
                return message

    try:
        send("{this is not json")
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            }
        )
        assert "result" in answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 5}})
        assert "error" in answer(2)  # a malformed request: a protocol error, nothing else
        call = {"name": "job_start", "arguments": {"command": "true", "lines": 3}}
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
        result = answer(3)["result"]
        assert result["isError"] is True and "lines" in result["content"][0]["text"]
        send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "job_list"}})
        assert answer(4)["result"]["structuredContent"]["jobs"] == []  # nothing was started
    finally:
        server.stdin.close()
        assert server.wait(timeout=20) == 0
        server.stdout.close()
        server.stderr.close()


def test_the_verb_checks_its_options_before_serving(project):
    cwd, registry = project
    done = subprocess.run(
        [*ENTRY, "mcp", "--max-output-bytes", "10", "--registry-dir", registry],
        capture_output=True,
        text=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2 and "--max-output-bytes" in done.stderr
    bad_dir = os.path.join(cwd, "file")
    open(bad_dir, "w").close()
    done = subprocess.run(
        [*ENTRY, "mcp", "--registry-dir", bad_dir],
        capture_output=True,
        text=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert (
        done.returncode == 2 and "cannot be used" in done.stderr and "Traceback" not in done.stderr
    )


async def test_a_2026_client_gets_the_tools_and_resource_updates_on_its_listen_stream(project):
    """The SDK's default client negotiates 2026-07-28 (no handshake, no unsolicited
    messages): tools work alike, and a finish reaches it as `jobs://job/{id}` updates."""
    from mcp import Client, StdioServerParameters

    cwd, registry = project
    params = StdioServerParameters(
        command=ENTRY[0],
        args=[*ENTRY[1:], "mcp", "--registry-dir", registry],
        env=dict(os.environ),
        cwd=cwd,
    )
    async with Client(params) as client:
        assert client.protocol_version == "2026-07-28"
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"job_start", "job_wait"} <= names
        events = []
        async with client.listen(resource_subscriptions=["jobs://job/j1"]) as subscription:
            started = await client.call_tool("job_start", {"command": "sleep 0.3; exit 5"})
            assert not started.is_error
            with anyio.fail_after(10):
                async for event in subscription:
                    events.append(event)
                    status = await client.call_tool("job_status", {"id": "j1"})
                    if status.structured_content["job"]["status"] != "running":
                        break
        assert events and {e.uri for e in events} == {"jobs://job/j1"}
        assert status.structured_content["job"]["exitCode"] == 5


async def test_a_killed_server_leaves_no_job_behind(project):
    cwd, registry = project
    async with serve(cwd, registry) as s:
        await s.ok("job_start", command="sleep 60; true")
        job = await s.record("j1")
        tree = _tree(job["pid"])
        server_pid = int(job["sessionId"].split("-")[1])
        os.kill(server_pid, signal.SIGKILL)  # no cleanup of its own: the shims see it go
        killed = time.monotonic()
        for pid in tree:
            assert _wait_gone(pid, max(0.1, 3.0 - (time.monotonic() - killed))), pid
