"""Other sessions as real processes: started from a script, killed at will."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap

SESSION = textwrap.dedent(
    """
    import asyncio, json, sys
    from jobs_tui.engine import JobManager
    async def main():
        spec = json.loads(sys.argv[1])
        jm = JobManager(registry_dir=spec["dir"], session_id=spec.get("session"))
        await jm.open()
        if spec.get("handlers"):
            jm.install_signal_handlers()
        out = []
        for job in spec.get("jobs", []):
            rec = await jm.start(**job)
            out.append({"id": rec.id, "pid": rec.pid, "shim": rec.shim_pid})
        print(json.dumps({"session": jm.session_id, "jobs": out}), flush=True)
        await asyncio.sleep(600)
    asyncio.run(main())
    """
)


class SessionProcess:
    """A JobManager in another process; `info` is what it printed once its jobs started."""

    def __init__(self, registry_dir: str, jobs: list[dict], **options) -> None:
        spec = {"dir": registry_dir, "jobs": jobs, **options}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SESSION, json.dumps(spec)],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.info: dict = {}

    async def started(self, timeout: float = 30) -> dict:
        line = await asyncio.wait_for(asyncio.to_thread(self.proc.stdout.readline), timeout)
        self.info = json.loads(line)
        return self.info

    def kill(self, signum: int = 9) -> None:
        self.proc.send_signal(signum)
        self.proc.wait(timeout=30)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
