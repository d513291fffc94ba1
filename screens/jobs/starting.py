"""Starting a job from the list (`a`): the prompt, then the source's `start`.

Mixed into `JobsScreen`. The new job is the screen's session's own (the app's, an
agent's dock's): it ends when that session does, unless detached. A source without
`start` (a read-only view) says so instead of opening the prompt.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from jobs_tui.engine import JobError
from jobs_tui.engine.records.sanitize import sanitize_line

from .start_prompt import StartPrompt, StartRequest

if TYPE_CHECKING:
    from .screen import JobsScreen

    _Base = JobsScreen
else:
    _Base = object

CHROME_ROWS = 3  # the terminal pane's two header rows and the footer


class JobStarting(_Base):
    """`a`: ask for a command and start it as this session's job."""

    def action_start_job(self) -> None:
        if not callable(getattr(self.source, "start", None)):
            self.notify("This screen cannot start jobs (a read-only view).", severity="warning")
            return
        cwd = str(getattr(self.source, "cwd", None) or os.getcwd())
        self.app.push_screen(StartPrompt(cwd), self._start_answered)

    def _start_answered(self, request: StartRequest | None) -> None:
        if request is not None:
            self.run_worker(self._start(request), group="start", exit_on_error=False)

    async def _start(self, request: StartRequest) -> None:
        size = self.app.size
        cols, rows = max(20, size.width), max(5, size.height - CHROME_ROWS)
        try:
            record = await self.source.start(  # type: ignore[attr-defined]
                request.command, tty=request.tty, cols=cols, rows=rows
            )
        except JobError as exc:
            self.notify(f"Not started: {sanitize_line(str(exc), 300)}", severity="error")
            return
        self.notify(f"▸ {record.id} started: {sanitize_line(record.label, 80)}", markup=False)
        self.refresh_jobs(force=True)
        self.job_list.select(record.id)
