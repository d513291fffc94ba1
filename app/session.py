"""The command line's session: one persistent session per project, shared by many processes.

Each `jobs-tui` call is a short process of the same session (`cli` by default), and
an agent may run several at once (a `wait` in one, a `start` in another); the
engine's Registry merges each write onto what the other calls wrote, under a lock.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jobs_tui.engine import JobManager

DEFAULT_SESSION = "cli"
ENV_SESSION = "JOBS_TUI_SESSION"


def session_name(flag: str | None) -> str:
    """`--session`, else `$JOBS_TUI_SESSION`, else one command-line session per project."""
    name = flag or os.environ.get(ENV_SESSION) or DEFAULT_SESSION
    return name.strip() or DEFAULT_SESSION


def cli_manager(session: str | None, registry_dir: str | None) -> JobManager:
    """A persistent JobManager for this call: its jobs outlive it; later calls own them."""
    from jobs_tui.engine import JobManager

    manager = JobManager(
        cwd=".",
        session_id=session_name(session),
        persistent=True,
        registry_dir_flag=registry_dir,
    )
    return manager
