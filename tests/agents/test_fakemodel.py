"""The fake model itself: a script's replies on the Messages API, streamed and not, and a
request log that keeps what clients send (unknown paths and proxy CONNECTs included).

No client here, only urllib and a socket, so a broken fake model shows up as itself and
not as a puzzling agent test failure.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest

from .fake_anthropic import AnthropicSpeaker
from .fakemodel import FakeModel, Reply, Turn

pytestmark = pytest.mark.agents

TOOLS = [{"name": "mcp__jobs__job_start", "input_schema": {"type": "object"}}]


def script(turn: Turn) -> Reply:
    result = turn.last_result("job_start")
    if result is None:
        return Reply.call("mcp__jobs__job_start", command="echo hi")
    return Reply.say(f"saw: {result.text}")


def post(model: FakeModel, body: dict) -> bytes:
    request = urllib.request.Request(
        model.url + "/v1/messages?beta=true",
        json.dumps(body).encode(),
        {"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read()


def sse_events(data: bytes) -> list[dict]:
    return [
        json.loads(line[len("data: ") :])
        for line in data.decode().splitlines()
        if line.startswith("data: ")
    ]


def test_a_streamed_tool_call_then_a_reply_to_its_result():
    with FakeModel(AnthropicSpeaker(), script) as model:
        first = {"model": "m", "max_tokens": 9, "tools": TOOLS, "stream": True}
        first["messages"] = [{"role": "user", "content": "go"}]
        events = sse_events(post(model, first))
        kinds = [e["type"] for e in events]
        assert kinds == [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
        block = events[1]["content_block"]
        assert block["type"] == "tool_use" and block["name"] == "mcp__jobs__job_start"
        assert json.loads(events[2]["delta"]["partial_json"]) == {"command": "echo hi"}
        assert events[4]["delta"]["stop_reason"] == "tool_use"
        result = {"type": "tool_result", "tool_use_id": block["id"]}
        result["content"] = [{"type": "text", "text": "✓ j1 started"}]
        second = dict(first, stream=False)
        second["messages"] = [
            *first["messages"],
            {"role": "assistant", "content": [dict(block, input={"command": "echo hi"})]},
            {"role": "user", "content": [result]},
        ]
        message = json.loads(post(model, second))
        assert message["stop_reason"] == "end_turn"
        assert message["content"] == [{"type": "text", "text": "saw: ✓ j1 started"}]
        [first_turn, turn_two] = model.main_turns()
        assert first_turn.tools == ["mcp__jobs__job_start"] and first_turn.stream
        assert turn_two.results()[0].name == "mcp__jobs__job_start"  # named from its call
        found = model.log.find("✓ j1")
        assert found is not None and found.index == 1
        assert found.lines_with("j1") == ["✓ j1 started"]
        assert not model.errors


def test_side_calls_unknown_paths_and_connects_are_logged():
    with FakeModel(AnthropicSpeaker(), script) as model:
        side = {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "title?"}]}
        assert json.loads(post(model, side))["content"][0]["text"] == "ok"  # no tools: side
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(model.url + "/api/hello", timeout=10)
        assert err.value.code == 404
        with socket.create_connection(("127.0.0.1", model.port), timeout=10) as conn:
            conn.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
            assert conn.recv(100).startswith(b"HTTP/1.1 404")
        entry = model.log.wait_for(lambda r: r.method == "CONNECT", timeout=10)
        assert entry is not None and entry.path == "example.com:443"
        assert [f"{r.method} {r.path}" for r in model.log.unknown()] == [
            "GET /api/hello",
            "CONNECT example.com:443",
        ]
        assert model.main_turns() == [] and len(model.turns) == 1
