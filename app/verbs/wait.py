"""`wait ID... [--any] [--until REGEX] [--from-start] [--port N] [--ready] [--timeout-ms N]`
and its exit status.

One typed call (`JobManager.wait_many`), which wakes on the jobs' own events and reads
only new output. The exit status (README, "Command line"; `jobs-tui wait --help`):
0 when a line matched `--until`, a job's tree listens on `--port` or (`--ready`) the
declared jobs' probes passed; 1 for `--ready` when one was not ready within its limit or
ended without being ready; 124 when the timeout passed first; otherwise the ended
jobs' codes: one job, its own code (128+N after signal N, 125 if none was recorded);
`--any`, the code of the first job to end; several jobs, 0 if every one succeeded, else
the first failing code in the order asked.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.calls.arguments import check

from .. import printing
from ..errors import EXIT_ERROR, EXIT_NO_CODE, EXIT_OK, EXIT_TIMEOUT
from ..jsonout import emit_result
from . import human

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.records.model import JobRecord

DEFAULT_WAIT_MS = 30_000


def job_code(record: JobRecord) -> int:
    """The shell's code of an ended job: its exit code, 128+N after signal N, else 125."""
    from jobs_tui.engine.registry.outcomes import exit_status_code

    code = exit_status_code(record)
    return EXIT_NO_CODE if code is None else code


def first_to_end(jobs: list[JobRecord]) -> JobRecord | None:
    """The ended job that ended first (ties: the one asked first)."""
    ended = [(r.finished_at or 0, at, r) for at, r in enumerate(jobs) if not r.running]
    return min(ended, key=lambda e: e[:2])[2] if ended else None


def wait_code(reason: str, jobs: list[JobRecord], mode: str) -> int:
    """The exit status of a wait that ended for `reason` ("match", "timeout", "finished")."""
    if reason in ("match", "port", "ready"):
        return EXIT_OK
    if reason == "not-ready":
        return EXIT_ERROR
    if reason == "timeout":
        return EXIT_TIMEOUT
    if mode == "any":
        first = first_to_end(jobs)
        return EXIT_TIMEOUT if first is None else job_code(first)
    for record in jobs:
        code = EXIT_TIMEOUT if record.running else job_code(record)
        if code != EXIT_OK:
            return code
    return EXIT_OK


async def wait(jm: JobManager, args: argparse.Namespace) -> int:
    from jobs_tui.engine.calls.callschema import WAIT_TIMEOUT

    ids: list[str] = list(dict.fromkeys(args.ids))  # an id asked twice is waited for once
    for job_id in ids:
        check("id", job_id)
    timeout_ms = check("timeoutMs", args.timeout_ms, **WAIT_TIMEOUT)
    timeout_ms = DEFAULT_WAIT_MS if timeout_ms is None else timeout_ms
    for job_id in ids:
        jm.get(job_id)  # an unknown id: exit 3 before any wait
    mode = "any" if args.any else "all"
    scanner = None
    if args.until is not None and any(jm.get(job_id).tty for job_id in ids):
        from ..tty.scan import screen_scanner

        scanner = screen_scanner(jm)  # a terminal job's rows, not its bytes' lines
    result = await jm.wait_many(
        ids,
        mode=mode,
        until=args.until,
        from_start=args.from_start,
        timeout_ms=timeout_ms,
        screen_scanner=scanner,
        port=getattr(args, "port", None),
        ready=bool(getattr(args, "ready", False)),
    )
    code = wait_code(result.reason, result.jobs, mode)
    if getattr(args, "ready", False) and result.reason == "finished":
        code = EXIT_ERROR  # it ended without being ready: not what was waited for
    about = _about(result, mode)
    details: dict[str, Any] = {
        "job": about.to_json(),
        "jobs": [r.to_json() for r in result.jobs],
        "reason": result.reason,
        "timedOut": result.reason == "timeout",
    }
    if result.match is not None:
        details["match"] = {
            "jobId": result.match.job_id,
            "line": result.match.line,
            "offset": result.match.offset,
        }
    if result.listening is not None:
        details["listening"] = {"jobId": result.listening, "port": args.port}
    if args.json:
        return emit_result(args, details, "", code)
    now = human.now_ms()
    if result.listening is not None:  # the job on stderr, as a match's is
        printing.err(human.outcome_line(about, now) + f" · listening :{args.port}")
        return code
    if result.reason in ("ready", "not-ready"):
        lines = [human.outcome_line(r, now) + _phase(r) for r in result.jobs]
        return emit_result(args, details, lines, code)
    if result.match is not None:  # the line on stdout (for a script), the job on stderr
        printing.line(human.safe(result.match.line, 4000))
        printing.err(human.outcome_line(about, now) + " · matched")
        return code
    emit_result(args, details, [human.outcome_line(r, now) for r in result.jobs], code)
    if result.reason == "timeout":
        running = [human.safe(r.id, 20) for r in result.jobs if r.running]
        verb = "is" if len(running) == 1 else "are"
        which = ", ".join(running)
        printing.err(f"jobs-tui: {which} {verb} still running after {timeout_ms / 1000:g}s")
    return code


def _phase(record: JobRecord) -> str:
    """` · ready`, ` · not ready: port 8765 closed`: where a declared job's probe stands."""
    if record.phase == "ready":
        return " · ready"
    if record.phase == "not-ready":
        detail = human.safe(record.phase_detail or "", 200)
        return " · not ready" + (f": {detail}" if detail else "")
    return f" · {human.safe(record.phase, 40)}" if record.phase and record.running else ""


def _about(result: Any, mode: str) -> JobRecord:
    """The job the outcome is about: the one that matched, the first to end (--any), the
    first that failed (all), else the first asked."""
    jobs: list[JobRecord] = result.jobs
    if result.match is not None:
        return next((r for r in jobs if r.id == result.match.job_id), jobs[0])
    if result.listening is not None:
        return next((r for r in jobs if r.id == result.listening), jobs[0])
    if mode == "any":
        return first_to_end(jobs) or jobs[0]
    failed = [r for r in jobs if not r.running and job_code(r) != EXIT_OK]
    return failed[0] if failed else jobs[0]
