"""`JobsApp`: the standalone `jobs-tui` terminal app around `JobsScreen`.

The person at this screen supervises every job of the project (`supervise=True`): they
kill, restart, clear, send to and type into any session's job, which stays that
session's. The app owns a session of its own: it opens the manager on its own loop,
optionally starts the demo jobs, and when it ends (quit, a closed `serve` tab) only the
jobs it started itself and did not detach end with it. Quitting while those run asks:
kill them, leave them running (detached), or stay. A job taken over here with `t` is
detached when the app ends: quitting never kills a job the app did not start.

The project's declared jobs (`jobs-tui.toml`, or what `up` reads without it) are read
once at start into the app's `stack`, which the list follows; `run_tui(up=[...])` (the
`jobs-tui up` verb) brings them up once the list is shown, detached: they outlive the app.
"""

from __future__ import annotations

import contextlib
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.reactive import reactive

from jobs_tui.engine import JobError, JobManager
from jobs_tui.engine.declared import DeclaredFileError, NoDeclaredFile, Stack, load_stack
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.engine.registry.ownership import taken_from
from jobs_tui.screens import JobsScreen, QuitScreen
from jobs_tui.screens.jobs.quit_dialog import QuitAnswer
from jobs_tui.screens.widgets.source import Clock

EMPTY_TEXT = (
    "No jobs yet: press a to start one here, or run jobs-tui start -- COMMAND in a shell; "
    "jobs started by any session in this project appear here live."
)


class StandaloneJobsScreen(JobsScreen, inherit_bindings=False):
    """The list as the app's home: q quits the app (Esc no longer closes anything)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(b for b in JobsScreen.BINDINGS if isinstance(b, Binding) and b.id != "jobs.close"),
        Binding("q", "close", "Quit", id="jobs.close"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="jobs.filter-esc"),
    ]
    HELP: ClassVar[dict[str, str]] = {
        **JobsScreen.HELP,
        "close": "quit (asks when jobs started here run: kill them, leave them, or stay)",
        "clear_filter": "clear a filter kept with Enter",
    }

    async def action_close(self) -> None:
        await self.app.run_action("quit")


class JobsApp(App[int]):
    """`jobs-tui`: every job of the project, live."""

    TITLE = "jobs-tui"
    ENABLE_COMMAND_PALETTE = False

    stack: reactive[Stack | None] = reactive(None, init=False)
    """The project's declared jobs, read at start (None: it has none, or its file is
    invalid: then a notification says the first error); the list follows it."""

    def __init__(
        self,
        manager: JobManager,
        *,
        demo: bool = False,
        clock: Clock | None = None,
        up: list[str] | None = None,
    ) -> None:
        """`up`: bring the declared jobs up once the list shows (`[]`: those with
        `autostart`, else the named ones and what they depend on); None: not."""
        super().__init__()
        self.manager = manager
        self.demo = demo
        self.clock = clock
        self.up = up
        self._quitting = False
        self._stack_unread = False  # the file is there and could not be used

    async def on_mount(self) -> None:
        await self.manager.open()
        if self.demo:
            from .demo import start_demo

            await start_demo(self.manager)
        screen = StandaloneJobsScreen(
            self.manager,
            clock=self.clock,
            show_chips=True,
            empty_text=EMPTY_TEXT,
            supervise=True,
        )
        await self.push_screen(screen)
        self.stack = self.read_stack()
        if self.up is not None and not self._stack_unread:  # an invalid file: said already
            screen.bring_up(list(self.up) or None)

    def read_stack(self) -> Stack | None:
        """The stack of the manager's project (its root's file); a problem is a notification."""
        cwd = getattr(self.manager, "cwd", None)
        if cwd is None:  # a source that is no project's (a test double)
            return None
        try:
            stack = load_stack(cwd=cwd)
        except NoDeclaredFile:
            return None
        except DeclaredFileError as exc:
            self._stack_unread = True
            first = exc.errors[0] if exc.errors else str(exc)
            more = f" (and {len(exc.errors) - 1} more)" if len(exc.errors) > 1 else ""
            self.notify(
                sanitize_line(f"Declared jobs not read: {first}{more}", 400),
                title="Declared jobs",
                severity="error",
                timeout=15,
                markup=False,
            )
            return None
        except OSError as exc:
            self._stack_unread = True
            self.notify(
                sanitize_line(f"Declared jobs not read: {exc}", 400),
                title="Declared jobs",
                severity="error",
                markup=False,
            )
            return None
        if stack.warnings:
            more = f" (and {len(stack.warnings) - 1} more)" if len(stack.warnings) > 1 else ""
            self.notify(
                sanitize_line(stack.warnings[0] + more, 400),
                title="Declared jobs",
                severity="warning",
                timeout=10,
                markup=False,
            )
        return stack

    def watch_stack(self, stack: Stack | None) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, JobsScreen):
                screen.stack = stack

    def running_own(self) -> list[str]:
        """Ids of the running jobs that quitting would kill (`started_here`)."""
        return [r.id for r in started_here(self.manager)]

    async def action_quit(self) -> None:
        if self._quitting:
            return
        victims = self.running_own()
        if not victims:
            await self.shutdown()
            return
        shown = ", ".join(victims[:8]) + (" …" if len(victims) > 8 else "")
        one = len(victims) == 1
        count = f"{len(victims)} running job" + ("" if one else "s")

        async def answered(answer: QuitAnswer) -> None:
            if answer is not None:
                await self.shutdown(leave_running=answer == "leave")

        self.push_screen(
            QuitScreen(
                f"Quit and kill {count} started here?",
                f"{shown}: started here and not detached. y kills {'it' if one else 'them'}, "
                f"l leaves {'it' if one else 'them'} running (detached). Other sessions' "
                "jobs, and jobs taken over here, keep running.",
            ),
            answered,
        )

    async def shutdown(self, leave_running: bool = False) -> None:
        self._quitting = True
        victims = [] if leave_running else self.running_own()
        if victims:  # closing waits for them to end (up to the kill grace): say why
            self.notify(f"Stopping {len(victims)} running job(s)…", markup=False)
        try:
            await close_session(self.manager, leave_running=leave_running)
        finally:
            self.exit(0)


def started_here(manager: JobManager) -> list[JobRecord]:
    """The running jobs that end with the app: started by it (not taken over with `t`:
    `takenFrom`) and not detached."""
    return [
        r
        for r in manager.jobs(include_peers=False)
        if r.running and not r.detached and taken_from(r) is None
    ]


async def close_session(manager: JobManager, *, leave_running: bool = False) -> None:
    """End the app's session: the jobs it started die with it (unless `leave_running`);
    a job taken over here is detached first, so it keeps running.

    Every way the app ends comes here: `q`, a closed `serve` tab (textual's ExitApp, no
    dialog), the terminal gone (`run_tui`'s finally)."""
    started = {r.id for r in started_here(manager)}
    keep = [
        r.id
        for r in manager.jobs(include_peers=False)
        if r.running and not r.detached and (leave_running or r.id not in started)
    ]
    for job_id in keep:
        # unreachable: nothing of it to kill either; not written (a full disk): the shim
        # watches nobody already, and closing writes the file again
        with contextlib.suppress(JobError, OSError):
            await manager.detach(job_id)
    await manager.close()


def run_tui(
    registry_dir: str | None = None,
    demo: bool = False,
    up: list[str] | None = None,
    door: str = "screen",
) -> int:
    """Run the app on the current directory's project registry; returns the exit status.
    `up`: bring the project's declared jobs up once the list shows (`[]`: those with
    `autostart`; names: those and what they depend on), detached. `door`: who its kills
    are said to come from (`browser` for a `serve` tab)."""
    import asyncio

    async def main() -> int:
        manager = JobManager(cwd=".", registry_dir_flag=registry_dir, door=door)
        app = JobsApp(manager, demo=demo, up=up)
        try:
            result = await app.run_async()
        finally:
            await close_session(manager)  # a closed tab too: only what it started ends
        return result or 0

    return asyncio.run(main())
