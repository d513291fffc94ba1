"""The keys the log pane and the terminal pane share, each with an id under the pane's
prefix (`log.up`, `term.up`): ids are what a user's keymap rebinds."""

from __future__ import annotations

from textual.binding import Binding


def scroll_bindings(prefix: str) -> list[Binding]:
    """Up, down, a page each way, top and end (not in the footer)."""
    return [
        Binding("up,k", "scroll(-1)", "Up", show=False, id=f"{prefix}.up"),
        Binding("down,j", "scroll(1)", "Down", show=False, id=f"{prefix}.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id=f"{prefix}.page-up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id=f"{prefix}.page-down"),
        Binding("home,g", "top", "Top", show=False, id=f"{prefix}.top"),
        Binding("end,G", "follow", "End", show=False, id=f"{prefix}.end"),
    ]


def find_bindings(prefix: str) -> list[Binding]:
    """Follow the end again, find, and step through the matches."""
    return [
        Binding("f", "follow", "Follow", id=f"{prefix}.follow"),
        Binding("slash", "find", "Find", key_display="/", id=f"{prefix}.find"),
        Binding("n", "match(1)", "Next", id=f"{prefix}.next"),
        Binding("N", "match(-1)", "Previous", id=f"{prefix}.previous"),
    ]
