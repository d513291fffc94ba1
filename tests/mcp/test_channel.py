"""Issue 23 D: `jobs-tui mcp --channel` (Claude Code's `claude/channel`), and wording that
says only what is true: "a notification tells you" only when a channel carries it.

Claude Code 2.1.197 (its bundled cli source) registers a server's channel when the server
declares `capabilities.experimental["claude/channel"]` and the session was started with
`--dangerously-load-development-channels server:NAME` (or `--channels` for allowlisted
plugins); a `notifications/claude/channel` with `{content, meta}` (meta: string values,
identifier keys, others dropped) becomes a `<channel source="NAME" k="v">` message to
the model.
"""

from __future__ import annotations

import re
import time

import pytest

from jobs_tui.app.mcp.handshake import capabilities, instructions, tool_listing

from .raw import RawServer

NOTIFY_PHRASES = ("notification says", "notification tells", "you are told", "told when")
IDENTIFIER = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")


def _said_of_finishes(text: str) -> bool:
    return any(phrase in text.lower() for phrase in NOTIFY_PHRASES)


def _channel_notes(server: RawServer, until: float) -> list[dict]:
    """Every notifications/claude/channel the server sends before `until` (monotonic)."""
    found = []
    while time.monotonic() < until:
        try:
            message = server.next(max(0.05, until - time.monotonic()))
        except AssertionError:
            break
        if message.get("method") == "notifications/claude/channel":
            found.append(message)
    return found


def test_with_channel_the_capability_is_declared_and_each_finish_is_sent(project):
    cwd, registry = project
    server = RawServer(cwd, registry, "--channel")
    try:
        result = server.initialize(client="claude-code")
        assert result["capabilities"]["experimental"] == {"claude/channel": {}}
        assert _said_of_finishes(result["instructions"])
        started, _ = server.call(
            "job_start", {"command": "echo bye-from-b; exit 3", "label": "demo-b"}
        )
        assert _said_of_finishes(started["content"][0]["text"])
        notes = []
        deadline = time.monotonic() + 15
        while not notes and time.monotonic() < deadline:
            notes = _channel_notes(server, min(deadline, time.monotonic() + 1))
        assert len(notes) == 1, notes
        params = notes[0]["params"]
        assert set(params) == {"content", "meta"}
        assert params["content"].startswith("✗ j1 demo-b · exit 3")
        assert "last line: bye-from-b" in params["content"]
        meta = params["meta"]
        assert meta == {"job_id": "j1", "status": "failed", "exit_code": "3"}
        assert all(IDENTIFIER.match(k) and isinstance(v, str) for k, v in meta.items())
        _, seen = server.call("job_start", {"command": "sleep 0.2"})
        _, during = server.call("job_wait", {"id": "j2"})
        more = [n for n in seen + during if n["method"] == "notifications/claude/channel"]
        more += _channel_notes(server, time.monotonic() + 1.0)
        assert [n["params"]["meta"]["job_id"] for n in more] == ["j2"]  # each finish once
        assert more[0]["params"]["meta"]["status"] == "exited"
    finally:
        server.close()


def test_without_channel_nothing_is_declared_sent_or_promised(project):
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        result = server.initialize(client="claude-code")
        assert "experimental" not in result["capabilities"]
        assert not _said_of_finishes(result["instructions"])
        assert "job_wait" in result["instructions"]
        started, _ = server.call("job_start", {"command": "exit 0"})
        text = started["content"][0]["text"]
        assert not _said_of_finishes(text) and "job_wait" in text, text
        listing = server.request("tools/list")["result"]["tools"]
        start = next(t for t in listing if t["name"] == "job_start")
        assert not _said_of_finishes(start["description"])
        server.call("job_wait", {"id": "j1"})
        assert not _channel_notes(server, time.monotonic() + 0.8)
    finally:
        server.close()


@pytest.mark.parametrize("channel", [False, True])
def test_every_string_a_model_reads_is_true_for_the_flag(channel):
    """The instructions and every tool description: a finish is promised as a message only
    with the channel; without it they point to job_wait (with no id for the next finish)."""
    texts = [instructions(channel)]
    for vocabulary in ("job", "exec_command", "process"):
        for tool in tool_listing(vocabulary, channel) or []:
            texts.append(tool["description"])
            for spec in tool["inputSchema"].get("properties", {}).values():
                texts.append(spec.get("description", ""))
    promised = [t for t in texts if _said_of_finishes(t)]
    if channel:
        assert promised  # the instructions and job_start say so
        assert "experimental" in capabilities(True)
    else:
        assert promised == []
        assert "experimental" not in capabilities(False)
        assert "with no id" in instructions(False)
    assert "log notification" not in " ".join(texts)  # no client shows one to its model


@pytest.mark.parametrize("channel", [False, True])
@pytest.mark.parametrize("vocabulary", ["exec_command", "process"])
def test_the_instructions_name_only_tools_the_vocabulary_serves(vocabulary, channel):
    text = instructions(channel, vocabulary)
    served = {tool["name"] for tool in tool_listing(vocabulary, channel) or []}
    named = set(re.findall(r"\b(?:job|exec|process|write|list|set|kill)_[a-z_]+\b", text))
    assert named <= served, named - served
    assert "job_wait" not in text and "job_start" not in text
    assert _said_of_finishes(text) == channel


def test_wake_says_what_carries_it_to_an_agent():
    """`wake` over MCP is the hooks' (the stop hook holds the turn), not a promise that a
    notification will come: said so, with job_wait for a client without them."""
    start = next(t for t in tool_listing("job", False) or [] if t["name"] == "job_start")
    text = start["inputSchema"]["properties"]["wake"]["description"]
    assert "jobs-tui setup" in text and "job_wait" in text and not _said_of_finishes(text)
