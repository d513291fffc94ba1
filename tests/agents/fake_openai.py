"""OpenAI's model APIs, spoken by the fake model: Responses (Codex) and chat completions.

Codex (a provider with `wire_api = "responses"`) posts `/v1/responses` with
`stream: true` and reads server-sent events: `response.created`, then per output item
`response.output_item.added` and `.done` (an assistant `message` of `output_text`, or a
`function_call` with `call_id`, `name` and JSON `arguments`), then `response.completed`.
Codex 0.171 offers an MCP server's tools as one namespace tool, `{"type": "namespace",
"name": "mcp__jobs", "tools": [...]}`, and routes a call by its `namespace` and `name`
(a flat `mcp__jobs__job_list` is "unsupported call"); the neutral Turn names such a
tool `mcp__jobs__job_list`, as Codex's hooks do, and a reply may call it by that name or
by the server's own (`job_list`). Tool results come back as `function_call_output`
items (Codex writes "Wall time: ...\nOutput:\n" and the result's structuredContent).

Chat completions (`/v1/chat/completions`, opencode's openai-compatible provider):
`messages` with `tool_calls` and `role: tool` results; a streamed answer is
`chat.completion.chunk`s with `delta.content` / `delta.tool_calls`, then `[DONE]`.

`GET /v1/models` lists one model; any other path is logged as unknown and answered with
the API's 404 error shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .fakemodel import FakeModel, Message, Reply, Request, Response, ToolCall, ToolResult, Turn

MODEL = "fake-model"


@dataclass(frozen=True)
class OfferedTool:
    """A tool as the client offered it to the model: full name, namespace, input schema."""

    name: str  # the Turn's name: `namespace__name` for a namespaced tool (Codex's own form)
    wire_name: str  # the name a call carries
    namespace: str | None
    description: str
    parameters: dict[str, Any]


def offered_tools(body: Any) -> list[OfferedTool]:
    """Every function tool a Responses or chat request offers, namespaces opened up."""
    out: list[OfferedTool] = []
    for tool in (body or {}).get("tools") or []:
        if isinstance(tool, dict):
            out.extend(_open(tool, None))
    return out


def _open(tool: dict[str, Any], namespace: str | None) -> Iterator[OfferedTool]:
    if tool.get("type") == "namespace":
        for inner in tool.get("tools") or []:
            if isinstance(inner, dict):
                yield from _open(inner, str(tool.get("name", "")))
    elif tool.get("type") == "function":
        spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        name = str(spec.get("name", ""))
        yield OfferedTool(
            name=f"{namespace}__{name}" if namespace else name,
            wire_name=name,
            namespace=namespace,
            description=str(spec.get("description") or ""),
            parameters=spec.get("parameters") or {},
        )


def resolve(tools: list[OfferedTool], name: str) -> OfferedTool:
    """The offered tool a reply means: its exact name, or the one ending in `_name`."""
    exact = [t for t in tools if name in (t.name, t.wire_name)]
    found = exact or [t for t in tools if t.name.endswith(f"_{name}")]
    if len(found) != 1:
        raise LookupError(f"{name!r}: {len(found)} offered tools match (of {len(tools)})")
    return found[0]


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p
        )
    return ""


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {"_unparsed": raw}
    return value if isinstance(value, dict) else {"_value": value}


# --- Responses ---------------------------------------------------------------------


def parse_responses(request: Request) -> Turn:
    """The neutral view of a Responses request: `instructions` and `input` items."""
    body = request.body if isinstance(request.body, dict) else {}
    messages: list[Message] = []
    system = [_text_of(body.get("instructions"))]
    for item in body.get("input") or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message":
            role = str(item.get("role", ""))
            if role in ("system", "developer"):
                system.append(_text_of(item.get("content")))
            messages.append(Message(role=role, text=_text_of(item.get("content"))))
        elif kind == "function_call":
            namespace = item.get("namespace")
            name = str(item.get("name", ""))
            call = ToolCall(
                f"{namespace}__{name}" if namespace else name,
                _arguments(item.get("arguments")),
                str(item.get("call_id", "")),
            )
            if messages and messages[-1].role == "assistant" and not messages[-1].results:
                messages[-1].calls.append(call)
            else:
                messages.append(Message(role="assistant", calls=[call]))
        elif kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else _text_of(output) or json.dumps(output)
            result = ToolResult(str(item.get("call_id", "")), text)
            if messages and messages[-1].role == "tool":
                messages[-1].results.append(result)
            else:
                messages.append(Message(role="tool", results=[result]))
    tools = offered_tools(body)
    return Turn(
        request=request,
        messages=messages,
        tools=[t.name for t in tools],
        system="\n".join(s for s in system if s),
        stream=bool(body.get("stream")),
        main=bool(tools),
    )


def _sse(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def response_items(model: FakeModel, turn: Turn, reply: Reply) -> list[dict[str, Any]]:
    """A reply as Responses output items: a message (when there is text), function calls."""
    tools = offered_tools(turn.request.body)
    items: list[dict[str, Any]] = []
    if reply.text or not reply.calls:
        items.append(
            {
                "type": "message",
                "id": model.new_id("msg_fake"),
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    for call in reply.calls:
        tool = resolve(tools, call.name)
        call.id = call.id or model.new_id("call_fake")
        item = {
            "type": "function_call",
            "id": model.new_id("fc_fake"),
            "call_id": call.id,
            "name": tool.wire_name,
            "arguments": json.dumps(call.arguments),
            "status": "completed",
        }
        if tool.namespace:
            item["namespace"] = tool.namespace
        items.append(item)
    return items


def response_events(response_id: str, items: list[dict[str, Any]], usage: dict[str, int]):
    yield _sse(
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {"id": response_id, "object": "response", "status": "in_progress"},
        }
    )
    for n, item in enumerate(items):
        yield _sse({"type": "response.output_item.added", "output_index": n, "item": item})
        yield _sse({"type": "response.output_item.done", "output_index": n, "item": item})
    done = {"id": response_id, "object": "response", "status": "completed", "usage": usage}
    yield _sse({"type": "response.completed", "response": done})


# --- chat completions --------------------------------------------------------------


def parse_chat(request: Request) -> Turn:
    """The neutral view of a chat-completions request."""
    body = request.body if isinstance(request.body, dict) else {}
    messages: list[Message] = []
    system = []
    for m in body.get("messages") or []:
        if not isinstance(m, dict):
            continue
        role = str(m.get("role", ""))
        if role in ("system", "developer"):
            system.append(_text_of(m.get("content")))
        msg = Message(role=role, text=_text_of(m.get("content")))
        for call in m.get("tool_calls") or []:
            function = call.get("function") or {}
            msg.calls.append(
                ToolCall(
                    str(function.get("name", "")),
                    _arguments(function.get("arguments")),
                    str(call.get("id", "")),
                )
            )
        if role == "tool":
            msg.results.append(ToolResult(str(m.get("tool_call_id", "")), msg.text))
        messages.append(msg)
    tools = offered_tools(body)
    return Turn(
        request=request,
        messages=messages,
        tools=[t.name for t in tools],
        system="\n".join(system),
        stream=bool(body.get("stream")),
        main=bool(tools),
    )


def _chat_calls(model: FakeModel, turn: Turn, reply: Reply) -> list[dict[str, Any]]:
    tools = offered_tools(turn.request.body)
    calls = []
    for n, call in enumerate(reply.calls):
        call.id = call.id or model.new_id("call_fake")
        calls.append(
            {
                "index": n,
                "id": call.id,
                "type": "function",
                "function": {
                    "name": resolve(tools, call.name).wire_name,
                    "arguments": json.dumps(call.arguments),
                },
            }
        )
    return calls


def chat_chunks(head: dict[str, Any], text: str, calls: list[dict[str, Any]], usage: Any):
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return f"data: {json.dumps({**head, 'choices': [choice]})}\n\n".encode()

    yield chunk({"role": "assistant", "content": ""})
    if text:
        yield chunk({"content": text})
    if calls:
        yield chunk({"tool_calls": calls})
    yield chunk({}, "tool_calls" if calls else "stop")
    yield f"data: {json.dumps({**head, 'choices': [], 'usage': usage})}\n\n".encode()
    yield b"data: [DONE]\n\n"


# --- the speaker -------------------------------------------------------------------


class OpenAISpeaker:
    """`/v1/responses` and `/v1/chat/completions`; plug into `FakeModel(OpenAISpeaker(), s)`."""

    def respond(self, model: FakeModel, request: Request) -> Response:
        path = urlsplit(request.path).path.rstrip("/")
        if request.method == "POST" and path.endswith("/responses"):
            return self._responses(model, request)
        if request.method == "POST" and path.endswith("/chat/completions"):
            return self._chat(model, request)
        if request.method in ("GET", "HEAD") and path.endswith("/models"):
            item = {"id": MODEL, "object": "model", "created": 0, "owned_by": "fake"}
            return Response.json({"object": "list", "data": [item]})
        request.known = False
        error = {"message": f"fake model: no {request.method} {path}", "type": "not_found"}
        return Response.json({"error": error}, 404)

    def _responses(self, model: FakeModel, request: Request) -> Response:
        turn = parse_responses(request)
        reply = model.decide(turn)
        items = response_items(model, turn, reply)
        usage = {
            "input_tokens": max(1, len(request.raw) // 4),
            "output_tokens": 10,
            "total_tokens": max(1, len(request.raw) // 4) + 10,
        }
        response_id = model.new_id("resp_fake")
        if turn.stream:
            events = response_events(response_id, items, usage)
            return Response(200, {"content-type": "text/event-stream"}, events)
        body = {"id": response_id, "object": "response", "status": "completed"}
        return Response.json({**body, "output": items, "usage": usage})

    def _chat(self, model: FakeModel, request: Request) -> Response:
        turn = parse_chat(request)
        reply = model.decide(turn)
        calls = _chat_calls(model, turn, reply)
        usage = {
            "prompt_tokens": max(1, len(request.raw) // 4),
            "completion_tokens": 10,
            "total_tokens": max(1, len(request.raw) // 4) + 10,
        }
        head = {
            "id": model.new_id("chatcmpl_fake"),
            "created": 0,
            "model": (request.body or {}).get("model") or MODEL,
        }
        if turn.stream:
            head = {**head, "object": "chat.completion.chunk"}
            chunks = chat_chunks(head, reply.text, calls, usage)
            return Response(200, {"content-type": "text/event-stream"}, chunks)
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if calls:
            message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
        finish = "tool_calls" if calls else "stop"
        choice = {"index": 0, "message": message, "finish_reason": finish}
        body = {**head, "object": "chat.completion", "choices": [choice], "usage": usage}
        return Response.json(body)
