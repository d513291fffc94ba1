"""`list` and `status`: their output, and the quick way to it (a glance, no event loop).

Most calls an agent makes are these two, on a session with nothing to do. They read
the registry through `engine.session.glance` and print, without importing asyncio or opening
a JobManager; when the glance says the session has something to do (a job ended, a
dead session to adopt, a finish to mark reported, an id it does not know), the verb
runs on an open session instead and prints the same thing.
"""

from __future__ import annotations

import argparse

from .. import printing
from ..jsonout import emit_result
from . import human

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any

    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.engine.session.glance import Glance


def list_result(
    args: argparse.Namespace,
    records: list[JobRecord],
    session_id: str,
    problems: list[str],
    pruned: int,
    max_jobs: int,
    paths: RegistryPaths,
) -> int:
    """The rows (or `jobs`), the pruned note, and each problem on stderr (once)."""
    problems = list(dict.fromkeys([*getattr(args, "glanced_problems", []), *problems]))
    records = unwritten_shown(paths, filtered(args, records, session_id))
    if args.json:  # the rows show no last line: only JSON pays for rendering one
        records = tty_shown(paths, records)
    jobs = [r.to_json() for r in records]
    if args.json:  # what each running job uses (the rows stay as cheap as they were)
        from .usage import sample, with_usage

        found = sample(records)
        jobs = [with_usage(job, found.get(r.id)) for job, r in zip(jobs, records, strict=True)]
    details: dict[str, Any] = {
        "jobs": jobs,
        "problems": problems,
        "all": bool(args.all),
        "pruned": int(pruned),
        "maxJobs": max_jobs,
    }
    lines = human.list_lines(records, session_id)
    lines += human.pruned_lines(details["pruned"], max_jobs)
    code = emit_result(args, details, lines)
    if not args.json:  # on stderr: stdout stays the rows
        for problem in problems:
            printing.err(f"problem: {human.safe(problem, 1000)}")
    return code


def filtered(
    args: argparse.Namespace, records: list[JobRecord], session_id: str
) -> list[JobRecord]:
    """`list --running --mine --label GLOB` (each narrows; fnmatch's * ? [...], case as typed)."""
    if getattr(args, "running", False):
        records = [r for r in records if r.running]
    if getattr(args, "mine", False):
        records = [r for r in records if r.session_id == session_id]
    glob = getattr(args, "label", None)
    if glob is not None:
        from fnmatch import fnmatchcase

        records = [r for r in records if fnmatchcase(r.label, glob)]
    return records


def unwritten_shown(paths: RegistryPaths, records: list[JobRecord]) -> list[JobRecord]:
    """A job whose command ended while its shim could not write its exit code (a full
    disk) as its shim says it ended (engine/session/unwritten.py), not as running."""
    if not any(r.running for r in records):
        return records
    from jobs_tui.engine.session.unwritten import shown

    return shown(paths, records)


def tty_shown(paths: RegistryPaths, records: list[JobRecord]) -> list[JobRecord]:
    """A terminal job's last line as its terminal shows it (`tty.text`), not its bytes."""
    if not any(r.tty for r in records):
        return records
    from ..tty.text import shown_last_lines

    return shown_last_lines(paths, records)


def status_result(args: argparse.Namespace, record: JobRecord, paths: RegistryPaths) -> int:
    """The outcome line, and for a running job what its tree uses (`cpu 12% · mem 85 MiB ·
    3 procs · listening :5173`; in --json the fields `cpuPercent`, `rssBytes`, ...)."""
    from .usage import sample, with_usage

    record = unwritten_shown(paths, [record])[0]
    if args.json:  # (the human line shows no last line)
        record = tty_shown(paths, [record])[0]
    usage = sample([record]).get(record.id) if record.running else None
    lines = [human.status_line(record, human.now_ms())]
    ended = human.ended_line(record)
    if ended:
        lines.append(ended)
    if usage is not None:
        from jobs_tui.engine.records.format import usage_line

        lines.append(usage_line(usage))
    return emit_result(args, {"job": with_usage(record.to_json(), usage)}, lines)


def glance(args: argparse.Namespace) -> int | None:
    """`list` or `status` from a glance at the registry; None: run it on an open session.

    A registry directory that cannot be used is the same VerbError as on the long way.
    """
    from jobs_tui.engine.session.glance import Glance

    from ..session import session_name

    view = Glance(".", session_name(args.session), registry_dir_flag=args.registry_dir)
    try:
        return _glance(args, view)
    finally:
        view.close()  # the session the caller may open next holds the directory itself


def _glance(args: argparse.Namespace, view: Glance) -> int | None:
    from ..session import unusable_registry

    try:
        ready = view.load()
    except Exception as exc:
        from jobs_tui.engine.records.results import JobError

        if isinstance(exc, OSError) or (isinstance(exc, JobError) and exc.field == "registry_dir"):
            raise unusable_registry(exc, str(view.dir), args.registry_dir) from exc
        raise
    if not ready:
        # What the glance found (a file it quarantined) is not found again: pass it on.
        args.glanced_problems = view.take_problems()
        return None
    if args.verb == "list":
        problems = view.take_problems()
        jobs = view.jobs(args.all)
        config = view.config
        return list_result(
            args, jobs, view.session_id, problems, view.pruned, config.max_jobs, view.paths
        )
    record = view.get(args.id)
    if record is None or (view.is_own(record) and not record.running and not record.seen):
        return None  # unknown here (the session looks again), or a finish to mark reported
    return status_result(args, record, view.paths)
