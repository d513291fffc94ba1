"""The command line's exit codes and errors, named the way the user typed them.

The engine names its fields (`timeoutMs`, `timeout_seconds`, `workdir`); a person at
a shell typed `--timeout-ms` or `--cwd`. Every message and every `--json` error's
`field` uses the flag (or the positional's name: ID, COMMAND, TEXT), and quotes at
most `QUOTE_LIMIT` characters of what was typed.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNKNOWN, EXIT_REFUSED = 0, 1, 2, 3, 4
EXIT_TIMEOUT, EXIT_NO_CODE, EXIT_INTERRUPTED, EXIT_PIPE = 124, 125, 130, 141
KINDS = {
    EXIT_ERROR: "error",
    EXIT_USAGE: "usage",
    EXIT_UNKNOWN: "unknown-id",
    EXIT_REFUSED: "refused",
    EXIT_INTERRUPTED: "interrupted",
}
QUOTE_LIMIT = 80

# The engine's (and the facades') field names -> what the user typed, per verb.
_COMMON = {"id": "ID", "session_id": "ID"}
FLAGS: dict[str, dict[str, str]] = {
    "strays": {"pid": "--kill"},
    "start": {
        "command": "COMMAND",
        "cwd": "--cwd",
        "label": "--label",
        "timeoutMs": "--timeout-ms",
        "cols": "--cols",
        "rows": "--rows",
        "detached": "--detached",
        "stdin": "--stdin",
        "wake": "--wake",
        "env": "--env",
    },
    "exec": {
        "command": "COMMAND",
        "cmd": "COMMAND",
        "cwd": "--cwd",
        "workdir": "--cwd",
        "timeoutMs": "--timeout-ms",
        "timeout_seconds": "--timeout-ms",
        "yield_time_ms": "--yield-ms",
        "tty": "--tty",
        "env": "--env",
    },
    "poll": {"yield_time_ms": "--wait-ms"},
    "wait": {
        "timeoutMs": "--timeout-ms",
        "timeout_ms": "--timeout-ms",
        "until": "--until",
        "ids": "ID",
        "mode": "--any",
        "fromStart": "--from-start",
        "port": "--port",
        "ready": "--ready",
    },
    "up": {"names": "NAME", "name": "NAME"},
    "down": {"names": "NAME", "name": "NAME"},
    "logs": {
        "lines": "--lines",
        "offset": "--offset",
        "limit": "--limit",
        "pattern": "--grep",
        "grep": "--grep",
        "context": "--context",
        "since": "--since",
        "since_ms": "--since",
    },
    "send": {"input": "TEXT", "eof": "--eof", "newline": "--no-newline"},
    "kill": {"signal": "--signal"},
    "clear": {"all": "--all"},
    "list": {"all": "--all", "label": "--label"},
}


class VerbError(Exception):
    """A failure with its exit code, the flag it concerns, and the job it is about."""

    def __init__(
        self,
        message: str,
        code: int,
        details: dict[str, Any] | None = None,
        *,
        field: str | None = None,
        usage: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.details = details  # may hold "job": the record the error is about
        self.field = field
        self.usage = usage


class UsageError(VerbError):
    """A call that cannot run as typed (exit 2): a bad option, value, or missing word."""

    def __init__(self, message: str, field: str | None = None, usage: str | None = None) -> None:
        super().__init__(message, EXIT_USAGE, field=field, usage=usage)


def flag_for(verb: str | None, field: str | None) -> str | None:
    """`timeoutMs` of `wait` -> `--timeout-ms`; a name with no flag stays as it is."""
    if field is None:
        return None
    return FLAGS.get(verb or "", {}).get(field) or _COMMON.get(field) or field


def renamed(message: str, field: str | None, flag: str | None) -> str:
    """The message with the engine's field name replaced by the flag the user typed."""
    if not field or not flag or field == flag:
        return message
    return re.sub(rf"(?<![\w-]){re.escape(field)}(?![\w-])", flag, message, count=1)


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """`repr` of what the user typed, at most `limit` characters of it."""
    return repr(clip(str(value), limit))


_LONG = QUOTE_LIMIT + 1
_QUOTED = re.compile(rf"'(?:[^'\\\n]|\\.){{{_LONG},}}'|\"(?:[^\"\\\n]|\\.){{{_LONG},}}\"")
_TOKEN = re.compile(rf"[^\s…]{{{_LONG},}}")  # a capped quote ends with … and stays


def capped(message: str) -> str:
    """Long quoted inputs (and long unquoted words) cut to `QUOTE_LIMIT` with an ellipsis."""

    def cut(match: re.Match[str]) -> str:
        text = match.group(0)
        return text[0] + clip(text[1:-1]) + text[-1]

    message = _QUOTED.sub(cut, message)
    return _TOKEN.sub(lambda m: clip(m.group(0)), message)
