"""JSON Schemas of the exec_command and exec/process vocabularies (and all three together).

Pure data in the core, not in `engine/tools/`: the vocabularies validate against these,
and whatever publishes them (`jobs-tui schema`, a host) needs no vocabulary to do it.
Hosts register these and `validation.check` holds every call to the same dicts, rules
across fields included, so what a host advertises is exactly what a call is held to.
Limits, signal names and the text rules come from the core (`callschema`, `model`);
the key and escape grammars from `keygrammar`. Facts no schema can know are checked after:
whether a workdir exists, whether a yield_until is within 24 hours or names a real day,
and which sessions exist.
"""

from __future__ import annotations

import copy
from typing import Any

from jobs_tui.engine.shim.protocol import KILL_SIGNALS

from .callschema import (
    DECLARED_NAME,
    DRAFT,
    ENV,
    ISO_TIME,
    MAX_COLS,
    MAX_JOB_NUMBER,
    MAX_ROWS,
    MAX_SAFE_INTEGER,
    MIN_COLS,
    MIN_ROWS,
    SINGLE_LINE,
    TEXT,
    command_spec,
    directory_spec,
    job_schema,
    only,
    text_spec,
    when,
)
from .callschema import (
    ENV_NAME as ENV_NAME,
)
from .keygrammar import BAD_ESCAPE, HEX_BYTE, KEY, KEY_LINE_BREAK
from .schemacheck import explain, quote

MAX_CHARS = 65_536
MAX_TIMEOUT_S = 86_400
SESSION = rf"^(?:j?[1-9][0-9]{{0,8}}|{DECLARED_NAME})$"  # 1, j1, or a declared job's name
BASE64 = r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"


@explain(SESSION)
def _explain_session(name: str, value: str) -> str:
    return f"{name} {quote(value)} is not a session id such as 1 (or j1) or a declared job's name"


@explain(BASE64)
def _explain_base64(name: str, value: str) -> str:
    return f"{name} is not valid base64"


def _tool(title: str, description: str, props: dict[str, Any], required=(), **rules):
    return {
        "$schema": DRAFT,
        "title": title,
        "description": description,
        "type": "object",
        "additionalProperties": False,
        "required": list(required),
        "properties": props,
        **rules,
    }


def _integer(low: int, high: int, description: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": "integer", "minimum": low, "maximum": high}
    return spec | ({"description": description} if description else {})


def _never_with(first: str, *others: str) -> list[dict[str, Any]]:
    return [{"not": {"required": [first, other]}} for other in others]


SESSION_ID = {
    "type": ["integer", "string"],
    "minimum": 1,
    "maximum": MAX_JOB_NUMBER,
    "pattern": SESSION,
    **SINGLE_LINE,
    "description": "The session_id a previous result returned (1, or its job id 'j1'), "
    "or a declared job's name (its current job).",
}

EXEC_COMMAND = _tool(
    "exec_command",
    "Start a shell command once; returns its exit result if it finishes within the yield, "
    "else a live session_id with the output so far.",
    {
        "cmd": command_spec("The shell command."),
        "workdir": directory_spec("Defaults to the cwd."),
        "tty": {"type": "boolean", "description": "Run on a pseudo-terminal (default false)."},
        "yield_time_ms": {
            "type": "number",
            "minimum": 0,
            "maximum": MAX_SAFE_INTEGER,
            "description": "When to return (default 10000; clamped to 250-30000).",
        },
        "timeout_seconds": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": MAX_TIMEOUT_S,
            "description": "Hard lifetime: the job is stopped after it (default 1800).",
        },
        "on_exit": {"type": "string", "enum": ["none", "wake"], "description": "Default none."},
        "env": ENV,
    },
    ["cmd"],
)

WRITE_STDIN = _tool(
    "write_stdin",
    "Send input to a session, wait for output or exit, close pipe input, or resize a PTY. "
    "An empty read with yield_time_ms 0 returns unread output at once.",
    {
        "session_id": SESSION_ID,
        "chars": {
            "type": "string",
            "maxLength": MAX_CHARS,
            "pattern": TEXT,
            "not": {"pattern": BAD_ESCAPE},
            "description": "Text with C-style escapes (\\r, \\n, \\t, \\e, \\xHH, \\NNN, "
            "\\uHHHH, \\UHHHHHHHH, \\\\); not with chars_b64.",
        },
        "chars_b64": {
            "type": "string",
            "maxLength": MAX_CHARS * 4 // 3 + 4,
            "pattern": BASE64,
            **SINGLE_LINE,
            "description": "Raw bytes, base64; not with chars.",
        },
        "end_stdin": {
            "type": "boolean",
            "description": "Close a pipe's stdin after any input; not for a PTY.",
        },
        "yield_time_ms": {
            "type": "number",
            "minimum": 0,
            "maximum": MAX_SAFE_INTEGER,
            "description": "With input: default 250, clamped to 250-30000. Empty read: 0 is "
            "immediate; omitted or positive waits at least 5000 (at most 600000).",
        },
        "yield_until": {
            "type": "string",
            "format": "date-time",
            "maxLength": 64,
            "pattern": ISO_TIME,
            **SINGLE_LINE,
            "description": "Absolute time to wait until, at most 24 hours ahead "
            "(2030-01-01T00:00:00Z); not with yield_time_ms or input.",
        },
        "cols": _integer(MIN_COLS, MAX_COLS, "With rows."),
        "rows": _integer(MIN_ROWS, MAX_ROWS, "With cols."),
    },
    ["session_id"],
    dependentRequired={"cols": ["rows"], "rows": ["cols"]},
    allOf=[
        *_never_with("chars", "chars_b64"),
        *_never_with("yield_until", "yield_time_ms", "chars", "chars_b64", "end_stdin"),
    ],
)

LIST_SESSIONS = _tool(
    "list_sessions",
    "Running and retained completed sessions; consumes no output and no notification.",
    {},
)

SET_ON_EXIT = _tool(
    "set_on_exit",
    "Arm (wake) or disarm (none) the completion notification without touching the job.",
    {"session_id": SESSION_ID, "on_exit": {"type": "string", "enum": ["none", "wake"]}},
    ["session_id", "on_exit"],
)

KILL_SESSION = _tool(
    "kill_session",
    "Stop a session's process tree (TERM, then KILL after the grace); reports killed and "
    "escalated. A session whose exit is not confirmed stays owned.",
    {"session_id": SESSION_ID, "signal": {"type": "string", "enum": list(KILL_SIGNALS)}},
    ["session_id"],
)

EXEC = _tool(
    "exec",
    "Run a shell command. Returns its output if it finishes within yieldMs, else "
    "status 'running' and a sessionId for the process tool.",
    {
        "command": command_spec("The shell command."),
        "yieldMs": _integer(
            0,
            MAX_SAFE_INTEGER,
            "Background after this delay (default 10000; clamped to 10-120000).",
        ),
        "background": {"type": "boolean", "description": "Background immediately."},
        "timeout": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": MAX_TIMEOUT_S,
            "description": "Seconds before the process is killed (default 1800).",
        },
        "pty": {"type": "boolean", "description": "Run on a pseudo-terminal."},
        "workdir": directory_spec("Defaults to the cwd."),
        "env": ENV,
    },
    ["command"],
)

PROCESS_ACTIONS = [
    "list",
    "poll",
    "log",
    "write",
    "send-keys",
    "submit",
    "paste",
    "kill",
    "clear",
    "remove",
]

_PROCESS_PROPERTIES: dict[str, Any] = {
    "action": {"type": "string", "enum": PROCESS_ACTIONS},
    "sessionId": {
        "type": "string",
        "pattern": SESSION,
        **SINGLE_LINE,
        "description": "The sessionId exec returned (j1), or a declared job's name; every "
        "action but list.",
    },
    "data": text_spec(MAX_CHARS, "write: stdin text."),
    "eof": {"type": "boolean", "description": "write: close stdin afterwards."},
    "keys": {
        "type": "array",
        "maxItems": 256,
        "items": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256,
            "pattern": KEY,
            "not": {"pattern": KEY_LINE_BREAK},
            "allOf": [{"pattern": TEXT}],
        },
        "description": "send-keys: Enter, Tab, Escape, Backspace, Up/Down/Left/Right, "
        "Home, End, PageUp, PageDown, Insert, Delete, F1-F12, C-x / M-x / S-x "
        "modifiers, ^C, or literal text.",
    },
    "hex": {
        "type": "array",
        "maxItems": 4096,
        "items": {"type": "string", "maxLength": 4, "pattern": HEX_BYTE},
        "description": "send-keys: raw bytes such as '1b' or '0x03'.",
    },
    "literal": text_spec(MAX_CHARS, "send-keys text."),
    "text": text_spec(MAX_CHARS, "paste: the text."),
    "bracketed": {"type": "boolean", "description": "paste: bracketed (default true)."},
    "offset": _integer(0, MAX_SAFE_INTEGER, "log: first line (0-based)."),
    "limit": _integer(1, MAX_SAFE_INTEGER, "log: number of lines."),
    "timeout": _integer(
        0, MAX_SAFE_INTEGER, "poll: wait up to this many ms for exit (clamped to 30000)."
    ),
}
_PROCESS_FIELDS = [name for name in _PROCESS_PROPERTIES if name != "action"]
_APPLIES: dict[str, set[str]] = {
    "poll": {"timeout"},
    "log": {"offset", "limit"},
    "write": {"data", "eof"},
    "send-keys": {"keys", "hex", "literal"},
    "submit": set(),
    "paste": {"text", "bracketed"},
    "kill": set(),
    "clear": set(),
    "remove": set(),
}


def _process_rules() -> list[dict[str, Any]]:
    f = _PROCESS_FIELDS
    extra: dict[str, dict[str, Any]] = {
        "write": {
            "description": "data is required unless eof is true",
            "anyOf": [
                {"required": ["data"], "properties": {"data": {"minLength": 1}}},
                {"required": ["eof"], "properties": {"eof": {"const": True}}},
            ],
        },
        "send-keys": {
            "description": "send-keys needs keys, hex or literal",
            "anyOf": [
                {"required": ["keys"], "properties": {"keys": {"minItems": 1}}},
                {"required": ["hex"], "properties": {"hex": {"minItems": 1}}},
                {"required": ["literal"], "properties": {"literal": {"minLength": 1}}},
            ],
        },
    }
    rules = [when("action", "list", {"properties": only(set(), f)})]
    for action, fields in _APPLIES.items():
        then: dict[str, Any] = {
            "required": ["sessionId"],
            "properties": only({"sessionId", *fields}, f),
        }
        if action == "paste":
            then["required"] = ["sessionId", "text"]
            then["properties"]["text"] = {"minLength": 1}
        if action in extra:
            then["allOf"] = [extra[action]]
        rules.append(when("action", action, then))
    return rules


PROCESS = _tool(
    "process",
    "Manage background exec sessions: list, poll (new output), log (line offset/limit), "
    "write, send-keys, submit, paste, kill, clear, remove. Each action takes only its "
    "own fields.",
    _PROCESS_PROPERTIES,
    ["action"],
    allOf=_process_rules(),
)


def exec_command_schemas() -> dict[str, dict[str, Any]]:
    return copy.deepcopy(
        {
            "exec_command": EXEC_COMMAND,
            "write_stdin": WRITE_STDIN,
            "list_sessions": LIST_SESSIONS,
            "set_on_exit": SET_ON_EXIT,
            "kill_session": KILL_SESSION,
        }
    )


def process_schemas() -> dict[str, dict[str, Any]]:
    return copy.deepcopy({"exec": EXEC, "process": PROCESS})


def all_schemas() -> dict[str, Any]:
    """Every vocabulary jobs-tui speaks: `job`, `exec_command` and `process` families."""
    return {
        "job": {"job": job_schema()},
        "exec_command": exec_command_schemas(),
        "process": process_schemas(),
    }
