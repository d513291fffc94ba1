"""What the exec_command and process facades share: ids, states, names, env, errors.

Both facades are thin: every job goes through the same JobManager (one job table,
one settle path); this module only translates between their words and its records.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.calls.callschema import NAME
from jobs_tui.engine.records.format import elapsed_ms as format_elapsed_ms
from jobs_tui.engine.records.ids import is_job_id
from jobs_tui.engine.records.model import JobRecord, now_ms
from jobs_tui.engine.records.results import UnknownJob
from jobs_tui.engine.registry.outcomes import (  # the core's words, re-exported here
    exit_status_code,
    iso_utc,
    state,
    stop_reason,
)

from .validation import ToolInputError, quote

if TYPE_CHECKING:
    from jobs_tui.engine.session.manager import JobManager

__all__ = [
    "exit_status_code",
    "iso_utc",
    "state",
    "stop_reason",
]

OUTPUT_CAP = 32 * 1024  # bytes of output one call returns at most; the rest stays unread
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


_NAME = re.compile(NAME)


def job_id_from(value: Any, field: str) -> str:
    """`1`, `"1"` or `"j1"` -> `"j1"`; a declared job's name (`"api"`) as it is, for
    `resolve_name`; anything else is an error naming `field`."""
    text = value
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10**10:
        text = str(value)
    if isinstance(text, str):
        candidate = text if text.startswith("j") else f"j{text}"
        if is_job_id(candidate):
            return candidate
        if _NAME.match(text) and "\n" not in text:
            return text
    raise ToolInputError(
        f"{field} {quote(value)} is not a session id such as 1 (or j1) or a declared job's name",
        field,
    )


def resolve_name(manager: JobManager, v: dict[str, Any], field: str) -> dict[str, Any]:
    """A call's `job_id` that is a declared name -> its current job's id, once, before
    the call acts: what the facades keep by id (unread cursors, kills under way) is then
    that job's, and a restart under the name is a new session. UnknownJob naming the
    vocabulary's own `field` (`session_id`, `sessionId`) if none."""
    job_id = v.get("job_id")
    if isinstance(job_id, str) and not is_job_id(job_id):
        try:
            v["job_id"] = manager.get(job_id).id
        except UnknownJob:
            message = f"{field} {job_id!r} is not a known job or a declared job's name"
            raise UnknownJob(message, field) from None
    return v


def parse_utc(text: str, field: str) -> float:
    """A time the schema's ISO_TIME rule admits (with its zone) -> epoch ms.

    The rule cannot know that a month lacks a day (2030-02-30): that is refused here.
    """
    import re
    from datetime import datetime

    from jobs_tui.engine.calls.toolschemas import ISO_TIME

    if "\n" in text or not re.search(ISO_TIME, text):
        raise ToolInputError(
            f"{field} {quote(text)} is not a time such as 2030-01-01T00:00:00Z (with its zone)",
            field,
        )
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError as exc:
        raise ToolInputError(f"{field} {quote(text)} names no real time", field) from exc
    return moment.timestamp() * 1000


def elapsed_ms(record: JobRecord) -> int:
    return int(format_elapsed_ms(record, now_ms()))


def derive_name(command: str) -> str:
    """`command verb + target`: `npm run build` -> `npm run`; `FOO=1 pytest -q t/` -> `pytest t/`.

    Leading assignments (and an `export ...;` prefix) are skipped.
    """
    import shlex

    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        tokens = command.split()
    while tokens and (tokens[0] == "export" or _ASSIGNMENT.match(tokens[0])):
        # our own env prefix (`export A=1; ...`) and leading assignments are not the verb
        if tokens[0] == "export":
            while tokens and tokens[0] != ";":
                tokens.pop(0)
            if tokens:
                tokens.pop(0)
        else:
            tokens.pop(0)
    if not tokens:
        return command.strip()[:60]
    verb = os.path.basename(tokens[0]) or tokens[0]
    target = next((t for t in tokens[1:] if not t.startswith("-")), None)
    if target is None:
        target = tokens[1] if len(tokens) > 1 else None
    if target is None or target in ";&|":
        return verb
    if len(target) > 48:
        target = target[:22] + "..." + target[-23:]
    return f"{verb} {target}"


async def wait_until(manager: JobManager, job_id: str, deadline_ms: float) -> JobRecord:
    """The record once it finished or when the wall-clock deadline passed (early on exit)."""
    left = deadline_ms - now_ms()
    if left <= 0:
        return manager.get(job_id)
    return await manager.wait(job_id, int(left), report=False)


def error_result(kind: str, name: str, exc: Exception) -> dict[str, Any]:
    """A failed call: the message, the field it names and a code (invalid/unknown-id/refused)."""
    return {
        kind: name,
        "status": "error",
        "error": str(exc),
        "field": getattr(exc, "field", None),
        "code": getattr(exc, "code", "invalid"),
    }


def merge_fields(args: Any, fields: dict[str, Any]) -> Any:
    """A call given as one dict, as keywords, or both (keywords win); anything else as is."""
    if args is None:
        return dict(fields)
    if fields and isinstance(args, dict):
        return {**args, **fields}
    return args
