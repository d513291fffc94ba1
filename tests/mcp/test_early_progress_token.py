"""Codex 0.171's tools/list carries a progress token, and is answered early like a plain one.

Codex sends `{"method": "tools/list", "params": {"_meta": {"progressToken": 0}}}` right
after the handshake. The early path took only a tools/list without params, so Codex's
went to the SDK, 3-4 s later on a loaded machine, and Codex's first model request had
already gone out without a single jobs tool. A listing answered at once has no progress
to report: the token changes nothing of the answer.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from jobs_tui.app.mcp import early, handshake

from .conftest import ENTRY

CODEX_LISTING = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/list",
    "params": {"_meta": {"progressToken": 0}},
}


@pytest.mark.parametrize(
    "params",
    [{"_meta": {"progressToken": 0}}, {"_meta": {"progressToken": "t-1"}}, {"_meta": {}}],
)
def test_a_tools_list_with_only_a_progress_token_is_plain(params):
    assert early.plain_tools_list(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}
    )


@pytest.mark.parametrize(
    "params",
    [
        {"_meta": {"progressToken": None}},
        {"_meta": {"progressToken": True}},
        {"_meta": {"progressToken": 0, "other": 1}},
        {"_meta": {"progressToken": 0}, "cursor": "x"},
        {"_meta": "x"},
    ],
)
def test_anything_more_than_a_progress_token_goes_to_the_sdk(params):
    assert not early.plain_tools_list(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}
    )


def test_codex_s_listing_is_answered_by_the_early_path():
    """Through `Lines` itself: the answer is written to stdout from the listing offered,
    and the line goes on to the SDK under a private id (to be compared, then dropped)."""
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    tools = handshake.tool_listing("job")
    expected: dict = {}
    lines = early.Lines(stdin_r, stdout_fd=stdout_w, expected=expected, private_prefix="p")
    lines.offer_tools(tools)
    lines.start()
    os.write(stdin_w, json.dumps(CODEX_LISTING).encode() + b"\n")
    os.close(stdin_w)
    lines.thread.join(timeout=10)
    os.close(stdout_w)
    with os.fdopen(stdout_r, "rb") as out:
        answer = json.loads(out.readline())
    os.close(stdin_r)
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}
    assert lines.early_answers == 1
    replayed = [json.loads(line) for line in lines.backlog if line is not None]
    assert [m["id"] for m in replayed] == ["p-tools-1"]
    assert replayed[0]["params"] == CODEX_LISTING["params"]
    assert expected == {"p-tools-1": {"tools": tools}}


def test_codex_s_handshake_gets_one_listing_and_no_disagreement(tmp_path):
    """The real server: Codex's three lines at once; the listing comes once, the SDK
    agrees with it (no "differs" warning), nothing is answered twice."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"experimental": {"codex/auth-change": {}}, "elicitation": {}},
            "clientInfo": {"name": "codex-mcp-client", "title": "Codex", "version": "0.171.0"},
        },
    }
    batch = [initialize, {"jsonrpc": "2.0", "method": "notifications/initialized"}, CODEX_LISTING]
    done = subprocess.run(
        [*ENTRY, "mcp", "--registry-dir", str(tmp_path / "registry")],
        input=b"".join(json.dumps(m).encode() + b"\n" for m in batch),
        capture_output=True,
        cwd=cwd,
        env=dict(os.environ),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("id") for a in answers if "id" in a] == [0, 1], answers
    assert answers[-1]["result"]["tools"] == handshake.tool_listing("job")
    said = done.stderr.decode()
    assert "differs" not in said and "Traceback" not in said, said
