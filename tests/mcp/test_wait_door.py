"""Issue 23 D, "what never needs a client feature": `job_wait` with no id waits for the
next finish, a `port` condition, progress heartbeats with the caller's token, and an
answer before the connected client's own tool-call timeout (`reason: timeout`, the job
left running, the text saying to call job_wait again).

Driven over a real server's stdio, line by line (`raw.RawServer`).
"""

from __future__ import annotations

import socket
import time

import jsonschema
import pytest

from jobs_tui.app.mcp.waitcap import CLIENT_TIMEOUTS, DEFAULT_CAP_S, wait_cap_s
from tests.listening import free_port, listener

from .raw import RawServer


def _conforms(server: RawServer, result: dict) -> None:
    """structuredContent validates against job_wait's output schema (the TypeScript SDK
    refuses a result that does not, and the model never sees it)."""
    tools = server.request("tools/list")["result"]["tools"]
    schema = next(t["outputSchema"] for t in tools if t["name"] == "job_wait")
    jsonschema.validate(result["structuredContent"], schema)


def _text(result: dict) -> str:
    return "\n".join(c["text"] for c in result["content"] if c.get("type") == "text")


def _start(server: RawServer, command: str) -> str:
    result, _ = server.call("job_start", {"command": command})
    assert result.get("isError") is not True, result
    return result["structuredContent"]["job"]["id"]


def test_a_wait_with_no_id_returns_the_next_finish_of_the_sessions_jobs(project):
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        slow = _start(server, "sleep 30")
        quick = _start(server, "sleep 0.4; echo done-quick; exit 3")
        result, _ = server.call("job_wait", {"timeoutMs": 20_000})
        assert result.get("isError") is not True, result
        job = result["structuredContent"]["job"]
        assert job["id"] == quick and job["status"] == "failed" and job["exitCode"] == 3
        _conforms(server, result)
        assert "reason" not in result["structuredContent"]  # it finished: the status says so
        assert quick in _text(result) and "exit 3" in _text(result)
        status, _ = server.call("job_status", {"id": slow})
        assert status["structuredContent"]["job"]["status"] == "running"
    finally:
        server.close()


def test_a_finish_no_one_was_told_of_is_the_next_finish_once(project):
    """A job that ended while the model was busy (no wait, no status saw it) is what a
    wait with no id returns, at once; then it has been told, nothing runs, and the next
    such wait answers at once that nothing runs (not an error, not at its timeout)."""
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        _start(server, "sleep 1; echo gone; exit 5")  # ends after the start answered
        deadline = time.monotonic() + 15
        while True:  # the list does not report a finish (seen stays false)
            listed, _ = server.call("job_list", {})
            if listed["structuredContent"]["jobs"][0]["status"] != "running":
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        began = time.monotonic()
        result, _ = server.call("job_wait", {"timeoutMs": 30_000})
        assert time.monotonic() - began < 5
        assert result["structuredContent"]["job"]["exitCode"] == 5
        began = time.monotonic()
        again, _ = server.call("job_wait", {"timeoutMs": 60_000})
        assert time.monotonic() - began < 5  # at once, not at the timeout
        assert again.get("isError") is not True, again
        assert again["structuredContent"] == {"reason": "none-running"}
        assert "no job of this session is running" in _text(again)
        _conforms(server, again)
    finally:
        server.close()


def test_a_port_wait_returns_when_the_jobs_tree_listens(project):
    cwd, registry = project
    port = free_port()
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        job_id = _start(server, listener(port, 0.8))
        began = time.monotonic()
        result, _ = server.call("job_wait", {"id": job_id, "port": port, "timeoutMs": 20_000})
        took = time.monotonic() - began
        assert result.get("isError") is not True, result
        structured = result["structuredContent"]
        assert structured["reason"] == "port" and structured["job"]["status"] == "running"
        assert structured["listening"] == {"port": port}
        assert f":{port}" in _text(result)
        _conforms(server, result)
        assert 0.5 < took < 10, took
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # it really listens
        # with no id: whichever of the session's running jobs listens, named by `job`
        anyone, _ = server.call("job_wait", {"port": port, "timeoutMs": 20_000})
        assert anyone["structuredContent"]["reason"] == "port"
        assert anyone["structuredContent"]["job"]["id"] == job_id
        _conforms(server, anyone)
        # a port it never opens: the wait times out, the job left running
        other = free_port()
        result, _ = server.call("job_wait", {"id": job_id, "port": other, "timeoutMs": 600})
        assert result["structuredContent"]["reason"] == "timeout"
        assert result["structuredContent"]["job"]["status"] == "running"
        for bad in (0, 65536, "80"):  # a port is a TCP port number, of a wait only
            refused, _ = server.call("job_wait", {"id": job_id, "port": bad})
            assert refused.get("isError") is True and "port" in _text(refused), (bad, refused)
        refused, _ = server.call("job_status", {"id": job_id, "port": 80})
        assert refused.get("isError") is True and "port" in _text(refused)
        server.call("job_kill", {"id": job_id})
    finally:
        server.close()


def test_progress_heartbeats_carry_the_callers_token_while_the_wait_blocks(project):
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        _start(server, "sleep 1.6")
        result, notes = server.call("job_wait", {"id": "j1"}, token="beat")
        assert result["structuredContent"]["job"]["status"] == "exited"
        beats = [n for n in notes if n["method"] == "notifications/progress"]
        assert len(beats) >= 2, notes
        assert all(b["params"]["progressToken"] == "beat" for b in beats)
        values = [b["params"]["progress"] for b in beats]
        assert values == sorted(values) and values[-1] > values[0]
        # no token, no heartbeats
        _start(server, "sleep 1.2")
        _, notes = server.call("job_wait", {"id": "j2"})
        assert not [n for n in notes if n["method"] == "notifications/progress"]
    finally:
        server.close()


def test_a_wait_is_capped_below_the_clients_own_timeout(project):
    """Claude Code's timeout is MCP_TOOL_TIMEOUT (ms) from the environment it gives the
    server: here 1.5 s, so a 60 s wait answers in about 1.35 s, the job left running."""
    cwd, registry = project
    server = RawServer(cwd, registry, env={"MCP_TOOL_TIMEOUT": "1500"})
    try:
        server.initialize(client="claude-code")
        _start(server, "sleep 30")
        began = time.monotonic()
        result, _ = server.call("job_wait", {"id": "j1", "timeoutMs": 60_000})
        took = time.monotonic() - began
        assert result.get("isError") is not True, result
        assert result["structuredContent"]["reason"] == "timeout"
        assert result["structuredContent"]["job"]["status"] == "running"
        assert "call job_wait again" in _text(result)
        _conforms(server, result)
        assert 1.0 < took < 1.5 + 2, took
        server.call("job_kill", {"id": "j1"})
    finally:
        server.close()


@pytest.mark.parametrize(
    ("client", "token", "env", "cap"),
    [
        ("codex-mcp-client", None, {}, 54.0),  # Codex: tool_timeout_sec, default 60 s
        ("codex-mcp-client", "t", {}, 54.0),  # its timer ignores progress
        ("gemini-cli-mcp-client", None, {}, 540.0),  # Gemini CLI: 10 min
        ("opencode", "t", {}, None),  # progress resets its 60 s: no cap while it beats
        ("opencode", None, {}, 54.0),
        ("claude-code", None, {}, None),  # 1e8 ms by default: nothing to cap
        ("claude-code", None, {"MCP_TOOL_TIMEOUT": "20000"}, 18.0),
        ("claude-code", None, {"MCP_TOOL_TIMEOUT": "junk"}, None),
        ("mcp-inspector", None, {}, DEFAULT_CAP_S),  # unknown: the TS SDK's 60 s
        (None, None, {}, DEFAULT_CAP_S),
    ],
)
def test_each_clients_cap(client, token, env, cap):
    assert wait_cap_s(client, token is not None, env) == cap
    assert {"claude-code", "codex-mcp-client", "gemini-cli-mcp-client", "opencode"} <= set(
        CLIENT_TIMEOUTS
    )


def test_the_cap_shortens_only_a_longer_wait_and_leaves_bad_values_to_the_validator():
    from jobs_tui.app.mcp.waitcall import capped

    assert capped({"id": "j1", "timeoutMs": 60_000}, 54.0)["timeoutMs"] == 54_000
    assert capped({"timeoutMs": 60_000.0}, 54.0)["timeoutMs"] == 54_000
    assert capped({"id": "j1"}, 9.0)["timeoutMs"] == 9_000  # the default 30 s counts
    assert capped({"id": "j1"}, 54.0) == {"id": "j1"}
    assert capped({"timeoutMs": 600_000}, None) == {"timeoutMs": 600_000}
    for bad in (-5, True, "60000", float("inf")):
        assert capped({"timeoutMs": bad}, 1.0) == {"timeoutMs": bad}
