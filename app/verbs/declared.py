"""`jobs-tui config check [FILE]` and `jobs-tui config import FILE`: the project's declared
jobs read, validated whole and shown as a plan, or another tool's file written as the
equivalent `jobs-tui.toml`. Neither opens a session nor starts anything.

An invalid file exits 2 with every error, one per line, each naming the file, the job
and the key (`jobs-tui.toml: jobs.api.depends_on: db -> api -> db is a cycle`); with
`--json`, the error shape with the whole list in `errors`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from jobs_tui.engine.declared import (
    FILE_NAME,
    DeclaredFileError,
    NoDeclaredFile,
    Stack,
    load_stack,
)

from .. import jsonout, printing
from ..errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, VerbError


def _load(args: argparse.Namespace) -> Stack:
    try:
        return load_stack(args.file)
    except NoDeclaredFile as exc:
        raise VerbError(str(exc), EXIT_ERROR, field="FILE") from None


def say_invalid(args: argparse.Namespace, exc: DeclaredFileError, action: str | None = None) -> int:
    """Every error (and warning) on stderr, or the error shape with `errors`; exit 2.
    `action`: the verb the JSON names (default `config <action>`)."""
    first = exc.errors[0]
    more = len(exc.errors) - 1
    message = first if not more else f"{first} (and {more} more)"
    if args.json:
        error = VerbError(message, EXIT_USAGE, field="FILE" if action is None else None)
        out = jsonout.error(error, message, action or f"config {args.action}", args.session)
        out["errors"] = exc.errors
        out["warnings"] = exc.warnings
        printing.line(jsonout.dumps(out))
    else:
        for line in exc.warnings:
            printing.err(f"jobs-tui: warning: {line}")
        for line in exc.errors:
            printing.err(f"jobs-tui: {line}")
    return EXIT_USAGE


def config_check(args: argparse.Namespace) -> int:
    try:
        stack = _load(args)
    except DeclaredFileError as exc:
        return say_invalid(args, exc)
    details = {
        "source": stack.source,
        "format": stack.format,
        "levels": stack.levels(),
        "jobs": [job.to_spec() for job in stack.jobs.values()],
        "warnings": stack.warnings,
    }
    return jsonout.emit_result(args, details, plan(stack), action="config check")


def plan(stack: Stack) -> list[str]:
    """The plan as `config check` prints it: where, the levels, each job's probe and policy."""
    levels = stack.levels()
    read = f"read from {stack.source}"
    if stack.format != FILE_NAME:
        read += f" (no {FILE_NAME}: read as {stack.format})"
    jobs, count = len(stack.jobs), len(levels)
    order = f"{jobs} job{'s' * (jobs != 1)} in {count} level{'s' * (count != 1)}"
    lines = [read, f"start order: {order}"]
    lines += [f"  {at}. {'  '.join(level)}" for at, level in enumerate(levels, 1)]
    width = max(len(name) for name in stack.jobs)
    for name, job in stack.jobs.items():
        lines.append("")
        head = f"{name:<{width}}  {job.command}"
        lines.append(head if job.autostart else f"{head}  (autostart false)")
        if job.description:
            lines.append(f"  {'about':<8} {job.description}")
        if job.depends_on:
            needs = ", ".join(f"{dep} {state}" for dep, state in job.depends_on.items())
            lines.append(f"  {'needs':<8} {needs}")
        lines.append(f"  {'ready':<8} {job.ready.describe() if job.ready else 'when started'}")
        lines.append(f"  {'policy':<8} {job.policy()}")
        stop = f"{job.stop_signal}, KILL after {job.kill_grace_ms} ms"
        lines.append(f"  {'stop':<8} {stop}")
    lines += [f"warning: {w}" for w in stack.warnings]
    return lines


def config_import(args: argparse.Namespace) -> int:
    from jobs_tui.engine.declared.export import to_toml

    if not args.file:
        raise VerbError(
            "config import needs FILE: a process-compose.yaml, mprocs.yaml or Procfile",
            EXIT_USAGE,
            field="FILE",
        )
    source = Path(os.path.abspath(args.file))
    if source.name == FILE_NAME:
        raise VerbError(f"{args.file} is already a {FILE_NAME}", EXIT_USAGE, field="FILE")
    try:
        stack = _load(args)
    except DeclaredFileError as exc:
        return say_invalid(args, exc)
    target = source.parent / FILE_NAME
    if target.exists() and not args.force:
        raise VerbError(
            f"{target} exists; not overwritten (pass --force to replace it)",
            EXIT_ERROR,
            field="--force",
        )
    header = [f"Written by `jobs-tui config import {source.name}` from {source.name}."]
    if stack.warnings:
        header += ["", "Not carried over:", *(f"  {w}" for w in stack.warnings)]
    _write(target, to_toml(stack, header))
    details: dict[str, Any] = {
        "path": str(target),
        "source": str(source),
        "format": stack.format,
        "imported": list(stack.jobs),
        "warnings": stack.warnings,
    }
    lines = [f"wrote {target}: {len(stack.jobs)} jobs from {source.name}"]
    lines += [f"not carried over: {w}" for w in stack.warnings]
    return jsonout.emit_result(args, details, lines, action="config import")


def _write(target: Path, text: str) -> None:
    """Whole or not at all: a temporary file beside it, then renamed over it."""
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise VerbError(f"{target}: cannot be written: {exc.strerror or exc}", EXIT_ERROR) from None


__all__ = ["EXIT_OK", "config_check", "config_import", "plan"]
