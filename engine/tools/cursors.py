"""What every vocabulary holds: the manager, the session's unread cursors, an output cap.

The cursors themselves are the core's (`engine/logs/unread.py`): the command line reads
through the same ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobs_tui.engine.logs.unread import Unread, UnreadCursors

from .common import OUTPUT_CAP

if TYPE_CHECKING:
    from jobs_tui.engine.logs.rawtail import ScreenDelta, TtyRenderer
    from jobs_tui.engine.session.manager import JobManager

__all__ = ["Facade", "Unread", "UnreadCursors"]


class Facade:
    """What every vocabulary holds: the manager, this session's unread cursors, a cap."""

    def __init__(
        self,
        manager: JobManager,
        *,
        cursors: UnreadCursors | None = None,
        output_cap: int = OUTPUT_CAP,
        render: TtyRenderer | None = None,
        screen_delta: ScreenDelta | None = None,
    ) -> None:
        self.jm = manager
        self.render = render  # a terminal job's log as its screen's rows (see JobTools)
        self.screen_delta = screen_delta  # and its unread output (see ttyoutput)
        self.cursors = cursors or UnreadCursors.shared(manager)
        self.output_cap = output_cap
