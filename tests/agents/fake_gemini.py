"""The Gemini API (generativelanguage v1beta), spoken by the fake model (for Gemini CLI).

Gemini CLI reads `GOOGLE_GEMINI_BASE_URL` (with `GEMINI_API_KEY` and the auth type
`gemini-api-key` in its settings) and posts `/v1beta/models/MODEL:streamGenerateContent
?alt=sse` for the agent's turns: `contents` of `{role: user|model, parts: [...]}` with
`text`, `functionCall {name, args, id}` and `functionResponse {name, response, id}`
parts, `systemInstruction`, and `tools: [{functionDeclarations: [{name, description,
parametersJsonSchema}]}]` (an MCP tool is `mcp_SERVER_TOOL`). An answer is
`{candidates: [{content: {role: "model", parts}, finishReason}], usageMetadata}`, as
one SSE `data:` event when streamed.

Its side calls are `:generateContent` with `responseMimeType: application/json` and a
`responseJsonSchema` (the model router's complexity score, the next-speaker check): they
get a JSON text built from that schema (first enum value, "ok", 10, false), so the CLI
goes on; `:countTokens` gets a count. Any other path is logged as unknown and answered
with the API's 404 error shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from .fakemodel import FakeModel, Message, Reply, Request, Response, ToolCall, ToolResult, Turn

MODEL = "gemini-2.5-pro"
ROUTE = re.compile(r"^/(v1beta|v1|v1alpha)/models/([^/:]+):([A-Za-z]+)$")


def declarations(body: Any) -> list[dict[str, Any]]:
    """Every function declaration a request offers."""
    out = []
    for tool in (body or {}).get("tools") or []:
        if isinstance(tool, dict):
            out.extend(d for d in tool.get("functionDeclarations") or [] if isinstance(d, dict))
    return out


def parameters(declaration: dict[str, Any]) -> dict[str, Any]:
    """A declaration's input schema, whichever field the CLI put it in."""
    return declaration.get("parametersJsonSchema") or declaration.get("parameters") or {}


def parse_turn(request: Request) -> Turn:
    """The neutral view of a generateContent request."""
    body = request.body if isinstance(request.body, dict) else {}
    messages: list[Message] = []
    for content in body.get("contents") or []:
        if not isinstance(content, dict):
            continue
        role = "assistant" if content.get("role") == "model" else "user"
        msg = Message(role=role)
        texts = []
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            if "text" in part and not part.get("thought"):
                texts.append(str(part["text"]))
            if isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                msg.calls.append(
                    ToolCall(
                        str(call.get("name", "")),
                        call.get("args") or {},
                        str(call.get("id") or call.get("name", "")),
                    )
                )
            if isinstance(part.get("functionResponse"), dict):
                answer = part["functionResponse"]
                response = answer.get("response")
                text = json.dumps(response, ensure_ascii=False) if response is not None else ""
                msg.results.append(
                    ToolResult(
                        str(answer.get("id") or answer.get("name", "")),
                        text,
                        name=str(answer.get("name", "")),
                    )
                )
        msg.text = "\n".join(texts)
        messages.append(msg)
    system = body.get("systemInstruction") or {}
    system_text = "\n".join(
        str(p.get("text", "")) for p in (system.get("parts") or []) if isinstance(p, dict)
    )
    tools = [str(d.get("name", "")) for d in declarations(body)]
    config = body.get("generationConfig") or {}
    side = config.get("responseMimeType") == "application/json"
    return Turn(
        request=request,
        messages=messages,
        tools=tools,
        system=system_text,
        stream="stream" in urlsplit(request.path).path.lower(),
        main=bool(tools) and not side,
    )


def filled(schema: Any) -> Any:
    """A value that fits a (simple) JSON schema: what a side call's JSON answer needs."""
    if not isinstance(schema, dict):
        return "ok"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "string")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: filled(v) for k, v in props.items()}
    if kind == "array":
        return [filled(schema.get("items"))] if schema.get("minItems") else []
    if kind in ("integer", "number"):
        return 10
    if kind == "boolean":
        return False
    return "ok"


def _parts(model: FakeModel, turn: Turn, reply: Reply) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if reply.text or not reply.calls:
        parts.append({"text": reply.text})
    offered = turn.tools
    for call in reply.calls:
        name = call.name
        if name not in offered:
            matches = [t for t in offered if t.endswith(f"_{name}")]
            if len(matches) != 1:
                raise LookupError(f"{name!r}: {len(matches)} offered tools match")
            name = matches[0]
        call.id = call.id or model.new_id("call_fake")
        parts.append({"functionCall": {"name": name, "args": call.arguments, "id": call.id}})
    return parts


def _answer(parts: list[dict[str, Any]], request: Request) -> dict[str, Any]:
    prompt = max(1, len(request.raw) // 4)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": prompt,
            "candidatesTokenCount": 10,
            "totalTokenCount": prompt + 10,
        },
        "modelVersion": MODEL,
    }


def _sse(value: dict[str, Any]) -> Iterator[bytes]:
    yield f"data: {json.dumps(value)}\r\n\r\n".encode()


class GeminiSpeaker:
    """The Gemini API's paths; plug into `FakeModel(GeminiSpeaker(), script)`."""

    def respond(self, model: FakeModel, request: Request) -> Response:
        path = urlsplit(request.path).path.rstrip("/")
        route = ROUTE.match(path)
        if request.method == "POST" and route:
            action = route.group(3)
            if action == "countTokens":
                return Response.json({"totalTokens": max(1, len(request.raw) // 4)})
            if action in ("generateContent", "streamGenerateContent"):
                return self._generate(model, request)
        if request.method in ("GET", "HEAD") and path.endswith("/models"):
            item = {"name": f"models/{MODEL}", "supportedGenerationMethods": ["generateContent"]}
            return Response.json({"models": [item]})
        request.known = False
        error = {"code": 404, "message": f"fake model: no {request.method} {path}"}
        return Response.json({"error": {**error, "status": "NOT_FOUND"}}, 404)

    def _generate(self, model: FakeModel, request: Request) -> Response:
        turn = parse_turn(request)
        config = (request.body or {}).get("generationConfig") or {}
        if config.get("responseMimeType") == "application/json":
            model.turns.append(turn)  # logged as a side call, answered from its schema
            schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
            parts = [{"text": json.dumps(filled(schema))}]
        else:
            parts = _parts(model, turn, model.decide(turn))
        answer = _answer(parts, request)
        if turn.stream:
            return Response(200, {"content-type": "text/event-stream"}, _sse(answer))
        return Response.json(answer)
