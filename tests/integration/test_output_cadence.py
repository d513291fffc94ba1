"""10 (UI performance): 50 printing jobs must not cost the session a registry write a second
or four output events a second each. Real jobs, real shims, real files."""

from __future__ import annotations

import asyncio
import os
import sys
import time

import pytest

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.session import supervision

from .helpers import until

pytestmark = pytest.mark.timeout(60)

# Each line is one write (print("line", n) unbuffered writes "line" alone first: a tail
# read between the writes ends in "line", the same for every n).
PRINTER = (
    f"{sys.executable} -u -c 'import sys, time\nfor n in range(10**6):\n"
    '    sys.stdout.write("line %d\\n" % n)\n    time.sleep(0.05)\''
)


def file_key(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_ino, st.st_mtime_ns


async def test_a_new_last_line_alone_does_not_rewrite_the_registry_every_second(
    registry_dir: str,
):
    async with JobManager(cwd=".", registry_dir=registry_dir, config=Config()) as jm:
        rec = await jm.start(PRINTER, label="printer")
        path = jm.registry.own_path

        def saved_line() -> bool:  # a job's first line is written at the next reconcile
            with open(path, encoding="utf-8") as handle:
                return '"lastLine":"line' in handle.read().replace(" ", "")

        assert await until(saved_line, 15)  # (late on a loaded machine: waited for here)
        before, line = file_key(path), jm.find(rec.id).last_line
        await asyncio.sleep(3.2)  # three reconcile passes, each with a new last line
        assert jm.find(rec.id).last_line != line
        assert file_key(path) == before  # before the fix: rewritten every second
        await jm.kill(rec.id)


async def test_a_new_last_line_reaches_the_file_within_its_interval(
    registry_dir: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(supervision, "LAST_LINE_SAVE_S", 1.0)
    async with JobManager(cwd=".", registry_dir=registry_dir, config=Config()) as jm:
        rec = await jm.start(PRINTER, label="printer")
        assert await until(lambda: jm.find(rec.id).last_line.startswith("line"), 15)
        path = jm.registry.own_path
        before = file_key(path)
        assert await until(lambda: file_key(path) != before, 10)
        with open(path, encoding="utf-8") as handle:
            assert '"lastLine":"line' in handle.read().replace(" ", "")
        await jm.kill(rec.id)


async def test_a_printing_job_sends_about_one_output_event_a_second(registry_dir: str):
    """The shim coalesces output news: a job printing 20 lines a second sends about one
    event a second (four before); a quiet job's first new line still goes at once."""
    async with JobManager(cwd=".", registry_dir=registry_dir, config=Config()) as jm:
        heard: list[float] = []
        rec = await jm.start(PRINTER, label="printer")
        jm.subscribe(
            lambda e: (
                heard.append(time.monotonic())
                if e.kind == "job-output" and e.id == rec.id
                else None
            )
        )
        await asyncio.sleep(4.0)
        assert 2 <= len(heard) <= 6, heard  # before: 16
        # the quiet job prints the wall time it writes its line at: the news must come
        # well within the 1 s a busy job's news waits (measured from the write itself,
        # so a loaded machine's slow shell start does not count)
        quiet = await jm.start("sleep 1.5; date +%s.%N; sleep 30", label="quiet")
        arrived: list[float] = []
        jm.subscribe(
            lambda e: (
                arrived.append(time.time())
                if e.id == quiet.id and e.last_line and not arrived
                else None
            )
        )
        assert await until(lambda: bool(arrived), 10)
        written = float(jm.find(quiet.id).last_line)  # the event's line: `date`'s output
        assert arrived[0] - written < 0.9, arrived[0] - written
        await jm.kill(rec.id)
        await jm.kill(quiet.id)
