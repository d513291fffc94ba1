"""The one JSON shape of the command line's `--json` output (schemas: `jobs-tui schema cli`).

A result: `{"action", "exit", "sessionId", ...}` with camelCase fields; `job` / `jobs`
hold registry-format JobRecords; `sessionId` is always the session, never a job.
An error: `{"action", "exit", "sessionId", "error", "field", "code"}` (plus `job` when
it concerns one, and `usage` for a usage error). `exit` is the status the call exits
with. Text is escaped so that no control character, C1 or bidirectional override
reaches a terminal that shows the JSON: everything below U+0020, U+007F-U+009F,
U+061C, U+200E/F, U+2028/9, U+202A-U+202E, U+2066-U+2069 and lone surrogates become
`\\uXXXX` (a JSON parser reads back the original text).
"""

from __future__ import annotations

import json
import re

from . import printing
from .errors import EXIT_OK, KINDS, VerbError

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from argparse import Namespace
    from typing import Any

_UNSAFE = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def dumps(value: Any) -> str:
    """One line of JSON, readable (UTF-8) but terminal-safe (see the module docstring)."""
    text = json.dumps(value, ensure_ascii=False)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def _session(session: str | None) -> str:
    from .session import session_name

    return session_name(session)


def result(action: str, code: int, session: str | None, fields: dict[str, Any]) -> dict[str, Any]:
    return {"action": action, "exit": code, "sessionId": _session(session), **fields}


def emit(action: str, code: int | None, session: str | None, fields: dict[str, Any]) -> None:
    """Print one result (`code` None: a line of `logs --follow` before its last)."""
    out = {"action": action, "exit": code, "sessionId": _session(session), **fields}
    printing.line(dumps(out))


def emit_result(
    args: Namespace,
    details: dict[str, Any],
    lines: list[str] | str,
    code: int | None = EXIT_OK,
    action: str | None = None,
) -> int:
    """The result: human lines, or with --json one object of this shape whose
    `exit` is `code`, the status the call exits with. Returns `code`."""
    if args.json:
        fields = {k: v for k, v in details.items() if k not in ("action", "sessionId")}
        emit(action or args.verb, code, args.session, fields)
    else:
        printing.line(lines if isinstance(lines, str) else "\n".join(lines))
    return EXIT_OK if code is None else code


def error(exc: VerbError, message: str, verb: str | None, session: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "action": verb,
        "exit": exc.code,
        "sessionId": _session_or_none(session),
        "error": message,
        "field": exc.field,
        "code": KINDS.get(exc.code, "error"),
    }
    job = (exc.details or {}).get("job")
    if isinstance(job, dict):
        out["job"] = job
    if exc.usage:
        out["usage"] = exc.usage.strip()
    return out


def _session_or_none(session: str | None) -> str | None:
    try:
        return _session(session)
    except Exception:  # a session name that is itself the error
        return None


def emit_error(exc: VerbError, message: str, verb: str | None, session: str | None) -> None:
    printing.line(dumps(error(exc, message, verb, session)))
