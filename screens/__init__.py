"""Textual screens and widgets for jobs-tui: push `JobsScreen(manager)` from any Textual app.

Screens take a `JobManager` (or any `JobSource`) and an optional clock, keep their
styles in `DEFAULT_CSS`, and touch the app only through notify / push / pop.

Four rooms, importing one way (pyproject's layers contract): `jobs/` (the list, which
opens the panes) -> `log/` (the log pane) | `terminal/` (the terminal pane), which know
nothing of each other -> `widgets/` (what they all share, the job source protocol too).
"""

from __future__ import annotations

from .jobs.quit_dialog import QuitScreen
from .jobs.screen import JobsScreen
from .log.screen import LogScreen
from .terminal.screen import TerminalScreen
from .widgets.chips import StatusChips
from .widgets.confirm import ConfirmScreen
from .widgets.source import Clock, JobSource, wall_clock

__all__ = [
    "Clock",
    "ConfirmScreen",
    "JobSource",
    "JobsScreen",
    "LogScreen",
    "QuitScreen",
    "StatusChips",
    "TerminalScreen",
    "wall_clock",
]
