"""`exec` and `poll` (the exec_command vocabulary from the shell), `config` and `schema`.

`exec` and `poll` print the job's output on stdout and the outcome line on stderr,
so `jobs-tui exec -- cmd | grep x` sees only the command's output.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from . import human
from .verbs import EXIT_ERROR, EXIT_NO_CODE, EXIT_OK, EXIT_TIMEOUT, VerbError, emit

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager

CODES = {"invalid": 2, "unknown-id": 3, "refused": 4}


def _checked(result: dict[str, Any]) -> dict[str, Any]:
    if result.get("status") == "error":
        raise VerbError(result["error"], CODES.get(result.get("code", ""), EXIT_ERROR), result)
    return result


def _show(args: argparse.Namespace, jm: JobManager, result: dict[str, Any]) -> None:
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    output = result.get("output", "")
    if output:
        sys.stdout.write(output if output.endswith("\n") else output + "\n")
        sys.stdout.flush()
    record = jm.get(result["job_id"])
    print(human.exec_status_line(result, record), file=sys.stderr)
    if result.get("note"):
        print(f"note: {result['note']}", file=sys.stderr)


async def exec_verb(jm: JobManager, args: argparse.Namespace) -> int:
    """The command's own exit code if it finished within the yield, else 124 (still running)."""
    from jobs_tui.engine.tools import ExecCommandTools
    from jobs_tui.engine.tools.common import exit_status_code

    call: dict[str, Any] = {"cmd": args.words, "tty": args.tty, "workdir": args.cwd}
    if args.yield_ms is not None:
        call["yield_time_ms"] = args.yield_ms
    if args.timeout_ms is not None:
        call["timeout_seconds"] = args.timeout_ms / 1000
    result = _checked(await ExecCommandTools(jm).exec_command(call))
    _show(args, jm, result)
    if result["running"]:
        return EXIT_TIMEOUT
    code = exit_status_code(jm.get(result["job_id"]))
    return EXIT_NO_CODE if code is None else code


async def poll(jm: JobManager, args: argparse.Namespace) -> int:
    """Output this session has not read yet, then the job's status."""
    from jobs_tui.engine.tools import ExecCommandTools

    call = {"session_id": args.id, "yield_time_ms": args.wait_ms or 0}
    result = _checked(await ExecCommandTools(jm).write_stdin(call))
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
