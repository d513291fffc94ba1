"""The Anthropic Messages API, spoken by the fake model (for Claude Code).

`POST /v1/messages` (streaming SSE or not), `POST /v1/messages/count_tokens`, and a
`GET /v1/models` list; any other path is logged as unknown and answered with the API's
own 404 error shape, so a client that probes something new fails soft and shows in the
log. A request is the agent's own conversation (`Turn.main`) when it offers tools;
without tools it is a side call (a title, a summary, a quota probe) and gets the side
script's answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from .fakemodel import FakeModel, Message, Reply, Request, Response, ToolCall, ToolResult, Turn

MODEL = "claude-fake-1"


def _text_of(content: Any) -> str:
    """The text of a content field: a string, or the text blocks of a block list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def parse_turn(request: Request) -> Turn:
    """The neutral view of a Messages request body."""
    body = request.body if isinstance(request.body, dict) else {}
    messages: list[Message] = []
    for m in body.get("messages") or []:
        content = m.get("content")
        msg = Message(role=str(m.get("role", "")))
        if isinstance(content, str):
            msg.text = content
        else:
            texts = []
            for block in content or []:
                kind = block.get("type")
                if kind == "text":
                    texts.append(block.get("text", ""))
                elif kind == "tool_use":
                    msg.calls.append(
                        ToolCall(
                            block.get("name", ""), block.get("input") or {}, block.get("id", "")
                        )
                    )
                elif kind == "tool_result":
                    msg.results.append(
                        ToolResult(
                            block.get("tool_use_id", ""),
                            _text_of(block.get("content")),
                            bool(block.get("is_error")),
                        )
                    )
            msg.text = "\n".join(texts)
        messages.append(msg)
    tools = [t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]
    return Turn(
        request=request,
        messages=messages,
        tools=tools,
        system=_text_of(body.get("system")),
        stream=bool(body.get("stream")),
        main=bool(tools),
    )


def _blocks(model: FakeModel, reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text or not reply.calls:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.calls:
        call.id = call.id or model.new_id("toolu_fake")
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        )
    return blocks


def _usage(request: Request) -> dict[str, int]:
    return {
        "input_tokens": max(1, len(request.raw) // 4),
        "output_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _event(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


def stream_events(message: dict[str, Any]) -> Iterator[bytes]:
    """The SSE events of a whole message, as the API streams it."""
    start = dict(message, content=[], stop_reason=None, stop_sequence=None)
    yield _event("message_start", {"type": "message_start", "message": start})
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            empty = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            empty = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield _event(
            "content_block_start",
            {"type": "content_block_start", "index": i, "content_block": empty},
        )
        yield _event(
            "content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}
        )
        yield _event("content_block_stop", {"type": "content_block_stop", "index": i})
    yield _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        },
    )
    yield _event("message_stop", {"type": "message_stop"})


class AnthropicSpeaker:
    """The Messages API's paths; plug into `FakeModel(AnthropicSpeaker(), script)`."""

    def respond(self, model: FakeModel, request: Request) -> Response:
        path = urlsplit(request.path).path.rstrip("/")
        if request.method == "POST" and path == "/v1/messages":
            return self._messages(model, request)
        if request.method == "POST" and path == "/v1/messages/count_tokens":
            return Response.json({"input_tokens": max(1, len(request.raw) // 4)})
        if request.method in ("GET", "HEAD") and path == "/v1/models":
            item = {
                "type": "model",
                "id": MODEL,
                "display_name": "Fake",
                "created_at": "2026-01-01T00:00:00Z",
            }
            return Response.json(
                {"data": [item], "has_more": False, "first_id": MODEL, "last_id": MODEL}
            )
        if request.method in ("GET", "HEAD") and path in ("", "/"):
            return Response.json({})  # a reachability probe
        request.known = False
        error = {"type": "not_found_error", "message": f"fake model: no {request.method} {path}"}
        return Response.json({"type": "error", "error": error}, 404)

    def _messages(self, model: FakeModel, request: Request) -> Response:
        turn = parse_turn(request)
        reply = model.decide(turn)
        content = _blocks(model, reply)
        message = {
            "id": model.new_id("msg_fake"),
            "type": "message",
            "role": "assistant",
            "model": (request.body or {}).get("model") or MODEL,
            "content": content,
            "stop_reason": "tool_use" if reply.calls else "end_turn",
            "stop_sequence": None,
            "usage": _usage(request),
        }
        if not turn.stream:
            return Response.json(message)
        return Response(200, {"content-type": "text/event-stream"}, stream_events(message))
