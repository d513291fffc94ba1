"""What the list says besides its rows: the summary's counts and prunes, and the problems found."""

from __future__ import annotations

from jobs_tui.engine.records.format import summary
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.screens.widgets.source import JobSource
from jobs_tui.screens.widgets.words import plural


def pruned_jobs(source: JobSource) -> int:
    """How many older finished jobs the registry pruned (0 for a source that cannot say)."""
    pruned = getattr(source, "pruned", 0)
    return pruned if isinstance(pruned, int) and pruned > 0 else 0


def problem_notes(source: JobSource) -> list[str]:
    """Problems the source found (quarantined files, skipped entries, refused paths), each
    once (the source hands each out once), sanitized; none from a source that cannot say."""
    take = getattr(source, "take_problems", None)
    if take is None:
        return []
    return [sanitize_line(str(problem), 300) for problem in take()]


class SummaryLine:
    """The counts of the rows shown and the jobs pruned; prunes after the screen opened are news."""

    def __init__(self) -> None:
        self._text: str | None = None
        self._pruned_seen: int | None = None  # prunes before the screen opened are not news

    def prune_notice(self, pruned: int, max_jobs: int) -> str | None:
        """The notice of the jobs pruned since the last call, if any (none at the first)."""
        notice = None
        if self._pruned_seen is not None and pruned > self._pruned_seen:
            fresh = pruned - self._pruned_seen
            were = "was" if fresh == 1 else "were"
            notice = f"{plural(fresh, 'older finished job')} {were} pruned (max_jobs {max_jobs})."
        self._pruned_seen = pruned
        return notice

    def changed_text(
        self, records: list[JobRecord], session_id: str, pruned: int, not_started: int = 0
    ) -> str | None:
        """The summary, or None when it is the one shown (an unchanged summary is not redrawn).
        `not_started`: the declared jobs listed that have no job yet."""
        text = summary(records, session_id)
        if not_started:
            text += f" · {not_started} declared not started"
        if pruned:
            text += f" · {plural(pruned, 'older finished job')} pruned"
        if text == self._text:
            return None
        self._text = text
        return text
