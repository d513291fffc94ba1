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

from jobs_tui.engine.records.ids import MAX_JOB_NUMBER as MAX_JOB_NUMBER  # j1..j999999999
from jobs_tui.engine.records.model import ACTIONS
from jobs_tui.engine.shim.protocol import KILL_SIGNALS
from jobs_tui.engine.shim.protocol import MAX_COLS as MAX_COLS
from jobs_tui.engine.shim.protocol import MAX_ROWS as MAX_ROWS
from jobs_tui.engine.shim.protocol import MIN_COLS as MIN_COLS
from jobs_tui.engine.shim.protocol import MIN_ROWS as MIN_ROWS

from .schemacheck import explain, quote

DRAFT = "https://json-schema.org/draft/2020-12/schema"
# the record's actions, and `strays` (issue 27): about processes that are no job's
JOB_ACTIONS = (*ACTIONS, "strays")
MAX_PID = 4_194_304  # Linux's pid_max at most (2^22)

MAX_COMMAND = 4000
MAX_LABEL = 120
MAX_INPUT = 8192
MAX_LINES = 2000
MAX_START_TIMEOUT_MS = 24 * 60 * 60 * 1000
MAX_WAIT_MS = 600_000
DEFAULT_WAIT_MS = 30_000
MAX_SAFE_INTEGER = 2**53 - 1  # the bound of a field that is otherwise only clamped
MAX_WAIT_IDS = 100  # jobs one wait names at most
MAX_UNTIL = 1000  # characters of a regex (`until`, `grep`)
MAX_CONTEXT = 20  # lines of context around a grep match, each side
MAX_SEARCH = 1000  # matching lines one search returns at most
MAX_PORT = 65535

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
# A job id, or a declared job's name (engine/declared/keys.py NAME: never one that reads
# as an id), which names that name's current job.
DECLARED_NAME = r"(?!j?[0-9]+$)[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"
ID = rf"^(?:j[1-9][0-9]{{0,8}}|{DECLARED_NAME})$"
NAME = rf"^{DECLARED_NAME}$"
MAX_NAMES = 200  # a file declares at most this many jobs (declared/keys.py MAX_JOBS)
ISO_TIME = (
    r"^(?:19[7-9][0-9]|2[0-9]{3})-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt ]"
    r"(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:[.,][0-9]{1,9})?)?"
    r"(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$"
)
DURATION = r"^[1-9][0-9]{0,8}(?:ms|s|m|h|d)$"  # how long ago: 90s, 5m, 2h
SINCE = rf"{DURATION}|{ISO_TIME}"

ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
ENV: dict[str, Any] = {
    "type": "object",
    "maxProperties": 100,
    "propertyNames": {
        "type": "string",
        "pattern": ENV_NAME,
        "not": {"type": "string", "pattern": NEWLINE},
    },
    "additionalProperties": {"type": "string", "maxLength": 4096, "pattern": ARG},
    "description": "Extra environment variables for the command (start): kept off every "
    "command line; a restart keeps them.",
}

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


@explain(ISO_TIME)
def _explain_time(name: str, value: str) -> str:
    return f"{name} {quote(value)} is not a time such as 2030-01-01T00:00:00Z (with its zone)"


@explain(SINCE)
def _explain_since(name: str, value: str) -> str:
    return (
        f"{name} {quote(value)} is neither a duration such as 90s, 5m or 2h nor a time "
        "such as 2030-01-01T00:00:00Z (with its zone)"
    )


@explain(ENV_NAME)
def _explain_env(name: str, value: str) -> str:
    return f"{name} {quote(value)} is not a valid variable name"


@explain(NAME)
def _explain_name(name: str, value: str) -> str:
    return f"{name} {quote(value)} is not a declared job's name (letters, digits, _ . -)"


@explain(ID)
def _explain_id(name: str, value: str) -> str:
    return f"{name} {quote(value)} is not a job id like 'j1' or a declared job's name"


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
    "action": {"type": "string", "enum": list(JOB_ACTIONS)},
    "command": command_spec("Shell command to run (start)."),
    "cwd": directory_spec("Working directory (start); defaults to the session's."),
    "label": text_spec(MAX_LABEL, "Short display label (start)."),
    "wake": {"type": "boolean", "description": "Report the finish proactively (start)."},
    "detached": {
        "type": "boolean",
        "description": "Leave it running when the session ends (start, up).",
    },
    "names": {
        "type": "array",
        "minItems": 1,
        "maxItems": MAX_NAMES,
        "items": {"type": "string", "pattern": NAME, **SINGLE_LINE},
        "description": "up: these declared jobs and what they depend on (default: those "
        "with autostart). down: these and what depends on them (default: all).",
    },
    "stdin": {"type": "boolean", "description": "Give the job a stdin pipe (start)."},
    "env": ENV,
    "id": {
        "type": "string",
        "pattern": ID,
        **SINGLE_LINE,
        "description": "Job id, like j1, or a declared job's name (its current job).",
    },
    "ids": {
        "type": "array",
        "minItems": 1,
        "maxItems": MAX_WAIT_IDS,
        "items": {"type": "string", "pattern": ID, **SINGLE_LINE},
        "description": "wait: several job ids (not with id).",
    },
    "mode": {
        "type": "string",
        "enum": ["any", "all"],
        "description": "wait: return when any job ends, or when all have (default all).",
    },
    "until": {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_UNTIL,
        "format": "regex",
        "pattern": TEXT,
        "description": "wait: return as soon as a line of output matches this Python "
        "regular expression (the job keeps running).",
    },
    "fromStart": {
        "type": "boolean",
        "description": "wait with until: search from the job's start, not from now.",
    },
    "port": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_PORT,
        "description": "wait: return as soon as the job's process tree listens on this TCP "
        "port (the job keeps running).",
    },
    "ready": {
        "type": "boolean",
        "description": "wait: return once the declared jobs' readiness probes pass "
        "(reason ready), or one gives up (reason not-ready); not with until or port.",
    },
    "grep": {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_UNTIL,
        "format": "regex",
        "pattern": TEXT,
        "description": "logs: only lines matching this Python regular expression.",
    },
    "context": {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_CONTEXT,
        "description": "logs with grep: lines of context around each match.",
    },
    "since": {
        "type": "string",
        "maxLength": 64,
        "pattern": SINCE,
        **SINGLE_LINE,
        "description": "logs: only lines written since then: 90s, 5m, 2h ago, or an "
        "ISO-8601 time with its zone.",
    },
    "timestamps": {
        "type": "boolean",
        "description": "logs: each line's wall-clock time (times, epoch ms; null if unknown).",
    },
    "raw": {
        "type": "boolean",
        "description": "logs: the bytes as written, escapes and all (a terminal job's "
        "logs are otherwise the rows its terminal shows); not with grep, since or timestamps.",
    },
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
    "pid": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_PID,
        "description": "kill: a stray's pid (as strays lists it), instead of id: its "
        "process tree is killed (TERM, then KILL after the grace) if it is a stray still.",
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
    start = {"command", "cwd", "label", "wake", "detached", "stdin", "timeoutMs", "env"}
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
        when(
            "action",
            "logs",
            {
                "required": ["id"],
                "properties": only(
                    {"id", "lines", "grep", "context", "since", "timestamps", "raw"}, f
                ),
                "dependentRequired": {"context": ["grep"]},
            },
        ),
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
        when(
            "action",
            "kill",
            {
                "properties": only({"id", "signal", "pid"}, f),
                "allOf": [
                    {
                        "description": "id is required: a job's (or pid, a stray's)",
                        "anyOf": [{"required": ["id"]}, {"required": ["pid"]}],
                    },
                    {"not": {"required": ["id", "pid"]}},
                    {"not": {"required": ["pid", "signal"]}},
                ],
            },
        ),
        when(
            "action",
            "wait",
            {
                "properties": only(
                    {"id", "ids", "mode", "until", "fromStart", "port", "ready", "timeoutMs"},
                    f,
                    timeoutMs=WAIT_TIMEOUT,
                ),
                "dependentRequired": {"fromStart": ["until"]},
                # neither id nor ids: the session's running jobs, until the first ends
                "allOf": [
                    {"not": {"required": ["id", "ids"]}},
                    {"not": {"required": ["ready", "until"]}},
                    {"not": {"required": ["ready", "port"]}},
                ],
            },
        ),
        when("action", "restart", {"required": ["id"], "properties": only({"id"}, f)}),
        when("action", "clear", {"properties": only({"id", "all"}, f)}),
        when("action", "up", {"properties": only({"names", "detached"}, f)}),
        when("action", "down", {"properties": only({"names"}, f)}),
        when("action", "strays", {"properties": only(set(), f)}),
    ]


JOB: dict[str, Any] = {
    "$schema": DRAFT,
    "title": "job",
    "description": (
        "Run shell commands as background jobs: start returns an id at once; "
        "list, status, logs, send, kill, wait, restart and clear act on jobs; up and down "
        "start and stop the project's declared jobs (jobs-tui.toml), whose names an id may "
        "be; strays lists processes that escaped the jobs (kill with pid ends one). Each "
        "action takes only its own fields; a null field counts as omitted."
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
