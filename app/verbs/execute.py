"""`exec` and `poll` (the exec_command vocabulary from the shell), `config` and `schema`.

`exec` and `poll` print the job's output on stdout and the outcome line on stderr,
so `jobs-tui exec -- cmd | grep x` sees only the command's output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import printing
from ..errors import (
    EXIT_ERROR,
    EXIT_NO_CODE,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_USAGE,
    VerbError,
    quote,
)

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.logs.unread import Unread
    from jobs_tui.engine.records.model import JobRecord

OUTPUT_CAP = 32 * 1024  # bytes of output one call prints at most; the rest stays unread
EXEC_TIMEOUT_MS = 1_800_000  # an exec's lifetime unless --timeout-ms (30 min)
EXEC_YIELD_MS = 10_000  # how long an exec waits for its command unless --yield-ms
POLL_MIN_WAIT_MS = 5_000  # a poll that waits waits this long at least (write_stdin's rule)


@dataclass
class Collected:
    """What an exec or a poll saw: the job now, and the output this session had not read."""

    record: JobRecord
    unread: Unread

    @property
    def running(self) -> bool:
        return self.record.running


def _notes_before(seen: Collected) -> list[str]:
    """What the reader must know before the output: where it starts after a rotation."""
    skipped = seen.unread.skipped
    if not skipped:
        return []
    return [
        f"note: {skipped} bytes rotated out of the log before this session read them; "
        "the output starts at the oldest byte kept, possibly mid-line"
    ]


def _notes_after(seen: Collected) -> list[str]:
    unread = seen.unread.remaining
    if not unread:
        return []
    return [f"note: {unread} more bytes are unread: `jobs-tui poll {seen.record.id}` for more"]


SUPERVISION = {
    "state": "state",
    "stop_reason": "stopReason",
    "deadline_utc": "deadlineUtc",
    "quiet_ms": "quietMs",
    "log_bytes": "logBytes",
    "log_truncated": "logTruncated",
    "cleanup": "cleanup",
}


def translated(jm: JobManager, seen: Collected) -> dict[str, Any]:
    """The call's result in the command line's words: the job as a registry record,
    camelCase, and `sessionId` left to mean the session."""
    from jobs_tui.engine.registry.outcomes import failure, supervision

    record, unread = seen.record, seen.unread
    out: dict[str, Any] = {
        "job": record.to_json(),
        "output": unread.text,
        "running": record.running,
    }
    if unread.remaining:
        out["outputTruncated"] = True
        out["unreadBytes"] = unread.remaining
    if unread.skipped:
        out["outputSkippedBytes"] = unread.skipped
    why = None if record.running else failure(record)
    if why:
        out["failure"] = why
    notes = [n.removeprefix("note: ") for n in _notes_before(seen) + _notes_after(seen)]
    if notes:
        out["note"] = "; ".join(notes)
    facts = supervision(jm.paths, record, log_end=unread.end)
    out["supervision"] = {ours: facts.get(theirs) for theirs, ours in SUPERVISION.items()}
    return out


def _show(args: argparse.Namespace, jm: JobManager, seen: Collected, code: int) -> int:
    from .. import jsonout
    from . import human

    if args.json:
        jsonout.emit(args.verb, code, args.session, translated(jm, seen))
        return code
    for note in _notes_before(seen):
        printing.err(note)
    output = seen.unread.text
    if output:
        printing.write(output if output.endswith("\n") else output + "\n")
    printing.err(human.exec_status_line(seen.running, seen.record))
    for note in _notes_after(seen):
        printing.err(note)
    return code


async def collect(jm: JobManager, record: JobRecord) -> Collected:
    """The session's unread output of the job (at most OUTPUT_CAP bytes; the cursor moves
    past it). A finished job whose last byte went out is marked reported."""
    from jobs_tui.engine.logs.unread import UnreadCursors

    unread = await UnreadCursors.shared(jm).read(record.id, OUTPUT_CAP)
    if not record.running and not unread.remaining:
        record = await jm.status(record.id)
    if record.tty:  # a terminal job's bytes as the rows its terminal shows (tty.text)
        import dataclasses

        from jobs_tui.engine.session.ttyoutput import screen_text

        from ..tty.text import screen_delta

        text = await screen_text(jm, record, unread, screen_delta)
        unread = dataclasses.replace(unread, text=text)
    return Collected(record, unread)


def _exit_code(seen: Collected) -> int:
    """The command's own exit code (128+N for signal N), 124 still running, 125 unknown."""
    from jobs_tui.engine.registry.outcomes import exit_status_code

    if seen.running:
        return EXIT_TIMEOUT
    status_code = exit_status_code(seen.record)
    return EXIT_NO_CODE if status_code is None else status_code


def _exec_timeout_ms(args: argparse.Namespace) -> int:
    return EXEC_TIMEOUT_MS if args.timeout_ms is None else args.timeout_ms


def _yield_ms(args: argparse.Namespace) -> int:
    return EXEC_YIELD_MS if args.yield_ms is None else args.yield_ms


async def exec_verb(jm: JobManager, args: argparse.Namespace) -> int:
    """The command's own exit code if it finished within the yield, else 124 (still running).

    A job `quick_exec` started and handed over (`args.started`) is waited for, not started."""
    started = getattr(args, "started", None)
    if started is not None:
        record = jm.get(started)
    else:
        record = await jm.start(
            args.words,
            stdin=True,
            timeout_ms=_exec_timeout_ms(args),
            wake=False,
            cwd=args.cwd,
            tty=bool(args.tty),
            env=args.env,
        )
    record = await jm.wait(record.id, _yield_ms(args), report=False)
    seen = await collect(jm, record)
    return _show(args, jm, seen, _exit_code(seen))


def _printing_imports() -> None:
    """What `_show` prints with, loaded while the job's shim starts."""
    from .. import jsonout  # noqa: F401
    from . import human  # noqa: F401


def quick_exec(args: argparse.Namespace) -> int | None:
    """`exec` without an event loop (`engine/session/quickexec.py`), when the session has nothing
    to do; None: run it on an open session (with `args.started` set if the job was started
    here and handed over). The same job, output, registry writes and exit code."""
    if not sys.platform.startswith("linux"):
        return None
    from jobs_tui.engine.session.quickexec import Handover, QuickExec

    from ..session import session_name, unusable_registry

    quick = QuickExec(session_name(args.session), args.registry_dir)
    try:
        ready = quick.open()
    except Exception as exc:
        from jobs_tui.engine.records.results import JobError

        if isinstance(exc, OSError) or (isinstance(exc, JobError) and exc.field == "registry_dir"):
            raise unusable_registry(exc, str(quick.dir), args.registry_dir) from exc
        raise
    if not ready:
        return None
    record = quick.start(
        args.words,
        timeout_ms=_exec_timeout_ms(args),
        cwd=args.cwd,
        tty=bool(args.tty),
        env=args.env,
        meanwhile=_printing_imports,
    )
    try:
        try:
            record = quick.wait(record, _yield_ms(args))
        except Handover:
            args.started = record.id
            return None
        unread = quick.read_unread(record, OUTPUT_CAP)
        if not record.running and not unread.remaining:
            quick.mark_seen(record)
        if record.tty:  # a terminal job's bytes as the rows its terminal shows (tty.text)
            import dataclasses

            from jobs_tui.engine.session.ttyoutput import screen_text_now

            from ..tty.text import screen_delta

            text = screen_text_now(quick.paths, record, unread, screen_delta)
            unread = dataclasses.replace(unread, text=text)
        seen = Collected(record, unread)
        return _show(args, quick, seen, _exit_code(seen))  # type: ignore[arg-type]
    finally:
        quick.close()  # the record as it is now, whatever happened (a hand-over, Ctrl-C)


async def poll(jm: JobManager, args: argparse.Namespace) -> int:
    """Output this session has not read yet, then the job's status: at once, or once the job
    ended or --wait-ms passed (at least 5 s: an empty read is no busy poll)."""
    from jobs_tui.engine.calls.arguments import check

    job_id = args.id if not args.id.isdigit() else f"j{args.id}"  # `poll 3` is j3
    check("id", job_id)
    record = jm.get(job_id)
    job_id = record.id  # a declared name: its current job, from here on
    if args.wait_ms:
        wait_ms = max(args.wait_ms, POLL_MIN_WAIT_MS)
        record = await jm.wait(job_id, wait_ms, report=False)
    return _show(args, jm, await collect(jm, record), EXIT_OK)


def project_root(cwd: str) -> str:
    """The project root the registry is keyed by (the registry helper's rule), else `cwd`."""
    try:
        from jobs_tui.engine.registry.paths import project_root as find_root  # type: ignore[attr-defined]
    except ImportError:  # an engine without project roots: the directory itself
        return os.path.abspath(cwd)
    return str(find_root(cwd))


def config_verb(args: argparse.Namespace) -> int:
    from jobs_tui.engine.config import Config, resolve_registry_dir, write_defaults

    from ..jsonout import emit_result

    if args.action in ("check", "import"):
        from .declared import config_check, config_import

        return config_check(args) if args.action == "check" else config_import(args)
    if args.file is not None:
        raise VerbError(
            f"config {args.action} takes no FILE (--path names the config file)",
            EXIT_USAGE,
            field="FILE",
        )
    if args.action == "init":
        try:
            path = write_defaults(args.path, force=args.force)
        except FileExistsError as exc:
            raise VerbError(
                f"{exc}; pass --force to overwrite", EXIT_ERROR, field="--path"
            ) from exc
        return emit_result(args, {"path": str(path)}, f"wrote {path}", action="config init")
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
    return emit_result(args, details, lines, action="config show")


def schema_verb(args: argparse.Namespace) -> int:
    """The vocabularies' input schemas, as `cli` the output schemas of `--json`, and as
    `config` the schema of jobs-tui.toml (issue 26)."""
    from jobs_tui.engine.calls.toolschemas import all_schemas
    from jobs_tui.engine.declared.schema import config_schema

    from ..jsonout import emit_result
    from .outschema import cli_schemas

    schemas: dict[str, Any] = {**all_schemas(), "cli": cli_schemas(), "config": config_schema()}
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
        return emit_result(args, {"name": args.name, "schemas": schemas}, "")
    printing.line(json.dumps(schemas, indent=2, ensure_ascii=False))
    return EXIT_OK
