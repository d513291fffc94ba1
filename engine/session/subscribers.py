"""Who hears a session's job events: subscribers called in turn, one's failure never
reaching the others or the caller."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from jobs_tui.engine.records.model import JobEvent, JobRecord

Subscriber = Callable[[JobEvent], None]


class Subscribers:
    """The callbacks `JobManager.subscribe` registered, and the events they are given."""

    def __init__(self) -> None:
        self._callbacks: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback` with each JobEvent; returns the unsubscribe function."""
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback) if callback in self._callbacks else None

    def publish(self, kind: str, record: JobRecord) -> None:
        self.announce(JobEvent.of(kind, record))

    def announce(self, event: JobEvent) -> None:
        for callback in list(self._callbacks):
            with contextlib.suppress(Exception):
                callback(event)
