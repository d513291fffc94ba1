"""The list's verbs over the project's declared jobs (issue 26), each behind a y/N:
`s` starts the selected one (`up NAME`), `U` brings the file up, `D` brings it all
down; `d` on a running declared job is `down NAME` (its dependents stop first, none is
restarted), and `r` on a not-started row starts it.

Mixed into `JobsScreen` (it holds the stack, the selection and the source). What `up`
starts is detached: a declared stack lives on when the screen closes, until `D` or
`jobs-tui down`, as its rules do (each job's own supervisor keeps them). A source
without `up`/`down` (a read-only view) says so.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from jobs_tui.engine import JobError
from jobs_tui.engine.declared.model import Stack, UnknownDeclared
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.supervising import may_act
from jobs_tui.screens.widgets.words import plural

from .declared import detail_rows, down_note, is_not_started, name_states, up_note

if TYPE_CHECKING:
    from .screen import JobsScreen

    _Base = JobsScreen
else:
    _Base = object

NO_STACK = (
    "No declared jobs: the project has no jobs-tui.toml (nor process-compose.yaml, "
    "mprocs.yaml or a Procfile)."
)
LIVES_ON = "They keep running when this screen closes; D brings them down."


def file_name(stack: Stack) -> str:
    return sanitize_line(os.path.basename(stack.source), 80)


def listing(names: list[str], most: int = 8) -> str:
    shown = ", ".join(sanitize_line(n, 64) for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def running_names(records: list[JobRecord]) -> dict[str, JobRecord]:
    """Each declared name that has a running job, and that job."""
    return {r.declared_name: r for r in records if r.declared_name and r.running}


def declared_applies(
    action: str, row: JobRecord | None, stack: Stack | None, records: list[JobRecord]
) -> bool | None:
    """Whether the footer shows a declared verb (None: not one of them)."""
    running = running_names(records)
    if action == "declared_start":
        name = row.declared_name if row is not None else None
        return stack is not None and name in stack.jobs and name not in running
    if action == "up_all":
        return stack is not None and any(n not in running for n in stack.closure())
    if action == "down_all":
        return bool(running)
    return None


class Declaring(_Base):
    """`s`, `U`, `D`, and `d`/`r` where the selected row is a declared job; the stack's
    rows in the list and the detail pane."""

    _rows: list[JobRecord]

    def watch_stack(self) -> None:
        """The file read (again): its not-started rows come or go at once."""
        if self.is_mounted:
            self._show_rows(self._feed.records)

    def _declared_detail(self, record: JobRecord) -> tuple[tuple[str, str], ...]:
        """A declared job's rows: the file's declaration of it (if it still has it)."""
        name = record.declared_name
        if name is None:
            return ()
        job = self.stack.jobs.get(name) if self.stack is not None else None
        return tuple(detail_rows(record, job, name_states(self._rows)))

    def _follow_start(self, rows: list[JobRecord]) -> None:
        """The cursor on a not-started row whose name now has a job (whoever started
        it) moves to that job's row, not to the row that takes its place."""
        row = self.job_list.selected
        if not is_not_started(row) or row is None:
            return
        started = next((r for r in rows if r.declared_name == row.id), None)
        if started is not None and not is_not_started(started):
            self.job_list.cursor_id = started.id

    def _described(self, action: str) -> str | None:
        """`d` reads `Stop` on a running declared job: it is `down NAME`, not a kill."""
        row = self.job_list.selected
        if action == "kill" and row is not None and row.declared_name and row.running:
            return "Stop"
        return None

    def _declared_applies(self, action: str) -> bool | None:
        """Whether the footer shows `action` where declared jobs decide it (else None)."""
        row = self.job_list.selected
        if action == "restart" and is_not_started(row):
            return True  # it starts it
        return declared_applies(action, row, self.stack, self._feed.records)

    def _stack_or_say(self) -> Stack | None:
        if self.stack is None:
            self.notify(NO_STACK, severity="warning", markup=False)
        return self.stack

    def _theirs(self, records: list[JobRecord]) -> bool:
        """Whether `records` hold another session's job this screen may not act on (an
        agent's dock): said, and nothing is stopped."""
        theirs = [r for r in records if not may_act(self.source, r, self.supervise)]
        if theirs:
            named = listing([f"{r.declared_name} ({r.id})" for r in theirs], 4)
            self.notify(
                f"Not stopped: {named} {'is' if len(theirs) == 1 else 'are'} another "
                "session's; jobs-tui down stops them.",
                severity="warning",
                markup=False,
            )
        return bool(theirs)

    def _can(self, verb: str) -> bool:
        if callable(getattr(self.actor, verb, None)):
            return True
        self.notify(
            "This screen cannot bring declared jobs up or down (a read-only view).",
            severity="warning",
        )
        return False

    # -- s, U -----------------------------------------------------------------------
    def action_declared_start(self) -> None:
        stack = self._stack_or_say()
        row = self.selected_row
        if stack is None:
            return
        if row is None:
            self.notify("No job selected.", severity="warning")
            return
        name = row.declared_name
        if name is None:
            self.notify(
                f"{row.id} is not a declared job; s starts a job of {file_name(stack)} "
                "(r restarts this one).",
                markup=False,
            )
            return
        if name not in stack.jobs:
            self.notify(
                f"{sanitize_line(name, 64)} is no longer declared in {file_name(stack)}; "
                "r restarts its job.",
                markup=False,
            )
            return
        if row.running:
            self.notify(f"{sanitize_line(name, 64)} is already running ({row.id}).", markup=False)
            return
        self._ask_up(stack, [name])

    def action_up_all(self) -> None:
        stack = self._stack_or_say()
        if stack is not None:
            self._ask_up(stack, None)

    def _ask_up(self, stack: Stack, names: list[str] | None) -> None:
        """The y/N before `up`: what starts, in what order, and what is left as it runs."""
        if not self._can("up"):
            return
        try:
            order = stack.closure(names)
        except UnknownDeclared as exc:
            self.notify(sanitize_line(str(exc), 300), severity="error", markup=False)
            return
        running = running_names(self._feed.records)
        todo = [n for n in order if n not in running]
        kept = [n for n in order if n in running]
        if not todo:
            self.notify(f"Every declared job of {file_name(stack)} it names already runs.")
            return
        if names is None:
            question = f"Bring up {file_name(stack)} ({plural(len(todo), 'job')})?"
        else:
            named = listing(names)
            extra = [n for n in todo if n not in names]
            question = f"Start {named}" + (
                f" and {plural(len(extra), 'job')} it needs?" if extra else "?"
            )
        detail = (
            f"Starts {listing(todo)} in that order, each once its dependencies are as the "
            "file asks (started, ready or succeeded)"
        )
        if kept:
            detail += f"; {listing(kept)} already {'runs' if len(kept) == 1 else 'run'}"
        detail += f". {LIVES_ON}"
        title = "Up" if names is None else "Start"
        self._confirm(question, detail, title, lambda: self._up(stack, names))

    async def _up(self, stack: Stack, names: list[str] | None) -> None:
        try:
            result = await self.actor.up(stack, names, detached=True)  # type: ignore[attr-defined]
        except (JobError, UnknownDeclared, OSError) as exc:
            self.notify(f"Not started: {sanitize_line(str(exc), 300)}", severity="error")
            return
        text, failed = up_note(result)
        self.notify(text, severity="error" if failed else "information", markup=False)
        self.refresh_jobs(force=True)
        if names and result.started:  # the job asked for, not the first of its needs
            chosen = [r for r in result.started if r.declared_name in names] or result.started
            self.job_list.select(chosen[-1].id)
            self.selection = self.job_list.cursor_id

    def bring_up(self, names: list[str] | None = None) -> None:
        """`up` without a question (`jobs-tui up` opening the screen): in a worker; the
        jobs come up on the list, the result is a notification."""
        stack = self._stack_or_say()
        if stack is not None and self._can("up"):
            self._run(self._up(stack, names), "Up")

    # -- D, d -----------------------------------------------------------------------
    def action_down_all(self) -> None:
        if not self._can("down"):
            return
        running = running_names(self._feed.records)
        if not running:
            self.notify("No declared job runs; nothing to bring down.")
            return
        if self._theirs(list(running.values())):
            return
        stack = self.stack
        names = list(running)
        if stack is not None:  # dependents first, as down stops them
            order = [n for level in reversed(stack.levels()) for n in level]
            names.sort(key=lambda n: order.index(n) if n in order else -1)
        self._confirm(
            f"Bring down {plural(len(names), 'declared job')}?",
            f"Stops {listing(names)}, dependents first, each with its stop signal (then "
            "SIGKILL after its grace). A job brought down is never restarted.",
            "Down",
            lambda: self._down(None, stack),
        )

    def _declared_kill(self) -> bool:
        """`d` on a declared row: `down NAME` (y/N); True when it was one (handled here)."""
        row = self.selected_row
        if is_not_started(row):
            assert row is not None
            self.notify(f"{row.id} is not started; nothing to stop (s starts it).", markup=False)
            return True
        if row is None or row.declared_name is None or not row.running:
            return False
        if self.stopping(row) is not None or not may_act(self.source, row, self.supervise):
            return False  # SIGKILL now, or the refusal: the kill's own
        if not callable(getattr(self.actor, "down", None)):
            return False
        name = row.declared_name
        running = running_names(self._feed.records)
        stack = self.stack
        after = stack.dependents(name) if stack is not None and name in stack.jobs else []
        first = [n for n in after if n in running]
        if self._theirs([running[n] for n in first]):
            return True
        shown = sanitize_line(name, 64)
        if first:
            question = f"Stop {shown} ({row.id}) and {plural(len(first), 'job')} that need it?"
            detail = f"{listing(first)} stop first; then {shown}."
        else:
            question, detail = f"Stop {shown} ({row.id})?", ""
        signal = stack.jobs[name].stop_signal if stack is not None and name in stack.jobs else ""
        how = f"its stop signal ({signal})" if signal else "its stop signal"
        detail += f" Each gets {how}, then SIGKILL after its grace; none is restarted."
        known = stack if stack is not None and name in stack.jobs else None
        self._confirm(question, detail.strip(), "Stop", lambda: self._down([name], known))
        return True

    def _declared_restart(self) -> bool:
        """`r` on a not-started row starts it (the y/N of `s`); True when it was one."""
        row = self.selected_row
        if not is_not_started(row):
            return False
        assert row is not None
        stack = self._stack_or_say()
        if stack is not None and row.id in stack.jobs:
            self._ask_up(stack, [row.id])
        return True

    async def _down(self, names: list[str] | None, stack: Stack | None) -> None:
        """`stack` None: the declared jobs that run, whatever the file says now."""
        try:
            result = await self.actor.down(stack, names)  # type: ignore[attr-defined]
        except (JobError, UnknownDeclared, OSError) as exc:
            self.notify(f"Not stopped: {sanitize_line(str(exc), 300)}", severity="error")
            return
        self.notify(down_note(result), title="Down", markup=False)
        self.refresh_jobs(force=True)
