"""A terminal job's output renders at the size it was written at (issue 23, F): the shim
records each resize at its byte offset (`<id>.log.size`), and the renderer replays it."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

from jobs_tui.engine import JobManager
from jobs_tui.engine.logs.rawtail import raw_tail

# 60 x's at 40 columns (the terminal wraps them: 40, then 20), then, once resized to
# 100 columns, 60 y's (one row).
SCRIPT = (
    "printf '%060d\\n' 0 | tr 0 x; while [ ! -e go ]; do sleep 0.02; done; "
    "printf '%060d\\n' 0 | tr 0 y; sleep 0.2"
)


async def _until(predicate, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await predicate():
            return True
        await asyncio.sleep(0.05)
    return await predicate()


async def test_output_before_a_resize_renders_at_the_size_it_was_written_at(
    registry_dir: str, tmp_path: Path
):
    from jobs_tui.app.tty.text import render_lines, screen_lines

    work = tmp_path / "work"
    work.mkdir()
    async with JobManager(cwd=str(work), registry_dir=registry_dir) as jm:
        rec = await jm.start(SCRIPT, tty=True, cols=40, rows=10)

        async def wrote_xs() -> bool:
            return b"x" * 60 in (await raw_tail(jm, rec.id)).data

        assert await _until(wrote_xs)
        env = dict(os.environ, JOBS_TUI_REGISTRY_DIR=registry_dir)
        follow = subprocess.Popen(  # following while the job is resized
            [sys.executable, "-m", "jobs_tui.app.cli", "logs", rec.id, "--follow"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=work,
        )
        await asyncio.sleep(0.5)
        await jm.resize(rec.id, 100, 10)
        (work / "go").touch()
        done = await jm.wait(rec.id, 30_000)
        assert not done.running and done.exit_code == 0
        expected = ["x" * 40, "x" * 20, "y" * 60]
        assert await screen_lines(jm, rec.id) == expected
        assert render_lines(await raw_tail(jm, rec.id)) == expected
        out, err = await asyncio.to_thread(follow.communicate, timeout=60)
        assert out.splitlines()[:3] == expected, (out, err)
        grep = subprocess.run(
            [sys.executable, "-m", "jobs_tui.app.cli", "logs", rec.id, "--grep", "x|y"],
            capture_output=True,
            text=True,
            env=env,
            cwd=work,
            timeout=60,
        )
        assert grep.stdout.splitlines() == expected, grep
        sizes = Path(registry_dir) / f"{rec.id}.log.size"
        assert stat.S_IMODE(os.stat(sizes).st_mode) == 0o600
        await jm.clear(rec.id)
        assert not sizes.exists()


def test_unread_rows_are_laid_out_at_the_size_they_were_written_at():
    from jobs_tui.app.tty.text import screen_delta

    prior = b"x" * 60 + b"\r\n"  # written at 40 columns
    sizes = ((0, 40, 10), (len(prior), 100, 10))
    new = b"y" * 60 + b"\r\n"  # written at 100 columns
    assert screen_delta(prior, True, new, 100, 10, True, sizes=sizes, at=0) == "y" * 60 + "\n"
    earlier = screen_delta(b"", True, prior + new, 100, 10, True, sizes=sizes, at=0)
    assert earlier.splitlines() == ["x" * 40, "x" * 20, "y" * 60]
    assert screen_delta(b"", True, prior, 100, 10, True).splitlines() == ["x" * 60]  # unsized
