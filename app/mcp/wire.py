"""Each line a client writes, checked before the SDK sees it, so every bad one is answered.

The SDK's stdio transport hands a line it cannot validate to its dispatcher as an
exception, and the dispatcher logs it at debug level and drops it: the client of a
malformed line, or of a request whose id the SDK's union quietly reads as a notification
(`"id": true`), or of one nested past pydantic's JSON recursion limit (about 200 levels:
a `tools/call` 199 levels deep), waits forever (issue 22). Here each line is either a
message the SDK takes as it is, or a `Refusal`, the JSON-RPC error the transport writes:

- `-32700` (parse error, `id: null`): not UTF-8, not JSON (an empty line is not JSON).
- `-32600` (invalid request): JSON that is not one JSON-RPC 2.0 message (a batch, a
  non-object, no `method` and no `result`/`error`, `jsonrpc` other than "2.0", an id that
  is not a string or an integer, `params` that is not an object, ...), or one nested
  deeper than `MAX_DEPTH`. Its id is the line's when that is a string or a number
  (JSON-RPC's rule), else null.

Depth is measured on the text before parsing, and a too-deep part is cut out (read as
`null`) so the rest still parses: the refusal of a 5000-level call carries its id, and no
parser ever recurses more than `MAX_DEPTH` levels.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from pydantic import BaseModel, ValidationError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603
MAX_DEPTH = 64  # arrays and objects, the envelope's three included; tools take about 4
# a string is one token, closed or not (an unclosed one runs to the end: it cannot fail,
# so the search never restarts inside it, and one pass stays linear), or a bracket
_TOKENS = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+(?:"|\\?\Z)|[\[\]{}]')
_LONE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # a pair decodes whole; a half stays


@dataclass(frozen=True)
class Refusal:
    """The error reply to one line."""

    code: int
    message: str
    id: str | int | float | None = None

    def line(self) -> bytes:
        reply = {
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        }
        return json.dumps(reply).encode() + b"\n"  # ASCII: whatever the id or message held


def check_line(raw: bytes) -> types.JSONRPCMessage | Refusal | None:
    """The message on one line, its refusal, or None for a well-formed error reply whose id
    is null (a peer's report that it could not read something of ours: never answered, or
    two peers could trade errors forever)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Refusal(PARSE_ERROR, f"parse error: the line is not UTF-8 (byte {exc.start})")
    shallow, depth = _cut(text, MAX_DEPTH)
    try:
        value = json.loads(shallow, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        at = f" (column {exc.colno})" if shallow is text else ""  # a cut text's columns differ
        return Refusal(PARSE_ERROR, f"parse error: {exc.msg}{at}")
    except ValueError as exc:  # NaN, Infinity, an integer of more than 4300 digits
        return Refusal(PARSE_ERROR, f"parse error: {exc}")
    if isinstance(value, list):
        return Refusal(
            INVALID_REQUEST, "invalid request: batches are not supported, one message a line"
        )
    if not isinstance(value, dict):
        return Refusal(
            INVALID_REQUEST, f"invalid request: a message is an object, not {_kind(value)}"
        )
    message_id = value.get("id")
    reply_id = message_id if _is_number_or_string(message_id) else None
    if depth > MAX_DEPTH:
        return Refusal(
            INVALID_REQUEST,
            f"invalid request: nested {depth} levels deep, more than the {MAX_DEPTH} levels "
            "a message may have",
            reply_id,
        )
    if _LONE_SURROGATE.search(shallow) and not _encodable(value):
        return Refusal(
            INVALID_REQUEST,
            "invalid request: a \\u escape names half a surrogate pair, not a character",
            reply_id,
        )
    problem, model = _shape(value)
    if problem is not None:
        return Refusal(INVALID_REQUEST, f"invalid request: {problem}", reply_id)
    if model is None:
        return None
    try:
        return model.model_validate(value, by_name=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        return Refusal(INVALID_REQUEST, f"invalid request: {where}: {first['msg']}", reply_id)


def _shape(value: dict[str, Any]) -> tuple[str | None, type[BaseModel] | None]:
    """(what is wrong with the envelope, the message type it must then validate as)."""
    if "jsonrpc" not in value:
        return 'no "jsonrpc": "2.0"', None
    if value["jsonrpc"] != "2.0":
        return f'"jsonrpc" must be "2.0", not {_brief(value["jsonrpc"])}', None
    has_id = "id" in value
    if "method" in value:
        if not isinstance(value["method"], str):
            return '"method" must be a string', None
        if value.get("params") is not None and not isinstance(value["params"], dict):
            return '"params" must be an object', None  # null is taken as none, as the SDK does
        if has_id and not _is_integer_or_string(value["id"]):
            return f'"id" must be a string or an integer, not {_brief(value["id"])}', None
        return None, types.JSONRPCRequest if has_id else types.JSONRPCNotification
    result, error = "result" in value, "error" in value
    if not (result or error):
        return 'no "method" (a request) and no "result" or "error" (a response)', None
    if result and error:
        return 'a response has a "result" or an "error", not both', None
    if not has_id:
        return 'a response needs the "id" of the request it answers', None
    if error:
        if value["id"] is None and isinstance(value["error"], dict):
            return None, None if _valid(types.JSONRPCError, value) else types.JSONRPCError
        if not _is_integer_or_string(value["id"]):
            return f'"id" must be a string or an integer, not {_brief(value["id"])}', None
        return None, types.JSONRPCError
    if not _is_integer_or_string(value["id"]):
        return f'"id" must be a string or an integer, not {_brief(value["id"])}', None
    return None, types.JSONRPCResponse


def _kind(value: object) -> str:
    """A JSON value's kind, in JSON's words."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return "a string" if isinstance(value, str) else "a number"


def _brief(value: object) -> str:
    """A value as JSON, cut short: a message quotes what it refuses, not all of it."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _valid(model: type[BaseModel], value: dict[str, Any]) -> bool:
    try:
        model.model_validate(value, by_name=False)
    except ValidationError:
        return False
    return True


def _is_integer_or_string(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _is_number_or_string(value: object) -> bool:
    if isinstance(value, str):
        return _encodable(value)  # else it could not be sent back
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _encodable(value: object) -> bool:
    """No lone surrogate anywhere (`json.loads` keeps `\\ud800` as one; UTF-8 has none)."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _cut(text: str, limit: int) -> tuple[str, int]:
    """(the text with every part deeper than `limit` replaced by `null`, its deepest level).

    Without recursion, so a line of any depth costs one pass over its brackets."""
    if text.count("[") + text.count("{") <= limit:  # the usual line: never that deep
        return text, 0
    depth = deepest = 0
    pieces: list[str] = []
    kept = 0  # where the text not yet copied into pieces begins
    cut_at: int | None = None  # where the part being cut began
    for token in _TOKENS.finditer(text):
        bracket = token.group()
        if bracket[0] == '"':
            continue
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if depth == limit + 1:
                cut_at = token.start()
        else:
            if depth == limit + 1 and cut_at is not None:
                pieces += [text[kept:cut_at], "null"]
                kept, cut_at = token.end(), None
            depth -= 1
    if deepest <= limit:
        return text, deepest
    if cut_at is not None:  # never closed: keep it cut, the parse error says the rest
        pieces.append(text[kept:cut_at])
        kept = len(text)
    pieces.append(text[kept:])
    return "".join(pieces), deepest
