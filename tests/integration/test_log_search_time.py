"""Log search and time on real jobs: --since, timestamps and grep across a rotation."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine import Config, InvalidArgument, JobManager

PY = sys.executable


@pytest.fixture
async def jm(tmp_path: Path):
    registry = str(tmp_path / "reg")
    config = Config(max_log_bytes=32 * 1024)
    async with JobManager(cwd=str(tmp_path), registry_dir=registry, config=config) as manager:
        yield manager


# Phase one: 3000 lines (over 32 KiB: a rotation), a pause, phase two: 1000 more lines.
TWO_PHASES = """
import sys, time
w = sys.stdout.write
for i in range(3000):
    w("one %06d%s\\n" % (i, " ERROR" if i % 500 == 7 else ""))
sys.stdout.flush()
time.sleep(1.0)
for i in range(1000):
    w("two %06d%s\\n" % (i, " ERROR" if i % 500 == 7 else ""))
sys.stdout.flush()
"""


async def test_since_timestamps_and_grep_across_a_rotation(jm: JobManager):
    script = Path(jm.cwd) / "phases.py"
    script.write_text(TWO_PHASES)
    rec = await jm.start(f"{PY} {script}")
    found = await jm.wait_many([rec.id], until="^two 000000", timeout_ms=20_000)
    assert found.reason == "match"
    between = int(time.time() * 1000) - 300  # after phase one, before phase two
    rec = await jm.wait(rec.id, 20_000)
    assert Path(rec.log_path + ".1").exists()

    since = await jm.logs(rec.id, lines=2000, since_ms=between)
    assert since.lines[0] == "two 000000" and len(since.lines) == 1000
    assert not since.truncated

    stamped = await jm.logs(rec.id, lines=1005, timestamps=True)
    assert len(stamped.times) == len(stamped.lines) == 1005
    assert stamped.lines[5] == "two 000000"
    one, two = stamped.times[4], stamped.times[5]
    assert one is not None and two is not None and 800 <= two - one <= 5_000

    result = await jm.search(rec.id, r"ERROR$", context=1)
    texts = [line.text for line in result.lines if line.match]
    # phase one's matches before the retained segments are gone; phase two's all there
    assert texts[-2:] == ["two 000007 ERROR", "two 000507 ERROR"]
    assert result.matches == len(texts) and result.cut == 0
    first_two = next(i for i, line in enumerate(result.lines) if line.text.startswith("two"))
    assert result.lines[first_two].text == "two 000006" and not result.lines[first_two].match
    assert all(line.at_ms is not None for line in result.lines)

    recent = await jm.search(rec.id, r"ERROR$", since_ms=between, limit=1)
    assert [line.text for line in recent.lines] == ["two 000007 ERROR"]
    assert (recent.matches, recent.cut) == (2, 1)


async def test_search_arguments_are_checked_naming_the_field(jm: JobManager):
    rec = await jm.start("echo hi")
    for kwargs, field in (
        ({"pattern": "("}, "grep"),
        ({"pattern": "x", "context": 21}, "context"),
        ({"pattern": "x", "limit": 0}, "limit"),
        ({"pattern": "x", "since_ms": "5m"}, "since_ms"),
    ):
        with pytest.raises(InvalidArgument) as bad:
            await jm.search(rec.id, **kwargs)
        assert bad.value.field == field
