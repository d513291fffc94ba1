"""JSON Schemas of the exec_command and exec/process vocabularies (and all three together).

Hosts register these; `validation.check` reads the same dicts, so what a host
advertises is exactly what a call is held to.
"""

from __future__ import annotations

from typing import Any

from ..calls import MAX_COMMAND

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SIGNALS = ["SIGTERM", "SIGKILL", "SIGINT"]
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
MAX_CHARS = 65_536
MAX_TIMEOUT_S = 86_400


def _tool(title: str, description: str, props: dict[str, Any], required=()) -> dict[str, Any]:
    return {
        "$schema": DRAFT,
        "title": title,
        "description": description,
        "type": "object",
        "additionalProperties": False,
        "required": list(required),
        "properties": props,
    }


SESSION_ID = {
    "type": ["integer", "string"],
    "description": "The session_id a previous result returned (1, or its job id 'j1').",
}

EXEC_COMMAND = _tool(
    "exec_command",
    "Start a shell command once; returns its exit result if it finishes within the yield, "
    "else a live session_id with the output so far.",
    {
        "cmd": {"type": "string", "minLength": 1, "maxLength": MAX_COMMAND},
        "workdir": {"type": "string", "minLength": 1, "description": "Defaults to the cwd."},
        "tty": {"type": "boolean", "description": "Run on a pseudo-terminal (default false)."},
        "yield_time_ms": {
            "type": "number",
            "minimum": 0,
            "description": "When to return (default 10000; clamped to 250-30000).",
        },
        "timeout_seconds": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": MAX_TIMEOUT_S,
            "description": "Hard lifetime: the job is stopped after it (default 1800).",
        },
        "on_exit": {"type": "string", "enum": ["none", "wake"], "description": "Default none."},
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
            "description": "Text with C-style escapes (\\r, \\n, \\t, \\e, \\xHH, \\uHHHH, \\\\).",
        },
        "chars_b64": {
            "type": "string",
            "maxLength": MAX_CHARS * 4 // 3 + 4,
            "description": "Raw bytes, base64; not with chars.",
        },
        "end_stdin": {
            "type": "boolean",
            "description": "Close a pipe's stdin after any input; not for a PTY.",
        },
        "yield_time_ms": {
            "type": "number",
            "minimum": 0,
            "description": "With input: default 250, clamped to 250-30000. Empty read: 0 is "
            "immediate; omitted or positive waits at least 5000 (at most 600000).",
        },
        "yield_until": {
            "type": "string",
            "minLength": 1,
            "description": "Absolute UTC time to wait until (ISO 8601); not with "
            "yield_time_ms or input.",
        },
        "cols": {"type": "integer", "minimum": 20, "maximum": 500, "description": "With rows."},
        "rows": {"type": "integer", "minimum": 5, "maximum": 300, "description": "With cols."},
    },
    ["session_id"],
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
    {"session_id": SESSION_ID, "signal": {"type": "string", "enum": SIGNALS}},
    ["session_id"],
)

EXEC = _tool(
    "exec",
    "Run a shell command. Returns its output if it finishes within yieldMs, else "
    "status 'running' and a sessionId for the process tool.",
    {
        "command": {"type": "string", "minLength": 1, "maxLength": MAX_COMMAND},
        "yieldMs": {
            "type": "integer",
            "minimum": 0,
            "description": "Background after this delay (default 10000; clamped to 10-120000).",
        },
        "background": {"type": "boolean", "description": "Background immediately."},
        "timeout": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": MAX_TIMEOUT_S,
            "description": "Seconds before the process is killed (default 1800).",
        },
        "pty": {"type": "boolean", "description": "Run on a pseudo-terminal."},
        "workdir": {"type": "string", "minLength": 1},
        "env": {
            "type": "object",
            "maxProperties": 100,
            "propertyNames": {"type": "string", "pattern": ENV_NAME},
            "additionalProperties": {"type": "string", "maxLength": 4096},
            "description": "Extra environment variables for the command.",
        },
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

PROCESS = _tool(
    "process",
    "Manage background exec sessions: list, poll (new output), log (line offset/limit), "
    "write, send-keys, submit, paste, kill, clear, remove.",
    {
        "action": {"type": "string", "enum": PROCESS_ACTIONS},
        "sessionId": {"type": "string", "minLength": 1},
        "data": {"type": "string", "maxLength": MAX_CHARS, "description": "write: stdin text."},
        "eof": {"type": "boolean", "description": "write: close stdin afterwards."},
        "keys": {
            "type": "array",
            "maxItems": 256,
            "items": {"type": "string", "maxLength": 256},
            "description": "send-keys: Enter, Tab, Escape, Backspace, Up/Down/Left/Right, "
            "Home, End, PageUp, PageDown, Insert, Delete, F1-F12, C-x / M-x / S-x "
            "modifiers, ^C, or literal text.",
        },
        "hex": {
            "type": "array",
            "maxItems": 4096,
            "items": {"type": "string", "maxLength": 4},
            "description": "send-keys: raw bytes such as '1b' or '0x03'.",
        },
        "literal": {"type": "string", "maxLength": MAX_CHARS, "description": "send-keys text."},
        "text": {"type": "string", "maxLength": MAX_CHARS, "description": "paste: the text."},
        "bracketed": {"type": "boolean", "description": "paste: bracketed (default true)."},
        "offset": {"type": "integer", "minimum": 0, "description": "log: first line (0-based)."},
        "limit": {"type": "integer", "minimum": 1, "description": "log: number of lines."},
        "timeout": {
            "type": "integer",
            "minimum": 0,
            "description": "poll: wait up to this many ms for exit (clamped to 30000).",
        },
    },
    ["action"],
)


def exec_command_schemas() -> dict[str, dict[str, Any]]:
    return {
        "exec_command": EXEC_COMMAND,
        "write_stdin": WRITE_STDIN,
        "list_sessions": LIST_SESSIONS,
        "set_on_exit": SET_ON_EXIT,
        "kill_session": KILL_SESSION,
    }


def process_schemas() -> dict[str, dict[str, Any]]:
    return {"exec": EXEC, "process": PROCESS}


def all_schemas() -> dict[str, Any]:
    """Every vocabulary jobs-tui speaks: `job`, `exec_command` and `process` families."""
    from ..calls import json_schema

    return {
        "job": {"job": json_schema()},
        "exec_command": exec_command_schemas(),
        "process": process_schemas(),
    }
