"""`exec` and `poll` (the exec_command vocabulary from the shell), `config` and `schema`.

`exec` and `poll` print the job's output on stdout and the outcome line on stderr,
so `jobs-tui exec -- cmd | grep x` sees only the command's output.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from . import human, printing
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


def _show(args: argparse.Namespace, jm: JobManager, result: dict[str, Any]) -> None:
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    for note in _notes_before(result):
        printing.err(note)
    output = result.get("output", "")
    if output:
        printing.write(output if output.endswith("\n") else output + "\n")
    record = jm.get(result["job_id"])
    printing.err(human.exec_status_line(result, record))
    for note in _notes_after(result, record):
        printing.err(note)


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
    _show(args, jm, result)
    if result["running"]:
        return EXIT_TIMEOUT
    code = exit_status_code(jm.get(result["job_id"]))
    return EXIT_NO_CODE if code is None else code


async def poll(jm: JobManager, args: argparse.Namespace) -> int:
    """Output this session has not read yet, then the job's status."""
    from jobs_tui.engine.tools import ExecCommandTools

    call = {"session_id": args.id, "yield_time_ms": args.wait_ms or 0}
    result = _checked("poll", await ExecCommandTools(jm).write_stdin(call))
    _show(args, jm, result)
    return EXIT_OK


def config_verb(args: argparse.Namespace) -> int:
    from jobs_tui.engine.config import Config, resolve_registry_dir, write_defaults

    if args.action == "init":
        try:
            path = write_defaults(args.path, force=args.force)
        except FileExistsError as exc:
            raise VerbError(f"{exc}; pass --force to overwrite", EXIT_ERROR) from exc
        emit(args, {"action": "config init", "path": str(path)}, f"wrote {path}")
        return EXIT_OK
    config = Config.load(args.path)
    registry = resolve_registry_dir(".", None, config, args.registry_dir)
    details = {
        "action": "config show",
        "source": config.source,
        "config": config.to_table(),
        "registryDir": str(registry),
        "warnings": config.warnings,
    }
    import tomli_w

    lines = [f"# {config.source or 'no config file: defaults'}", f"# registry dir: {registry}"]
    lines += [f"# warning: {w}" for w in config.warnings]
    lines.append(tomli_w.dumps({"job": config.to_table()}).rstrip())
    emit(args, details, lines)
    return EXIT_OK


def schema_verb(args: argparse.Namespace) -> int:
    from jobs_tui.engine.tools.schemas import all_schemas

    schemas = all_schemas()
    if args.name:
        flat = {name: s for family in schemas.values() for name, s in family.items()}
        picked = schemas.get(args.name) or flat.get(args.name)
        if picked is None:
            names = ", ".join([*schemas, *flat])
            raise VerbError(f"no schema named {args.name!r}; one of: {names}", 2)
        schemas = picked
    print(json.dumps(schemas, indent=2, ensure_ascii=False))
    return EXIT_OK
