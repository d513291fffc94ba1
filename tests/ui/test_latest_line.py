"""The detail pane's `last` line comes from the log, for any session's job (issues 8.9, 8.17)."""

from __future__ import annotations

import asyncio
import itertools
import os
import time

import pytest

from jobs_tui.engine import JobManager, JobStatus
from jobs_tui.engine.session.reading import read_latest_line
from jobs_tui.screens import JobsScreen
from jobs_tui.screens.jobs.detail import DetailPane

from .fakes import FakeSource, Host, frozen_clock, record, until

pytestmark = pytest.mark.timeout(60)


def write(path: str, data: bytes) -> str:
    with open(path, "wb") as f:
        f.write(data)
    return path


def latest(tmp_path, data: bytes, **options) -> str:
    path = write(os.path.join(tmp_path, "j1.log"), data)
    return read_latest_line(path, path + ".1", **options)


def test_the_latest_line_is_the_last_with_text(tmp_path):
    assert latest(tmp_path, b"") == ""
    assert latest(tmp_path, b"one\ntwo\n\n  \n") == "two"
    assert latest(tmp_path, b"one\n>>> ") == ">>>"
    assert latest(tmp_path, b"one\n10%\r20%\r30%") == "30%"
    hostile = b"one\n\x1b[31mred\x1b[0m \x1b]0;t\x07\xc2\x9b2J\xe2\x80\xaeok\n"
    assert latest(tmp_path, hostile) == "red ok"


def test_a_line_cut_at_the_start_of_the_window_says_so(tmp_path):
    line = "start " + "x" * 5000 + " end"
    shown = latest(tmp_path, f"head\n{line}\n".encode(), window=4096)
    assert shown.startswith("…x") and len(shown) <= 200
    # a progress rewrite whose final state is whole is not cut
    assert latest(tmp_path, ("y" * 5000 + "\rdone\n").encode(), window=4096) == "done"
    # a line longer than the limit shows that its end is cut, too
    assert latest(tmp_path, ("z" * 300 + "\n").encode()).endswith("…")
    # a window that starts inside a UTF-8 character does not show a broken one
    assert "\ufffd" not in latest(tmp_path, ("é" * 3000 + "\n").encode(), window=4095)


def test_the_latest_line_spans_a_rotation(tmp_path):
    path = write(os.path.join(tmp_path, "j1.log"), b"")
    write(path + ".1", b"old\nbefore the rotation\n")
    assert read_latest_line(path, path + ".1") == "before the rotation"


async def test_a_command_line_sessions_running_job_shows_its_latest_line(
    registry_dir: str, jm: JobManager
):
    cli = JobManager(cwd=".", registry_dir=registry_dir, session_id="cli", persistent=True)
    await cli.open()
    rec = await cli.start("echo first; sleep 1.5; echo second-line; sleep 30", label="agent")
    await asyncio.sleep(0.5)
    await cli.close()  # a command-line call ends; its job runs on, nobody updates its record
    jm.registry.refresh_peers(0, force=True)
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=(120, 30)):
        assert await until(lambda: rec.id in [r.id for r in app.screen.job_list.records])
        app.screen.job_list.select(rec.id)
        detail = app.screen.query_one(DetailPane)
        assert await until(lambda: "last     first" in str(detail.render()))
        assert await until(lambda: "last     second-line" in str(detail.render()), timeout=5)
        assert jm.get(rec.id).last_line != "second-line"  # the record itself is stale
    await jm.kill(rec.id, "SIGKILL")


class CountingSource(FakeSource):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.reads: list[tuple[str, float]] = []

    async def latest_line(self, job_id: str) -> str | None:
        self.reads.append((job_id, time.monotonic()))
        return await super().latest_line(job_id)


async def test_the_log_is_read_about_once_a_second_not_per_frame_or_key(log_dir: str):
    records = [record(n, f"job {n}", log_dir=log_dir) for n in range(1, 6)]
    for n in range(1, 6):
        write(f"{log_dir}/j{n}.log", f"line of {n}\n".encode())
    source = CountingSource(records)
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.3)
        began = time.monotonic()
        for _ in range(10):
            await pilot.press("j", "j", "k", "k")
        await pilot.pause(2.0)
        elapsed = time.monotonic() - began
        reads = source.reads
        assert reads, "the selected job's log was never read"
        assert len(reads) <= 2 * elapsed + 2, (len(reads), elapsed)  # 40 keys, many frames
        for job in {job for job, _ in reads}:
            times = [at for j, at in reads if j == job]
            gaps = [b - a for a, b in itertools.pairwise(times)]
            assert all(gap >= 0.75 for gap in gaps), (job, gaps)  # about once a second
        detail = str(app.screen.query_one(DetailPane).render())
        assert "last     line of 5" in detail, detail


async def test_a_finished_jobs_cut_line_is_marked(log_dir: str):
    write(f"{log_dir}/j1.log", ("a" * 5000 + " the end\n").encode())
    source = FakeSource([record(1, "done", JobStatus.EXITED, log_dir=log_dir, last_line="a" * 20)])
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(120, 30)):
        detail = app.screen.query_one(DetailPane)
        assert await until(lambda: "last     …aaa" in str(detail.render())), str(detail.render())
