"""The list's verbs that change jobs, each behind a y/N: kill, clear, take over, restart;
and opening a job: its emulated terminal for a job started with one, else its log.

Mixed into `JobsScreen` (it holds the selection, the source and the list); every engine
call runs in a worker that cannot exit the host, and a refusal is a notification.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.worker import Worker, WorkerState

from jobs_tui.engine import JobError
from jobs_tui.engine.records.format import duration, outcome_line
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.results import KillResult
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.log.screen import LogScreen
from jobs_tui.screens.terminal.screen import TerminalScreen
from jobs_tui.screens.widgets.confirm import ConfirmScreen
from jobs_tui.screens.widgets.outcome import outcome_text
from jobs_tui.screens.widgets.supervising import belongs, may_act, peer_of, session_name
from jobs_tui.screens.widgets.words import plural

if TYPE_CHECKING:
    from .screen import JobsScreen

    _Base = JobsScreen
else:
    _Base = object


def kill_note(result: KillResult, now_ms: float) -> str:
    """`■ j3 build · killed · SIGKILL · 5.1s · SIGKILL after the grace · 4 processes`."""
    line = sanitize_line(outcome_line(result.job, now_ms), 300)
    if result.escalated:
        line += " · SIGKILL after the grace"
    if result.processes:
        line += f" · {plural(result.processes, 'process', 'processes')}"
    if result.note:
        line += f" ({sanitize_line(result.note, 200)})"
    return line


def clear_detail(
    theirs: list[JobRecord], unreported: int, leftover: list[str], supervise: bool
) -> str:
    """What the clear question says below it: whose jobs they are (`supervise`), what
    would be dropped unseen, what is killed first, what is left alone."""
    parts = []
    if theirs:
        sessions = sorted({session_name(r) for r in theirs})
        named = ", ".join(sessions[:3]) + (" …" if len(sessions) > 3 else "")
        whose = "is another session's" if len(theirs) == 1 else "are other sessions'"
        parts.append(f"{len(theirs)} of them {whose} ({named}).")
    if leftover:
        has = "has" if len(leftover) == 1 else "have"
        parts.append(
            f"{len(leftover)} of them still {has} processes running "
            f"({', '.join(leftover[:5])}): they are killed first."
        )
    if unreported:
        them = "it" if unreported == 1 else "them"
        parts.append(
            f"{plural(unreported, 'unreported result')} would be dropped "
            f"before anyone has seen {them}."
        )
    if supervise:
        parts.append("Running jobs are left alone.")
    else:
        parts.append("Running jobs and other sessions' jobs are left alone.")
    return " ".join(parts)


@dataclass
class KillUnderWay:
    """This session's kill of one job: shown as `stopping` before the record says so."""

    since: float
    signal: str
    calls: int = 0  # kill calls still waiting (a SIGKILL now may join a SIGTERM)
    reported: bool = False  # the job's end was announced once


class JobActions(_Base):
    """Kill, clear, take over and restart the selected job (or this session's finished ones)."""

    _kills: dict[str, KillUnderWay]

    def action_open_log(self) -> None:
        """A tty job opens on its emulated screen (typing into it is one key away)."""
        record = self.selected
        if record is None:
            row = self.selected_row  # a declared job's not-started row: no log yet
            said = f"{row.id} is not started: no log yet (s starts it)." if row else ""
            self.notify(said or "No job selected.", severity="warning", markup=False)
            return
        screen = TerminalScreen if record.tty else LogScreen
        pane = screen(self.source, record.id, clock=self.clock, supervise=self.supervise)
        self.app.push_screen(pane)

    # -- destructive verbs, each behind a y/N ------------------------------------------
    def action_kill(self) -> None:
        if self._declared_kill():  # a declared job: `down NAME` (declaring.py)
            return
        record = self.selected
        if record is None:
            self.notify("No job selected.", severity="warning")
            return
        if not may_act(self.source, record, self.supervise):
            self.notify(f"{record.id} is another session's job; not killed.", severity="warning")
            return
        if not record.running:
            self.notify(
                f"{record.id} has already finished ({outcome_text(record, self.clock())}); "
                "nothing to kill.",
                markup=False,
            )
            return
        label = sanitize_line(record.label, 60)
        peer = peer_of(self.source, record)
        stays = f" It stays the {session_name(record)} session's job." if peer else ""
        stopping = self.stopping(record)
        if stopping is not None:
            ago = duration(self.clock() - stopping.since)
            sent = f"{stopping.signal or 'A kill'} was sent {ago} ago"
            question = f"{record.id} ({label}) is stopping. SIGKILL now?"
            if peer:
                question = f"{belongs(record)} It is stopping. SIGKILL now?"
            self._confirm(
                question,
                f"{sent}. SIGKILL ends its whole process tree at once, without cleanup.{stays}",
                "Kill job",
                lambda: self._kill(record.id, "SIGKILL"),
                moot=lambda: self._ended_note(record.id),
            )
            return
        grace = duration(self.source.config.kill_grace_ms)
        how = f"It gets SIGTERM, then SIGKILL after {grace} if it is still running."
        self._confirm(
            f"{belongs(record)} Kill it?" if peer else f"Kill {record.id} ({label})?",
            f"{label}: {how[0].lower()}{how[1:]}{stays}" if peer else how,
            "Kill job",
            lambda: self._kill(record.id, "SIGTERM"),
        )

    def action_clear(self) -> None:
        """This session's finished jobs; with `supervise`, every session's."""
        finished = [r for r in self.source.jobs(include_peers=self.supervise) if not r.running]
        if not finished:
            whose = "in this project" if self.supervise else "of this session"
            self.notify(f"No finished jobs {whose} to clear.")
            return
        theirs = [r for r in finished if not self.source.is_own(r)]
        # A finished job whose processes still run (a daemon it left) is not cleared
        # behind anyone's back: the question says so, and a yes kills them first.
        leftover = [r.id for r in finished if r.remaining_processes]
        unreported = len(self.source.pending_reports())
        detail = clear_detail(theirs, unreported, leftover, self.supervise)
        self._confirm(
            f"Clear {plural(len(finished), 'finished job')}?",
            detail,
            "Clear",
            lambda: self._clear(leftover),
        )

    def _seen(self, job_id: str) -> None:
        """A result shown on a person's screen (its toast) is seen: not "unreported" later."""
        mark_seen = getattr(self.source, "mark_seen", None)
        if self.supervise and mark_seen is not None:  # a dock leaves it for its agent
            mark_seen(job_id)

    def action_take_over(self) -> None:
        record = self.selected
        if record is None:
            self.notify("No job selected.", severity="warning")
            return
        if self.source.is_own(record):
            self.notify(f"{record.id} is already this session's job.")
            return
        if not record.running:
            self.notify(f"{record.id} has finished; only a running job can be taken over.")
            return
        owner = sanitize_line(record.session_id, 40)
        # A supervising screen's app detaches a job taken over here when it ends (it never
        # kills a job it did not start); an agent's dock's session ends it.
        ends = "" if record.detached or self.supervise else " and ends when this session ends"
        self._confirm(
            f"Take over {record.id} ({sanitize_line(record.label, 60)})?",
            f"It moves from session {owner} to this one{ends}.",
            "Take over",
            lambda: self._take_over(record.id),
        )

    def _confirm(
        self,
        question: str,
        detail: str,
        title: str,
        on_yes: Callable[[], Awaitable[None]],
        moot: Callable[[], str | None] | None = None,
    ) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self._run(on_yes(), title)

        self.app.push_screen(ConfirmScreen(question, detail, title=title, moot=moot), answered)

    def _ended_note(self, job_id: str) -> str | None:
        """Said when a question about `job_id` no longer stands: it has ended meanwhile."""
        try:
            record = self.source.get(job_id)
        except JobError:
            return f"{job_id} is gone; nothing to kill."
        if record.running:
            return None
        return f"{job_id} ended before the answer ({outcome_text(record, self.clock())})."

    # -- workers -----------------------------------------------------------------------
    def _run(self, work: Awaitable[None], what: str) -> Worker[None]:
        return self.run_worker(work, name=what, group="jobs-actions", exit_on_error=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A failure the engine did not phrase is still reported; the host keeps running."""
        if event.state is WorkerState.ERROR and event.worker.group == "jobs-actions":
            self.notify(
                sanitize_line(f"{event.worker.name} failed: {event.worker.error}", 300),
                severity="error",
                markup=False,
            )

    async def _kill(self, job_id: str, signal: str) -> None:
        """One kill call; while it waits out the grace the row says `stopping`.

        A SIGKILL now joins a SIGTERM under way: the job's end is announced once, and
        neither call reports it as "already finished".
        """
        kill = self._kills.get(job_id)
        if kill is None:
            kill = self._kills[job_id] = KillUnderWay(self.clock(), signal)
        if kill.signal != signal:  # SIGKILL now: say when it was sent
            kill.since, kill.signal = self.clock(), signal
        kill.calls += 1
        self.refresh_jobs(force=True)
        try:
            result = await self.actor.kill(job_id, signal)
        except JobError as exc:
            self.notify(sanitize_line(str(exc), 300), severity="error", markup=False)
            return
        finally:
            kill.calls -= 1
            if kill.calls <= 0:
                self._kills.pop(job_id, None)
            self.refresh_jobs(force=True)
        if kill.reported:
            return
        if result.signalled and not result.job.running:
            kill.reported = True
            self.notify(kill_note(result, self.clock()), title="Killed", markup=False)
            self._seen(job_id)
        elif result.note and (result.signalled or not kill.calls):
            # "had already finished" is news only when no other kill of ours ended it
            self.notify(sanitize_line(result.note, 300), markup=False)

    async def _clear(self, leftover: list[str] | None = None) -> None:
        try:
            cleared = []
            for job_id in leftover or ():  # killed first, as the question said
                cleared += await self.actor.clear(job_id, all=True)
            cleared += await self.actor.clear()
        except JobError as exc:
            self.notify(sanitize_line(str(exc), 300), severity="error", markup=False)
            return
        self.notify(f"Cleared {plural(len(cleared), 'finished job')}.")
        self.refresh_jobs(force=True)

    def action_restart(self) -> None:
        if self._declared_restart():  # a not-started row: started (declaring.py)
            return
        record = self.selected
        if record is None:
            self.notify("No job selected.", severity="warning")
            return
        if record.running and not may_act(self.source, record, self.supervise):
            self.notify(
                f"{record.id} is another session's job; not restarted (t takes it over).",
                severity="warning",
            )
            return
        if not record.running:
            self._run(self._restart(record.id), "Restart")
            return
        grace = duration(self.source.config.kill_grace_ms)
        label = sanitize_line(record.label, 60)
        how = (
            f"It gets SIGTERM (SIGKILL after {grace} if it is still running), then the "
            "same command starts again as a new job"
        )
        if peer_of(self.source, record):
            question = f"{belongs(record)} Restart it?"
            detail = f"{label}: {how[0].lower()}{how[1:]}, started here."
        else:
            question, detail = f"Restart {record.id} ({label})?", how + "."
        self._confirm(question, detail, "Restart", lambda: self._restart(record.id))

    async def _restart(self, job_id: str) -> None:
        """The new job is selected: the user follows the command, not the old id."""
        try:
            record = await self.actor.restart(job_id)
        except JobError as exc:
            self.notify(sanitize_line(str(exc), 300), severity="error", markup=False)
            return
        self.notify(f"{job_id} restarted as {record.id}.", markup=False)
        self.refresh_jobs(force=True)
        self.job_list.select(record.id)
        self.selection = self.job_list.cursor_id

    async def _take_over(self, job_id: str) -> None:
        try:
            record = await self.source.adopt(job_id)
        except JobError as exc:
            self.notify(sanitize_line(str(exc), 300), severity="error", markup=False)
            return
        self.notify(f"{record.id} is now this session's job.")
        self.refresh_jobs(force=True)
