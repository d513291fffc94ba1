"""`jobs-tui up [NAME...] [--detach]` and `jobs-tui down [NAME...]`: the project's
declared jobs brought up in dependency order and stopped dependents first.

The file is read and validated whole before anything starts (`config check`'s errors,
exit 2), and a NAME the file does not declare is refused the same way. `up` without
`--detach` opens the screen, which brings the jobs up itself; with it, the jobs' own
supervisors are started a level at a time and the call returns once each one runs (or
failed to start): each waits for its dependencies, probes and restarts its job with no
session watching. `down` with no file still stops every running declared job.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.declared import (
    DeclaredFileError,
    NoDeclaredFile,
    Stack,
    UnknownDeclared,
    load_stack,
)

from .. import printing
from ..errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, UsageError, VerbError
from ..jsonout import emit_result
from . import human
from .declared import say_invalid

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.session.declaring import DownResult, UpResult


def _stack(*, required: bool) -> Stack | None:
    """The project's declared jobs; None when there is no file and none is `required`.
    An invalid file raises DeclaredFileError (the caller says every error, exit 2)."""
    try:
        return load_stack(None)
    except NoDeclaredFile as exc:
        if required:
            raise VerbError(str(exc), EXIT_ERROR) from None
        return None


def _names(args: argparse.Namespace, stack: Stack | None) -> list[str] | None:
    """The NAMEs asked for (None: all of them), each declared: UnknownDeclared refused
    here, before a session opens, as a usage error naming NAME."""
    names = list(dict.fromkeys(args.names)) or None
    if stack is not None and names is not None:
        try:
            stack.closure(names)
        except UnknownDeclared as exc:
            raise VerbError(str(exc), EXIT_USAGE, field="NAME") from None
    return names


def prepare(args: argparse.Namespace) -> int | None:
    """Read and check the file and the NAMEs before a session opens (or the screen): an
    exit status when they are refused, else None with `args.stack` and `args.names` set
    (`stack` None: `down` with no file, which stops every declared job running)."""
    up = args.verb == "up"
    try:
        stack = _stack(required=up)
    except DeclaredFileError as exc:
        return say_invalid(args, exc, args.verb)
    args.stack, args.names = stack, _names(args, stack)
    if stack is not None and not args.json:
        for warning in stack.warnings:  # what the file alone cannot know: a cwd not there yet
            printing.err(f"jobs-tui: warning: {human.safe(warning, 400)}")
    if up and not args.detach and not sys.stdout.isatty():
        message = "up opens the screen, which needs a terminal; pass --detach"
        raise UsageError(message, "--detach")
    return None


async def up(jm: JobManager, args: argparse.Namespace) -> int:
    """`up --detach`: every job's supervisor started, a level at a time; exit 1 if one
    did not start."""
    return await _up(jm, args, args.stack, args.names)


async def down(jm: JobManager, args: argparse.Namespace) -> int:
    return await _down(jm, args, args.stack, args.names)


async def _up(
    jm: JobManager, args: argparse.Namespace, stack: Stack, names: list[str] | None
) -> int:
    result = await jm.up(stack, names, detached=None)
    code = EXIT_ERROR if result.failed else EXIT_OK
    return emit_result(args, up_details(result), up_lines(stack, result), code)


def up_details(result: UpResult) -> dict[str, Any]:
    return {
        "started": [r.to_json() for r in result.started],
        "running": [r.to_json() for r in result.running],
        "failed": [{"name": name, "error": why} for name, why in result.failed],
    }


def up_lines(stack: Stack, result: UpResult) -> list[str]:
    """One line per name, in the start order: `db      started j1`, `already running`,
    `not started: why`."""
    said: dict[str, str] = {}
    for record in result.started:
        said[str(record.declared_name)] = f"started {human.safe(record.id, 20)}"
    for record in result.running:
        said[str(record.declared_name)] = f"already running {human.safe(record.id, 20)}"
    for name, why in result.failed:
        text = why if why.startswith("not started") else f"not started: {why}"
        said[name] = human.safe(text, 400)
    order = [name for level in stack.levels() for name in level if name in said]
    width = max((len(name) for name in order), default=0)
    return [f"{name:<{width}}  {said[name]}" for name in order] or ["nothing to start"]


async def _down(
    jm: JobManager, args: argparse.Namespace, stack: Stack | None, names: list[str] | None
) -> int:
    result = await jm.down(stack, names)
    not_running = list(result.not_running)
    if stack is None and names is not None:  # no file: a name with no running job is said
        stopped = {r.job.declared_name for r in result.stopped}
        not_running += [n for n in names if n not in stopped and n not in not_running]
    lines = down_lines(result, not_running)
    still = [k.job for k in result.stopped if k.job.running]
    code = EXIT_ERROR if still else EXIT_OK
    return emit_result(args, down_details(result, not_running), lines, code)


def down_details(result: DownResult, not_running: list[str]) -> dict[str, Any]:
    stopped = []
    for kill in result.stopped:
        item: dict[str, Any] = {
            "job": kill.job.to_json(),
            "signal": kill.signal,
            "escalated": bool(kill.escalated),
        }
        if kill.note:
            item["note"] = kill.note
        stopped.append(item)
    return {"stopped": stopped, "notRunning": not_running}


def down_lines(result: DownResult, not_running: list[str]) -> list[str]:
    """Each stop's outcome line, in the order stopped, then the names not running."""
    now = human.now_ms()
    lines = []
    for kill in result.stopped:
        line = human.outcome_line(kill.job, now)
        if kill.escalated:
            line += " · KILL after the grace"
        if kill.job.running:
            line += " · still running after the grace"
        lines.append(line)
    lines += [f"{human.safe(name, 64)}: not running" for name in not_running]
    return lines or ["no declared job is running"]


__all__ = ["down", "prepare", "up"]
