"""The MCP log resource says what rotated away between two reads of it, byte for byte."""

from __future__ import annotations

import os

import anyio

from .conftest import project, serve  # noqa: F401  (project is a fixture)

MAX = 1000  # bytes a log segment holds before it rotates
FIRST = b"first line\n"
LINE = 50  # bytes per numbered line, newline included
COUNT = 400  # lines written after the first read: 20000 bytes, far more than two segments


async def test_log_resource_reports_skipped_between_reads(project):  # noqa: F811
    cwd, registry = project
    with open(os.environ["JOBS_TUI_CONFIG"], "w") as fh:
        fh.write(f"[job]\nmax_log_bytes = {MAX}\n")
    script = (
        "printf 'first line\\n'; while [ ! -e go ]; do sleep 0.02; done; "
        f"i=0; while [ $i -lt {COUNT} ]; do printf '%049d\\n' $i; i=$((i+1)); done"
    )
    async with serve(cwd, registry) as s:
        await s.ok("job_start", command=script)
        for _ in range(200):  # until the first line is in the log
            first = await s.session.read_resource("jobs://job/j1/log")
            if "first line" in first.contents[0].text:
                break
            await anyio.sleep(0.05)
        assert "first line" in first.contents[0].text
        assert not (first.contents[0].meta or {}).get("skipped")  # a first read: a tail
        open(os.path.join(cwd, "go"), "w").close()
        await s.ok("job_wait", id="j1", timeoutMs=30_000)

        second = await s.session.read_resource("jobs://job/j1/log")
        written = len(FIRST) + COUNT * LINE
        live = (written - 1) % MAX + 1  # segments rotate at the exact byte, once more comes
        retained_from = written - MAX - live
        expected = retained_from - len(FIRST)  # after what the first read showed
        contents = second.contents[0]
        assert contents.meta == {"skipped": expected}, contents.meta
        assert f"{expected} bytes rotated away unread since the last read" in contents.text
        assert f"{COUNT - 1:049d}" in contents.text

        third = await s.session.read_resource("jobs://job/j1/log")  # nothing new: no gap
        assert not (third.contents[0].meta or {}).get("skipped")
        assert "rotated away" not in third.contents[0].text
