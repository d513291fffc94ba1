"""`exec` and `poll` (the exec_command vocabulary from the shell), `config` and `schema`.

`exec` and `poll` print the job's output on stdout and the outcome line on stderr,
so `jobs-tui exec -- cmd | grep x` sees only the command's output.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any

from . import human, jsonout, printing
from .errors import (
    EXIT_ERROR,
    EXIT_NO_CODE,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_TIMEOUT,
    EXIT_UNKNOWN,
    EXIT_USAGE,
    VerbError,
    flag_for,
    quote,
    renamed,
)
from .verbs import emit

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager

CODES = {"invalid": EXIT_USAGE, "unknown-id": EXIT_UNKNOWN, "refused": EXIT_REFUSED}


def _checked(verb: str, result: dict[str, Any]) -> dict[str, Any]:
    """A facade's error result -> a VerbError naming the flag (exit 2, 3, 4 or 1)."""
    if result.get("status") == "error":
        field = result.get("field")
        flag = flag_for(verb, field)
        message = renamed(str(result.get("error")), field, flag)
        raise VerbError(message, CODES.get(result.get("code", ""), EXIT_ERROR), field=flag)
    return result


def _notes_before(result: dict[str, Any]) -> list[str]:
    """What the reader must know before the output: where it starts after a rotation."""
    skipped = result.get("output_skipped_bytes")
    if not skipped:
        return []
    return [
        f"note: {skipped} bytes rotated out of the log before this session read them; "
        "the output starts at the oldest byte kept, possibly mid-line"
    ]


def _notes_after(result: dict[str, Any], record: Any) -> list[str]:
    unread = result.get("unread_bytes")
    if not unread:
        return []
    return [f"note: {unread} more bytes are unread: `jobs-tui poll {record.id}` for more"]


SUPERVISION = {
    "state": "state",
    "stop_reason": "stopReason",
    "deadline_utc": "deadlineUtc",
    "quiet_ms": "quietMs",
    "log_bytes": "logBytes",
    "log_truncated": "logTruncated",
    "cleanup": "cleanup",
}


def translated(result: dict[str, Any], record: Any) -> dict[str, Any]:
    """The exec_command result in the command line's words (the facade keeps its own):
    the job as a registry record, camelCase, and `sessionId` left to mean the session."""
    out: dict[str, Any] = {
        "job": record.to_json(),
        "output": result.get("output", ""),
        "running": bool(result.get("running")),
    }
    for theirs, ours in (
        ("output_truncated", "outputTruncated"),
        ("unread_bytes", "unreadBytes"),
        ("output_skipped_bytes", "outputSkippedBytes"),
        ("failure", "failure"),
    ):
        if result.get(theirs) is not None:
            out[ours] = result[theirs]
    notes = [n.removeprefix("note: ") for n in _notes_before(result) + _notes_after(result, record)]
    if notes:
        out["note"] = "; ".join(notes)
    supervision = result.get("supervision") or {}
    out["supervision"] = {ours: supervision.get(theirs) for theirs, ours in SUPERVISION.items()}
    return out


def _show(args: argparse.Namespace, jm: JobManager, result: dict[str, Any], code: int) -> int:
    record = jm.get(result["job_id"])
    if args.json:
        jsonout.emit(args.verb, code, args.session, translated(result, record))
        return code
    for note in _notes_before(result):
        printing.err(note)
    output = result.get("output", "")
    if output:
        printing.write(output if output.endswith("\n") else output + "\n")
    printing.err(human.exec_status_line(result, record))
    for note in _notes_after(result, record):
        printing.err(note)
    return code


async def exec_verb(jm: JobManager, args: argparse.Namespace) -> int:
    """The command's own exit code if it finished within the yield, else 124 (still running)."""
    from jobs_tui.engine.tools import ExecCommandTools
    from jobs_tui.engine.tools.common import exit_status_code

    from .verbs import run_call_check

    start = {"action": "start", "command": args.words, "cwd": args.cwd}
    run_call_check(jm, {**start, "timeoutMs": args.timeout_ms}, "exec")  # the job tool's rules
    call: dict[str, Any] = {"cmd": args.words, "tty": args.tty, "workdir": args.cwd}
    if args.yield_ms is not None:
        call["yield_time_ms"] = args.yield_ms
    if args.timeout_ms is not None:
        call["timeout_seconds"] = args.timeout_ms / 1000
    result = _checked("exec", await ExecCommandTools(jm).exec_command(call))
    if result["running"]:
        code = EXIT_TIMEOUT
    else:
        status_code = exit_status_code(jm.get(result["job_id"]))
        code = EXIT_NO_CODE if status_code is None else status_code
    return _show(args, jm, result, code)


async def poll(jm: JobManager, args: argparse.Namespace) -> int:
    """Output this session has not read yet, then the job's status."""
    from jobs_tui.engine.tools import ExecCommandTools

    call = {"session_id": args.id, "yield_time_ms": args.wait_ms or 0}
    result = _checked("poll", await ExecCommandTools(jm).write_stdin(call))
    return _show(args, jm, result, EXIT_OK)


def project_root(cwd: str) -> str:
    """The project root the registry is keyed by (the registry helper's rule), else `cwd`."""
    try:
        from jobs_tui.engine.paths import project_root as find_root  # type: ignore[attr-defined]
    except ImportError:  # an engine without project roots: the directory itself
        return os.path.abspath(cwd)
    return str(find_root(cwd))


def config_verb(args: argparse.Namespace) -> int:
    from jobs_tui.engine.config import Config, resolve_registry_dir, write_defaults

    if args.action == "init":
        try:
            path = write_defaults(args.path, force=args.force)
        except FileExistsError as exc:
            raise VerbError(
                f"{exc}; pass --force to overwrite", EXIT_ERROR, field="--path"
            ) from exc
        return emit(args, {"path": str(path)}, f"wrote {path}", action="config init")
    config = Config.load(args.path)
    registry = resolve_registry_dir(".", None, config, args.registry_dir)
    root = project_root(".")
    details = {
        "source": config.source,
        "config": config.to_table(),
        "registryDir": str(registry),
        "projectRoot": root,
        "warnings": config.warnings,
    }
    import tomli_w

    lines = [f"# {config.source or 'no config file: defaults'}", f"# project root: {root}"]
    lines += [f"# registry dir: {registry}"]
    lines += [f"# warning: {w}" for w in config.warnings]
    lines.append(tomli_w.dumps({"job": config.to_table()}).rstrip())
    return emit(args, details, lines, action="config show")


def schema_verb(args: argparse.Namespace) -> int:
    """The vocabularies' input schemas and, as `cli`, the output schemas of `--json`."""
    from jobs_tui.engine.tools.schemas import all_schemas

    from .outschema import cli_schemas

    schemas: dict[str, Any] = {**all_schemas(), "cli": cli_schemas()}
    if args.name:
        flat = {name: s for family in all_schemas().values() for name, s in family.items()}
        flat.update({f"cli.{name}": s for name, s in schemas["cli"].items()})
        picked = schemas.get(args.name) or flat.get(args.name)
        if picked is None:
            families = ", ".join(schemas)
            message = (
                f"no schema named {quote(args.name)}; name a family ({families}), "
                "a tool (write_stdin, exec, …) or cli.VERB (cli.wait, cli.error)"
            )
            raise VerbError(message, EXIT_USAGE, field="NAME")
        schemas = picked
    if args.json:
        return emit(args, {"name": args.name, "schemas": schemas}, "")
    printing.line(json.dumps(schemas, indent=2, ensure_ascii=False))
    return EXIT_OK
