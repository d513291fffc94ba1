#!/usr/bin/env python3
"""A minimal "agent shell": the way a Textual host embeds jobs-tui.

    python examples/agent_shell.py [--registry-dir DIR]

Type a shell command and press Enter: it starts as a job (`JobManager.start`), and
the chips (`StatusChips`) count it while it runs. F2 opens the `/jobs` screen
(`JobsScreen`) over the shell; `q` or Esc there comes back. Ctrl-Q quits; the jobs
started here end with the shell (they are this session's, not detached), while
every other session's jobs are only shown.
"""

from __future__ import annotations

import argparse
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Footer, Input, Log, Static

from jobs_tui.engine import JobError, JobManager
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens import JobsScreen, StatusChips


class AgentShell(App[None]):
    """A prompt that starts jobs, a transcript, the chips, and the jobs screen on F2."""

    TITLE = "agent shell"
    AUTO_FOCUS = "#shell-prompt"  # the first keystrokes are the prompt's, not the transcript's
    CSS = """
    #shell-bar { height: 1; dock: top; background: $panel; }
    #shell-title { width: 1fr; padding: 0 1; }
    #shell-chips { width: auto; padding: 0 1; }
    #shell-log { height: 1fr; }
    #shell-prompt { dock: bottom; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "jobs", "Jobs", id="shell.jobs"),
    ]

    def __init__(self, manager: JobManager) -> None:
        super().__init__()
        self.manager = manager

    def compose(self) -> ComposeResult:
        with Horizontal(id="shell-bar"):
            yield Static("agent shell · F2 jobs", id="shell-title")
            yield StatusChips(self.manager, id="shell-chips")
        yield Log(id="shell-log")
        yield Input(
            placeholder="a shell command to start as a job, e.g. sleep 5", id="shell-prompt"
        )
        yield Footer()

    async def on_mount(self) -> None:
        await self.manager.open()  # on the app's own loop: its events reach the chips

    async def on_unmount(self) -> None:
        await self.manager.close()  # this session's running jobs end with it

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        command = event.value.strip()
        event.input.clear()
        if not command:
            return
        log = self.query_one("#shell-log", Log)
        try:
            record = await self.manager.start(command)
        except JobError as exc:
            log.write_line(f"! {sanitize_line(str(exc), 200)}")
            return
        log.write_line(f"▸ {record.id} started: {sanitize_line(command, 200)}")

    def action_jobs(self) -> None:
        if isinstance(self.screen, JobsScreen):
            return
        self.push_screen(JobsScreen(self.manager, show_chips=False), self._back)

    def _back(self, _result: object) -> None:
        self.query_one("#shell-prompt", Input).focus()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--registry-dir", help="the registry directory (default: the project's)")
    args = parser.parse_args()
    AgentShell(JobManager(cwd=".", registry_dir=args.registry_dir)).run()


if __name__ == "__main__":
    main()
