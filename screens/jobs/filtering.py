"""The list's filter (`/`): the bar that opens under the rows, its text, Esc and Enter.

Mixed into `JobsScreen`, which keeps the text in its `filter_text` reactive and lists
only the rows that match it (`list_filter.matches`: id, label or command).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input

from jobs_tui.screens.widgets.list_filter import FilterInput, ListFilter

if TYPE_CHECKING:
    from .screen import JobsScreen

    _Base = JobsScreen
else:
    _Base = object


class ListFiltering(_Base):
    """`/` opens the filter; typing filters the rows; Enter keeps it; Esc clears it."""

    def action_clear_filter(self) -> bool:
        """Esc where it does not close the screen (the app's home): a kept filter goes.
        True when there was a filter to clear."""
        if not (self.filter_text or self.query_one(ListFilter).has_class("-open")):
            return False
        self._close_filter()
        return True

    def action_filter(self) -> None:
        bar = self.query_one(ListFilter)
        bar.show_count(len(self.job_list.records), len(self._rows))
        bar.open()

    def _close_filter(self) -> None:
        self.query_one(ListFilter).close()
        self.filter_text = ""
        self.set_focus(None)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "jobs-filter-input":
            event.stop()
            self.filter_text = event.value

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "jobs-filter-input":  # keep the filter, give the keys back
            event.stop()
            self.set_focus(None)

    def on_filter_input_cancelled(self, _message: FilterInput.Cancelled) -> None:
        self._close_filter()

    def watch_filter_text(self) -> None:
        self._show_rows(self._feed.records)
