"""The person at the screen as the supervisor: acting on any job of the project.

`JobsScreen(..., supervise=True)` (the standalone app, a `serve` tab) kills, restarts,
clears, sends to and types into another session's job after one y/N that names whose
job it is, without taking it over: its calls go through `Supervising`, which asks the
engine with `supervise=True` (the job's own shim acts; the job stays its session's).
An agent's own `/jobs` dock (`supervise=False`) keeps refusing other sessions' jobs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from textual.app import App

from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.records.sanitize import sanitize_line

from .confirm import ConfirmScreen
from .source import JobSource


def session_name(record: JobRecord) -> str:
    """The owner as a person reads it: the session's id (`cli`, `mcp-4242`), one line."""
    return sanitize_line(record.session_id, 40) or "another"


def belongs(record: JobRecord) -> str:
    """`j8 belongs to the cli session.`"""
    return f"{record.id} belongs to the {session_name(record)} session."


def ask_peer(
    app: App[Any], record: JobRecord, verb: str, what: str, on_yes: Callable[[], None]
) -> None:
    """The one y/N before input to another session's job: `j8 belongs to the cli
    session. Type into it?`, `what` it means below; `on_yes` once answered yes."""

    def answered(yes: bool | None) -> None:
        if yes:
            on_yes()

    detail = (
        f"{sanitize_line(record.label, 60)}: {what}; "
        f"it stays the {session_name(record)} session's job."
    )
    title = verb.split(" ", 1)[0]
    app.push_screen(ConfirmScreen(f"{belongs(record)} {verb}?", detail, title=title), answered)


def may_act(source: JobSource, record: JobRecord | None, supervise: bool) -> bool:
    """Whether this screen acts on the job: its own session's, or any with `supervise`."""
    return record is not None and (supervise or source.is_own(record))


def peer_of(source: JobSource, record: JobRecord | None) -> bool:
    return record is not None and not source.is_own(record)


# The calls that change a job: with `Supervising`, each is made with `supervise=True`.
ACTING = frozenset({"kill", "restart", "clear", "send", "send_bytes", "resize", "interrupt"})


class Supervising:
    """A job source whose changing calls (`ACTING`) act on any session's job.

    Everything else is the source's own (reads, events, `is_own`): a peer's job is still
    shown as a peer's. An optional call the source lacks is lacking here too.
    """

    def __init__(self, source: JobSource) -> None:
        self._source = source

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._source, name)
        return functools.partial(value, supervise=True) if name in ACTING else value


def acting_source(source: JobSource, supervise: bool) -> JobSource:
    """The source a screen's verbs go through: `Supervising` with `supervise`."""
    return Supervising(source) if supervise else source  # type: ignore[return-value]
