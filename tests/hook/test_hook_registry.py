"""A hook's `seen` mark against a live session in this process (the MCP server's side):
the session's own view respects it, and its next writes never undo it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

from jobs_tui.engine import Config, JobManager

MARK = """
import sys
from jobs_tui.app.hook import reports
from jobs_tui.app.hook.registration import Registration
entry = Registration("", 0, "", sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], False, None)
print(",".join(job["id"] for job in reports.take(entry, wake_only=False)))
"""


def _on_disk(path: Path, job_id: str) -> dict:
    return next(j for j in json.loads(path.read_text())["jobs"] if j["id"] == job_id)


async def test_a_hooks_mark_reaches_the_sessions_view_and_survives_its_writes(
    registry_dir: str,
) -> None:
    async with JobManager(
        cwd=".", registry_dir=registry_dir, config=Config(kill_grace_ms=1000)
    ) as jm:
        record = await jm.start("sleep 0.1; echo boom; exit 2", label="build")
        own = jm.paths.registry_file(jm.session_id)
        deadline = time.monotonic() + 30
        while _on_disk(own, record.id)["status"] == "running":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        assert [r.id for r in jm.pending_reports()] == [record.id]
        lock = jm.paths.persist_lock(jm.session_id)
        hook = subprocess.run(  # the hook: another process of the session
            [sys.executable, "-c", MARK, jm.session_id, str(jm.dir), own.name, lock.name],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert hook.stdout.strip() == record.id, hook.stderr
        assert jm.pending_reports() == []  # the session's own view: reported
        assert jm.get(record.id).seen is True
        await jm.start("echo more", label="more")  # a write of the session's file
        jm.registry.mark_dirty()
        jm.registry.persist()
        assert _on_disk(own, record.id)["seen"] is True
