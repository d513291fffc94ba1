"""10.4: events carry their news; the list updates the rows that changed; reactives; styles."""

from __future__ import annotations

from typing import ClassVar

import pytest
from textual.app import App
from textual.widgets import Static

from jobs_tui.engine import JobManager, JobStatus
from jobs_tui.screens import JobsScreen
from jobs_tui.screens.jobs.detail import DetailPane

from .fakes import NOW_MS, FakeSource, Host, frozen_clock, until

pytestmark = pytest.mark.timeout(60)


class CountingSource(FakeSource):
    """Counts full reads of the job table."""

    reads = 0

    def jobs(self, include_peers: bool = True):
        self.reads += 1
        return super().jobs(include_peers)


async def test_events_carry_the_changed_record(jm: JobManager):
    seen = []
    jm.subscribe(seen.append)
    rec = await jm.wait((await jm.start("echo hi")).id, 10_000)
    kinds = {event.kind: event for event in seen}
    assert kinds["job-started"].record.id == rec.id
    assert kinds["job-finished"].record is jm.get(rec.id)
    assert kinds["job-finished"].record.status is JobStatus.EXITED
    assert "record" not in kinds["job-finished"].to_json()  # the wire shape is unchanged


async def test_the_list_is_not_re_read_five_times_a_second(fake: FakeSource):
    source = CountingSource(list(fake.records.values()))
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.3)
        before = source.reads
        await pilot.pause(2.0)
        # a slow reconcile (what no event reports: peers' files) once a second, not 5/s
        assert source.reads - before <= 3


async def test_an_output_event_updates_the_selected_row_and_detail_without_a_re_read(
    fake: FakeSource,
):
    source = CountingSource(list(fake.records.values()))
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(100, 30)):
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        job_id = screen.selection
        assert job_id is not None and job_id == screen.job_list.cursor_id
        source.update(job_id, last_line="fresh news from the job")
        source.publish("job-output", source.records[job_id])
        detail = screen.query_one(DetailPane)
        assert await until(lambda: "fresh news from the job" in str(detail.render()), 1.0)


async def test_a_finish_event_moves_the_row_and_updates_the_summary(fake: FakeSource):
    app = Host(lambda: JobsScreen(fake, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        summary = screen.query_one("#jobs-summary", Static)
        running = sum(r.running for r in fake.records.values())
        assert f"{running} running" in str(summary.render())
        fake.update("j8", status=JobStatus.EXITED, exit_code=0, finished_at=NOW_MS)
        fake.publish("job-finished", fake.records["j8"])
        assert await until(lambda: f"{running - 1} running" in str(summary.render()), 1.0)
        ids = [r.id for r in screen.job_list.records]
        assert ids.index("j8") > ids.index("j7")
        await pilot.pause()


async def test_the_selection_is_a_reactive_the_detail_watches(fake: FakeSource):
    app = Host(lambda: JobsScreen(fake, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        screen.job_list.select("j1")
        await pilot.pause()
        assert screen.selection == "j1"
        detail = screen.query_one(DetailPane)
        assert str(detail.render()).startswith("j1")


class Restyled(App[None]):
    CSS: ClassVar[str] = "DetailPane > .detail--running { color: #ff00ff; }"

    def __init__(self, source) -> None:
        super().__init__()
        self.source = source

    def on_mount(self) -> None:
        self.push_screen(JobsScreen(self.source, clock=frozen_clock))


async def test_a_hosts_css_restyles_the_detail_panes_status_colour(fake: FakeSource):
    app = Restyled(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        running = next(r for r in screen.job_list.records if r.running)
        screen.job_list.select(running.id)
        await pilot.pause()
        detail = screen.query_one(DetailPane)
        assert "detail--running" in DetailPane.COMPONENT_CLASSES
        outcome = next(line for line in detail.render().split("\n") if "outcome" in line.plain)
        colours = {str(span.style) for span in outcome.spans}
        assert any("255,0,255" in colour for colour in colours), colours


async def test_a_peers_change_reaches_subscribers_as_an_event(jm: JobManager, peer: JobManager):
    """What a peer's file says is news too: the screen re-reads at once, not on its next
    slow reconcile."""
    seen = []
    jm.subscribe(seen.append)
    theirs = await peer.start("sleep 30", label="theirs")
    assert await until(lambda: any(e.kind == "registry-changed" for e in seen), 5)
    assert jm.get(theirs.id).label == "theirs"
    await peer.kill(theirs.id, "SIGKILL")
