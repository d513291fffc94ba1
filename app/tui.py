"""`JobsApp`: the standalone `jobs-tui` terminal app around `JobsScreen`.

The app owns the session: it opens the manager on its own loop, optionally starts
the demo jobs, and on quit closes the manager, which kills this session's
non-detached jobs; so quitting while they run asks first.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from jobs_tui.engine import JobManager
from jobs_tui.screens import ConfirmScreen, JobsScreen
from jobs_tui.screens.source import Clock

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
        "close": "quit (y/N when this session's running jobs would be killed)",
        "clear_filter": "clear a filter kept with Enter",
    }

    async def action_close(self) -> None:
        await self.app.run_action("quit")


class JobsApp(App[int]):
    """`jobs-tui`: every job of the project, live."""

    TITLE = "jobs-tui"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self, manager: JobManager, *, demo: bool = False, clock: Clock | None = None
    ) -> None:
        super().__init__()
        self.manager = manager
        self.demo = demo
        self.clock = clock
        self._quitting = False

    async def on_mount(self) -> None:
        await self.manager.open()
        if self.demo:
            from .demo import start_demo

            await start_demo(self.manager)
        self.push_screen(
            StandaloneJobsScreen(
                self.manager, clock=self.clock, show_chips=True, empty_text=EMPTY_TEXT
            )
        )

    def running_own(self) -> list[str]:
        """Ids of this session's running jobs that quitting would kill."""
        return [
            r.id for r in self.manager.jobs(include_peers=False) if r.running and not r.detached
        ]

    async def action_quit(self) -> None:
        if self._quitting:
            return
        victims = self.running_own()
        if not victims:
            await self.shutdown()
            return
        shown = ", ".join(victims[:8]) + (" …" if len(victims) > 8 else "")
        count = f"{len(victims)} running job" + ("" if len(victims) == 1 else "s")

        async def answered(yes: bool | None) -> None:
            if yes:
                await self.shutdown()

        self.push_screen(
            ConfirmScreen(
                f"Quit and kill {count} of this session?",
                f"{shown}: started here and not detached, "
                f"{'it ends' if len(victims) == 1 else 'they end'} with this session.",
                title="Quit",
            ),
            answered,
        )

    async def shutdown(self) -> None:
        self._quitting = True
        victims = self.running_own()
        if victims:  # closing waits for them to end (up to the kill grace): say why
            self.notify(f"Stopping {len(victims)} running job(s)…", markup=False)
        try:
            await self.manager.close()
        finally:
            self.exit(0)


def run_tui(registry_dir: str | None = None, demo: bool = False) -> int:
    """Run the app on the current directory's project registry; returns the exit status."""
    import asyncio

    async def main() -> int:
        manager = JobManager(cwd=".", registry_dir_flag=registry_dir)
        app = JobsApp(manager, demo=demo)
        try:
            result = await app.run_async()
        finally:
            await manager.close()
        return result or 0

    return asyncio.run(main())
