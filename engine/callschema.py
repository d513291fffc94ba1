"""The `job` tool's JSON Schema, and the limits and text rules every vocabulary shares.

These schemas are the single definition of what a call may say: `schemacheck.check`
holds calls to them and hosts register them. The typed API checks its arguments against
the same field rules (`arguments.py`), without importing a vocabulary; `tools/job.py` holds
a `job` call to `JOB`, and `toolschemas.py` builds the others from the same fragments.

Patterns mean the same in Python's `re` (the checker, the `jsonschema` library) and in
ECMA-262 (what JSON Schema specifies): no lookaround, no `\\s` or `\\d` (their classes
differ), and where Python would let `$` match before a final newline, a second rule
refuses the newline. A lone surrogate is text only in U+DC80-U+DCFF, the form a byte
that was not UTF-8 takes when decoded with surrogateescape (argv, file names): those
reach a job as the original bytes; any other lone surrogate is refused.
"""

from __future__ import annotations

import copy
from typing import Any

from .model import ACTIONS
from .paths import MAX_JOB_NUMBER as MAX_JOB_NUMBER  # ids are j1..j999999999
from .protocol import KILL_SIGNALS
from .schemacheck import explain, quote

DRAFT = "https://json-schema.org/draft/2020-12/schema"

MAX_COMMAND = 4000
MAX_LABEL = 120
MAX_INPUT = 8192
MAX_LINES = 2000
MAX_START_TIMEOUT_MS = 24 * 60 * 60 * 1000
MAX_WAIT_MS = 600_000
DEFAULT_WAIT_MS = 30_000
MIN_COLS, MAX_COLS, MIN_ROWS, MAX_ROWS = 20, 500, 5, 300
MAX_SAFE_INTEGER = 2**53 - 1  # the bound of a field that is otherwise only clamped

START_TIMEOUT: dict[str, Any] = {"minimum": 1, "maximum": MAX_START_TIMEOUT_MS}  # start's
WAIT_TIMEOUT: dict[str, Any] = {"minimum": 0, "maximum": MAX_WAIT_MS}  # wait's

# The characters Python's str.isspace() calls whitespace, spelled out so that every regex
# dialect reads the same class.
SPACES = (
    r"\t\n\u000b\u000c\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a"
    r"\u2028\u2029\u202f\u205f\u3000"
)
_BAD_SURROGATES = r"\ud800-\udc7f\udd00-\udfff"

TEXT = rf"^[^{_BAD_SURROGATES}]*$"  # any text a job may be given
ARG = rf"^[^\u0000{_BAD_SURROGATES}]*$"  # text that becomes argv, env or a path: no NUL
NOT_BLANK = rf"[^{SPACES}]"  # something besides whitespace
NEWLINE = r"\n"
ID = r"^j[1-9][0-9]{0,8}$"

# `$` in Python also matches before a final "\n": tokens refuse line breaks outright.
SINGLE_LINE: dict[str, Any] = {"not": {"type": "string", "pattern": NEWLINE}}


def _first_bad_character(value: str) -> str | None:
    for ch in value:
        if ch == "\x00":
            return "must not contain a NUL character"
        if "\ud800" <= ch <= "\udfff" and not "\udc80" <= ch <= "\udcff":
            return (
                f"contains the lone surrogate U+{ord(ch):04X}; the only ones text may hold "
                "are U+DC80-U+DCFF, bytes that were not UTF-8"
            )
    return None


@explain(TEXT)
@explain(ARG)
def _explain_text(name: str, value: str) -> str:
    return f"{name} {_first_bad_character(value) or 'is not valid text'}"


@explain(NOT_BLANK)
def _explain_blank(name: str, value: str) -> str:
    return f"{name} must not be empty or only whitespace"


@explain(ID)
def _explain_id(name: str, value: str) -> str:
    return f"{name} {quote(value)} is not a job id like 'j1'"


def command_spec(description: str) -> dict[str, Any]:
    """A shell command: not blank, no NUL, bounded."""
    return {
        "type": "string",
        "maxLength": MAX_COMMAND,
        "pattern": ARG,
        "allOf": [{"pattern": NOT_BLANK}],
        "description": description,
    }


def directory_spec(description: str) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "pattern": ARG, "description": description}


def text_spec(max_length: int, description: str) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_length, "pattern": TEXT, "description": description}


def when(key: str, value: str, then: dict[str, Any]) -> dict[str, Any]:
    """The rules that hold when `key` is `value` (an action's own fields and limits)."""
    return {"if": {"properties": {key: {"const": value}}, "required": [key]}, "then": then}


def only(allowed: set[str], every: list[str], **narrowed: Any) -> dict[str, Any]:
    """`properties` of an action's rules: the fields it does not take are `false`."""
    props: dict[str, Any] = {name: False for name in every if name not in allowed}
    props.update(narrowed)
    return props


_JOB_PROPERTIES: dict[str, Any] = {
    "action": {"type": "string", "enum": list(ACTIONS)},
    "command": command_spec("Shell command to run (start)."),
    "cwd": directory_spec("Working directory (start); defaults to the session's."),
    "label": text_spec(MAX_LABEL, "Short display label (start)."),
    "wake": {"type": "boolean", "description": "Report the finish proactively (start)."},
    "detached": {
        "type": "boolean",
        "description": "Leave it running when the session ends (start).",
    },
    "stdin": {"type": "boolean", "description": "Give the job a stdin pipe (start)."},
    "id": {"type": "string", "pattern": ID, **SINGLE_LINE, "description": "Job id, like j1."},
    "lines": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_LINES,
        "description": "Log lines to return (logs).",
    },
    "input": text_spec(MAX_INPUT, "Text for the job's stdin (send)."),
    "newline": {"type": "boolean", "description": "Append a newline (send; default true)."},
    "eof": {"type": "boolean", "description": "Close the job's stdin after writing (send)."},
    "signal": {
        "type": "string",
        "enum": list(KILL_SIGNALS),
        "description": "kill: default SIGTERM.",
    },
    "timeoutMs": {
        "type": "integer",
        "description": f"start: deadline, 1-{MAX_START_TIMEOUT_MS} ms (24 h). wait: how long "
        f"to block, 0-{MAX_WAIT_MS} ms (default {DEFAULT_WAIT_MS}).",
    },
    "all": {
        "type": "boolean",
        "description": "list: include others' finished jobs. clear: "
        "also kill and remove running jobs.",
    },
}
_FIELDS = [name for name in _JOB_PROPERTIES if name != "action"]


def _job_rules() -> list[dict[str, Any]]:
    f = _FIELDS
    start = {"command", "cwd", "label", "wake", "detached", "stdin", "timeoutMs"}
    return [
        when(
            "action",
            "start",
            {
                "required": ["command"],
                "properties": only(start, f, timeoutMs=START_TIMEOUT),
            },
        ),
        when("action", "list", {"properties": only({"all"}, f)}),
        when("action", "status", {"required": ["id"], "properties": only({"id"}, f)}),
        when("action", "logs", {"required": ["id"], "properties": only({"id", "lines"}, f)}),
        when(
            "action",
            "send",
            {
                "required": ["id"],
                "properties": only({"id", "input", "newline", "eof"}, f),
                "allOf": [
                    {
                        "description": "input is required unless eof is true",
                        "anyOf": [
                            {"required": ["input"]},
                            {"required": ["eof"], "properties": {"eof": {"const": True}}},
                        ],
                    }
                ],
            },
        ),
        when("action", "kill", {"required": ["id"], "properties": only({"id", "signal"}, f)}),
        when(
            "action",
            "wait",
            {
                "required": ["id"],
                "properties": only({"id", "timeoutMs"}, f, timeoutMs=WAIT_TIMEOUT),
            },
        ),
        when("action", "clear", {"properties": only({"id", "all"}, f)}),
    ]


JOB: dict[str, Any] = {
    "$schema": DRAFT,
    "title": "job",
    "description": (
        "Run shell commands as background jobs: start returns an id at once; "
        "list, status, logs, send, kill, wait and clear act on jobs. Each action takes "
        "only its own fields; a null field counts as omitted."
    ),
    "type": "object",
    "additionalProperties": False,
    "required": ["action"],
    "properties": _JOB_PROPERTIES,
    "allOf": _job_rules(),
}


def job_schema() -> dict[str, Any]:
    """The JSON Schema of a `job` call, for agent hosts that register the tool (a copy)."""
    return copy.deepcopy(JOB)
