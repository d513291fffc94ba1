"""A clean close leaves nothing behind: no pending read loop, no unclosed transport."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import asyncio, gc, sys
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.session import supervision
    supervision.RECONCILE_S = 0.002  # the reconcile loop races every start's own attach

    async def main():
        async with JobManager(registry_dir=sys.argv[1]) as jm:
            quick = [await jm.start("true") for _ in range(6)]
            slow = [await jm.start("sleep 30") for _ in range(3)]
            await jm.start("sleep 0.5", detached=True)
            for rec in quick:
                await jm.wait(rec.id, 10_000)  # links closed by the shim's exit
            await jm.kill(slow[0].id, "SIGKILL")
            await asyncio.sleep(0.2)
        async with JobManager(registry_dir=sys.argv[1]) as jm:  # adopts the detached job
            await asyncio.sleep(1.0)  # ...which ends meanwhile
        gc.collect()

    asyncio.run(main())
    gc.collect()
    print("closed", flush=True)
    """
)

SIGNS = ("Task was destroyed", "unclosed", "never awaited", "Traceback", "Exception ignored")


def test_a_clean_close_leaves_no_pending_task_or_open_transport(registry_dir: str):
    proc = subprocess.run(
        [sys.executable, "-X", "dev", "-c", SCRIPT, registry_dir],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert "closed" in proc.stdout, proc.stderr
    found = [line for line in proc.stderr.splitlines() if any(s in line for s in SIGNS)]
    assert not found, proc.stderr
