"""The typed API's own argument checks: the schemas' field rules, applied to one argument.

`JobManager`'s methods take typed arguments from any front door (a vocabulary that held
its call to its schema already, the command line, a Python host), so each checks what it
is given against the same field rules the published schemas hold (`callschema`), with the
same messages, naming the field as the `job` tool spells it. Errors are
`InvalidArgument`s, raised before anything is done. What no schema can know (whether a
`cwd` is a directory) and the arguments no `job` call has (a terminal's size, extra
environment) are checked here too.
"""

from __future__ import annotations

import os
import re
from typing import Any

from jobs_tui.engine.records.results import InvalidArgument

from .callschema import (
    JOB,
    MAX_COLS,
    MAX_ROWS,
    MIN_COLS,
    MIN_ROWS,
    START_TIMEOUT,
)
from .schemacheck import first_problem, quote

_FIELDS: dict[str, Any] = JOB["properties"]


def check(name: str, value: Any, **narrowed: Any) -> Any:
    """`value` held to the `job` schema's rule for field `name` (narrowed as an action's
    rules narrow it); None counts as omitted. Integral floats become ints."""
    if value is None:
        return None
    spec = {**_FIELDS[name], **narrowed}
    problem = first_problem({"type": "object", "properties": {name: spec}}, {name: value}, "job")
    if problem is not None:
        raise InvalidArgument(problem.message, problem.field)
    if isinstance(value, float) and spec.get("type") == "integer":
        return int(value)
    return value


def check_start(
    command: Any, label: Any, stdin: Any, timeout_ms: Any, wake: Any, detached: Any
) -> int | None:
    """A start's fields; returns its deadline (ms) as an int."""
    if command is None:
        raise InvalidArgument("command is required for action 'start'", "command")
    check("command", command)
    check("label", label)
    for name, flag in (("stdin", stdin), ("wake", wake), ("detached", detached)):
        check(name, flag)
    return check("timeoutMs", timeout_ms, **START_TIMEOUT)


def check_send(job_id: Any, text: Any, newline: Any, eof: Any) -> None:
    check("id", job_id)
    check("input", text)
    check("newline", newline)
    check("eof", eof)
    if text is None and eof is not True:
        raise InvalidArgument("input is required unless eof is true", "input")


def check_size(cols: Any, rows: Any) -> None:
    """A terminal's size, `cols` x `rows` (field `cols` names both)."""
    whole = all(isinstance(n, int) and not isinstance(n, bool) for n in (cols, rows))
    if not (whole and MIN_COLS <= cols <= MAX_COLS and MIN_ROWS <= rows <= MAX_ROWS):
        raise InvalidArgument(
            f"terminal size {quote(cols)}x{quote(rows)} is outside "
            f"{MIN_COLS}-{MAX_COLS} x {MIN_ROWS}-{MAX_ROWS}",
            "cols",
        )


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_env(env: Any) -> dict[str, str] | None:
    """Extra environment for a job: names a shell accepts, string values without NUL."""
    if env is None:
        return None
    if not isinstance(env, dict):
        raise InvalidArgument("env must be an object of NAME: value strings", "env")
    for name, value in env.items():
        if not isinstance(name, str) or not _ENV_NAME.match(name):
            raise InvalidArgument(f"env name {quote(name)} is not a valid variable name", "env")
        if not isinstance(value, str) or "\x00" in value:
            raise InvalidArgument(f"env.{name} must be a string without NUL characters", "env")
    return dict(env)


def compile_regex(name: str, pattern: Any) -> re.Pattern[str]:
    """A Python regular expression (`until`, `grep`); InvalidArgument naming `name`."""
    if pattern is None:
        raise InvalidArgument(f"{name} is required", name)
    check(name, pattern)
    try:
        return re.compile(pattern)
    except (re.error, OverflowError, RecursionError) as exc:
        raise InvalidArgument(
            f"{name} {quote(pattern)} is not a valid regular expression: {exc}", name
        ) from None


MAX_TIME_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z


def check_time(name: str, value: Any) -> None:
    """An epoch-ms time (`since_ms`), or None."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIME_MS:
        raise InvalidArgument(f"{name} {quote(value)} is not a time in epoch milliseconds", name)


def resolve_cwd(cwd: Any, session_cwd: str | None) -> str | None:
    """A start's `cwd`, absolute (relative to the session's), which must be a directory."""
    if cwd is None:
        return None
    check("cwd", cwd)
    base = session_cwd or os.getcwd()
    path = os.path.normpath(os.path.join(base, os.path.expanduser(cwd)))
    if not os.path.isdir(path):
        raise InvalidArgument(f"cwd {quote(path)} is not an existing directory", "cwd")
    return path
