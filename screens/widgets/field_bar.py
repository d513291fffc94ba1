"""`FieldBar`: a one-line bar around a text field, hidden until its key opens it.

The log pane's find and the list's (and log pane's) filter are both one; what the text
does is the screen's.
"""

from __future__ import annotations

from textual.containers import Horizontal
from textual.widgets import Input


class FieldBar(Horizontal):
    """Shown (its `-open` class) with its field focused; closed, hidden and emptied."""

    @property
    def input(self) -> Input:
        raise NotImplementedError

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        self.add_class("-open")
        self.input.focus()

    def close(self) -> None:
        """Hidden and emptied; the screen drops what the text did and takes the keys back."""
        self.remove_class("-open")
        self.input.value = ""
