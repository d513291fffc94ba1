"""How declared jobs (issue 26) read on the list: their states and their detail rows.

Pure functions over records and the project's `Stack`, no widget: the list's rows, the
detail pane and the tests read them. A declared job not started yet has no record; it
is listed as a `NotStarted` row (a record of its own kind, never a job: no id, no log),
so the list's cursor, order and filter treat it as any row while every verb that acts
on a job sees no job selected (`JobsScreen.selected`).

Everything a record or a file says is sanitized here: a peer's registry file and a
shim's probe detail are as hostile as job output.
"""

from __future__ import annotations

from dataclasses import dataclass

from jobs_tui.engine.declared.model import DeclaredJob, Probe, Stack
from jobs_tui.engine.records.format import outcome
from jobs_tui.engine.records.model import EndReason, JobRecord, JobStatus
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.engine.session.declaring import DownResult, UpResult

NOT_STARTED_GLYPH = "·"
NOT_STARTED = "not started"
NAME_CELLS = 24  # a not-started row's name in the id column: longer ones are cut


@dataclass
class NotStarted(JobRecord):
    """A declared job of the file with no job yet: a row of the list, not a job.

    Its `id` is the declared name (a name never reads as a job id), so the list's cursor
    follows it as it follows a job; it never runs, never finishes and has no log."""

    @property
    def number(self) -> int:
        return 0


def not_started(job: DeclaredJob, stack: Stack, session_id: str) -> NotStarted:
    """The row of a declared job that has no job yet (`session_id`: the screen's, so the
    row is not tagged as another session's)."""
    spec = job.to_spec(stack.root)
    return NotStarted(
        id=job.name,
        label=job.name,
        command=job.command,
        cwd=spec["cwd"] or stack.root,
        pid=None,
        status=JobStatus.UNKNOWN,
        exit_code=None,
        signal=None,
        started_at=0,
        finished_at=0,
        log_path="",
        detached=True,
        wake=False,
        session_id=session_id,
        tty=job.tty,
        declared_name=job.name,
        max_restarts=job.max_restarts,
    )


def is_not_started(record: JobRecord | None) -> bool:
    return isinstance(record, NotStarted)


def with_declared(
    records: list[JobRecord], stack: Stack | None, session_id: str
) -> list[JobRecord]:
    """The list's rows: running jobs, then the file's declared jobs that have no job yet
    (file order), then finished jobs. A name with a job is that job's row."""
    if stack is None or not stack.jobs:
        return records
    named = {r.declared_name for r in records if r.declared_name}
    pending: list[JobRecord] = [
        not_started(job, stack, session_id) for name, job in stack.jobs.items() if name not in named
    ]
    if not pending:
        return records
    running = [r for r in records if r.running]
    return running + pending + [r for r in records if not r.running]


def declared_state(record: JobRecord) -> str | None:
    """A declared job's state as its row says it (None for a job that is not declared):
    `not started`, `waiting for db`, `starting`, `ready`, `not ready`, `restarting 2/5`,
    `crash-loop · exit 1`, `dependency failed · db: exit 1`, else its outcome (`exit 0`)."""
    if isinstance(record, NotStarted):
        return NOT_STARTED
    if record.declared_name is None and record.phase is None:
        return None
    if record.running:
        return running_state(record)
    if record.end_reason == EndReason.CRASH_LOOP:
        return f"crash-loop · {exit_words(record)}"
    if record.end_reason == EndReason.DEPENDENCY:
        why = sanitize_line(record.phase_detail or "", 120)
        return "dependency failed" + (f" · {why}" if why else "")
    return finished_state(record)


def running_state(record: JobRecord) -> str:
    phase = record.phase
    if phase == "waiting":
        waits = sanitize_line(record.waiting_for or "", 120)
        return f"waiting for {waits}" if waits else "waiting"
    if phase == "ready":
        return "ready"
    if phase == "not-ready":
        return "not ready"
    if phase == "restarting":
        count = record.restarts or 0
        limit = f"/{record.max_restarts}" if record.max_restarts is not None else ""
        return f"restarting {count}{limit}"
    return "starting"  # running, not ready yet (or no phase heard of yet)


def exit_words(record: JobRecord) -> str:
    """`exit 1`, `SIGSEGV`: how the job's last command ended."""
    if record.exit_code is not None:
        return f"exit {record.exit_code}"
    if record.signal:
        return sanitize_line(record.signal, 20)
    if record.last_exit is not None:
        return f"exit {record.last_exit}"
    return "no exit status"


def finished_state(record: JobRecord) -> str:
    """The usual outcome without its glyph and time: `exit 0`, `killed · SIGTERM`."""
    text = sanitize_line(outcome(record, record.ended_at()), 200)
    _mark, _, rest = text.partition(" ")
    head, sep, _took = rest.rpartition(" · ")
    return head if sep else rest


def row_label(record: JobRecord, label: str) -> str:
    """What a row's label column shows: the label, and a declared job's state after it.
    A not-started row's name is in the id column: its label column says only the state."""
    state = declared_state(record)
    if state is None:
        return label
    if isinstance(record, NotStarted):
        return state
    return f"{label}  {state}"


# -- the detail pane's rows --------------------------------------------------------------
def probe_text(probe: Probe | None) -> str:
    """`log "ready to accept connections"`, `port 8765`, `http http://…/health`,
    `exec "pg_isready"`; with its period and limit when they are not the defaults."""
    if probe is None:
        return "none (ready once started)"
    target = sanitize_line(str(probe.target), 300)
    if probe.kind in ("log", "exec"):
        target = f'"{target}"'
    text = f"{probe.kind} {target}"
    if probe.kind != "log":
        text += f" · every {probe.period_ms} ms"
    if probe.limit_ms is not None:
        text += f" · not ready after {probe.limit_ms} ms"
    return text


def restart_text(job: DeclaredJob | None, record: JobRecord) -> str:
    """`on-failure · 2 of 5 restarts · 1000 ms apart · last exit 1`."""
    count = 0 if isinstance(record, NotStarted) else record.restarts or 0
    limit = job.max_restarts if job is not None else record.max_restarts
    of = f" of {limit}" if limit is not None else ""
    counted = f"{count}{of} restart" + ("" if count == 1 and not of else "s")
    if job is None:  # the file no longer declares it: what the record knows
        parts = [counted]
    elif job.restart == "no":
        parts = ["no"] + ([counted] if count else [])
    else:
        parts = [job.restart, counted, f"{job.backoff_ms} ms apart"]
    if record.last_exit is not None and count:
        parts.append(f"last exit {record.last_exit}")
    return " · ".join(parts)


def depends_text(job: DeclaredJob, states: dict[str, str]) -> str:
    """`db ready (is starting) · migrate succeeded (is not started)`: each dependency, the
    state it is waited for in, and its own state now."""
    parts = []
    for name, until in job.depends_on.items():
        now = states.get(name)
        parts.append(f"{name} {until}" + (f" (is {now})" if now else ""))
    return " · ".join(parts)


def detail_rows(
    record: JobRecord, job: DeclaredJob | None, states: dict[str, str]
) -> list[tuple[str, str]]:
    """The detail pane's rows for a declared job: its state, the probe, the probe's last
    result, the restart policy and count, the dependencies (`states`: each declared
    name's state now). Empty for a job that is not declared."""
    state = declared_state(record)
    if state is None:
        return []
    rows = [("state", state)]
    if job is not None:
        rows.append(("probe", probe_text(job.ready)))
    if not isinstance(record, NotStarted):
        result = sanitize_line(record.phase_detail or "", 500)
        rows.append(("result", result or "nothing yet"))
    rows.append(("restart", restart_text(job, record)))
    if job is not None and job.depends_on:
        rows.append(("depends", depends_text(job, states)))
    return rows


def name_states(records: list[JobRecord]) -> dict[str, str]:
    """Each declared name's state as the list shows it (its row's record)."""
    states: dict[str, str] = {}
    for record in records:
        name = record.declared_name
        state = declared_state(record)
        if name and state is not None and name not in states:
            states[name] = state
    return states


# -- what `up` and `down` did, as a notification ------------------------------------------
def _named(record: JobRecord) -> str:
    name = sanitize_line(record.declared_name or "", 64)
    return f"{name} ({record.id})" if name else record.id


def up_note(result: UpResult) -> tuple[str, bool]:
    """`Started db (j4), api (j5) · already running: cache (j2) · not started: worker
    (db did not start)`, and whether something failed to start."""
    parts = []
    if result.started:
        parts.append("Started " + ", ".join(_named(r) for r in result.started))
    if result.running:
        parts.append("already running: " + ", ".join(_named(r) for r in result.running))
    if result.failed:
        failed = (f"{sanitize_line(n, 64)} ({sanitize_line(why, 200)})" for n, why in result.failed)
        parts.append("not started: " + ", ".join(failed))
    if not parts:
        return "Nothing to start.", False
    text = " · ".join(parts)
    return text[0].upper() + text[1:], bool(result.failed)


def down_note(result: DownResult) -> str:
    """`Stopped worker (j6), api (j5), db (j4), dependents first · not running: cache`."""
    parts = []
    if result.stopped:
        parts.append("Stopped " + ", ".join(_named(k.job) for k in result.stopped))
        if len(result.stopped) > 1:
            parts[-1] += ", dependents first"
    if result.not_running:
        parts.append("not running: " + ", ".join(sanitize_line(n, 64) for n in result.not_running))
    if not result.stopped:
        return "Nothing stopped: no declared job was running."
    return " · ".join(parts)
