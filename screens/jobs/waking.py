"""`Waking`: when the job list wakes, and what it reads then (a mixin of `JobsScreen`).

An idle list's CPU is its wake-ups: each timer of its own was a wake-up of its own,
five polls a second cost a third of it, and a message to a list hidden under a pane had
Textual redraw the pane whole. So the list wakes once a second for what is due (the
poll, the chips, the latest line, problems, what jobs use), an event brings a poll soon
after it, and a hidden list does not wake at all.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from jobs_tui.engine.procs.resources import JobUsage
from jobs_tui.engine.records.format import usage_line
from jobs_tui.screens.widgets.chips import StatusChips

from .feed import SLACK, any_running
from .latest_line import LATEST_S

if TYPE_CHECKING:
    from .screen import JobsScreen

    _Base = JobsScreen
else:
    _Base = object

POLL_S = 0.2  # events are applied this soon after they come
# Without events the screen wakes once a tick (running rows' times move, the table is
# re-read for peers): five polls a second of an idle list cost a third of its CPU.
# How often what running jobs use is sampled while the screen is shown: each sample is a
# pass over the whole process table (about a point of a core at 50 jobs, once a second).
USAGE_S = 2.0
# A sample that shows what the last one showed (quiet jobs) puts the next one off by
# USAGE_S more, up to USAGE_QUIET_S; a change, a start or a finish brings it back.
USAGE_QUIET_S = 10.0


class Waking(_Base):
    """The list's clock: one wake a second, a poll soon after an event, none while hidden."""

    def _hide(self, hidden: bool) -> None:
        """While a full screen (a pane) hides the list, nothing of it may wake: Textual
        draws the screen under the top one with it, and a message to the hidden list had
        the pane redrawn whole, once a second. Only the problems are still checked, by the
        event loop itself (not a timer of this screen's, which wakes it)."""
        self._hidden = hidden
        if hidden:
            self._second_timer.pause()
        else:
            self._second_timer.resume()
        self._problems_soon(hidden)

    def _problems_soon(self, on: bool) -> None:
        if self._problems_later is not None:
            self._problems_later.cancel()
            self._problems_later = None
        if on:
            self._problems_later = asyncio.get_running_loop().call_later(
                LATEST_S, self._hidden_problems
            )

    def _hidden_problems(self) -> None:
        self._problems_later = None
        if self.is_attached:
            self._show_problems()
            self._problems_soon(True)

    def _second(self) -> None:
        """One wake-up for what is due about once a second (each timer of its own was a
        wake-up of its own): the poll, the latest line, problems, and what jobs use."""
        self._poll()
        if self.show_chips:
            self.query_one(StatusChips).recount()
        self._read_latest()
        self._show_problems()
        period = min(USAGE_QUIET_S, USAGE_S * (1 + self._usage_quiet))
        if time.monotonic() - self._sampled_at >= SLACK * period:
            self._sample_usage()

    def _on_event(self, event: object) -> None:
        """Called by the source, maybe from outside the app's context: the timer is set by
        a callback on this screen (a timer's task keeps the context it was made in)."""
        self._feed.on_event(event)
        if not self._soon_asked and not self._hidden:  # hidden: even a callback wakes it
            self._soon_asked = True
            self.call_later(self._poll_news_soon)

    def _poll_news_soon(self) -> None:
        self._soon_asked = False
        if self._poll_soon is None and self.shown:  # hidden: the table is re-read on resume
            self._poll_soon = self.set_timer(POLL_S, self._poll_news)

    def _poll_news(self) -> None:
        self._poll_soon = None
        self._poll()

    def _read_latest(self) -> None:
        """At most about once a second, and off the event loop: never per frame or key."""
        record = self.selected
        if record is not None and self.shown:
            self._reads.read_latest(record, self._latest_read)

    def _latest_read(self, job_id: str) -> None:
        if self.selected is not None and self.selected.id == job_id:
            self._show_detail()

    def _sample_usage(self) -> None:
        """Once a second while this screen is shown and jobs run (`JobReads.sample_usage`)."""
        if not self._reads.can_sample() or not self.shown:
            return
        self._sampled_at = time.monotonic()
        if not any_running(self._feed.records):
            if self.usage:
                self.usage = {}
            return
        self._reads.sample_usage(self._usage_sampled)

    def _usage_sampled(self, sample: dict[str, JobUsage]) -> None:
        shown = {job_id: usage_line(usage) for job_id, usage in sample.items()}
        quiet = shown == self._usage_shown
        self._usage_quiet = self._usage_quiet + 1 if quiet else 0
        self._usage_shown = shown
        if self.usage:  # shown with the tick's repaint, not as a frame of its own
            self._usage_due = sample
        else:
            self.usage = sample

    def _take_usage(self) -> None:
        if self._usage_due is not None:
            due, self._usage_due = self._usage_due, None
            self.usage = due
