"""Drive `fake_agent.py` processes from a test: an agent client with its own `jobs-tui mcp`."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ENTRY = [sys.executable, "-m", "jobs_tui.app.cli"]


@dataclass
class HookRun:
    code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def answer(self) -> dict[str, Any]:
        """stdout as the one JSON object a client parses."""
        return json.loads(self.stdout)


class FakeAgent:
    """One agent client: its MCP server is its child, its hooks are its children."""

    def __init__(
        self, registry: Path, scratch: Path, name: str = "agent", cwd: Path | None = None
    ) -> None:
        """`cwd`: where the client (and so its server) runs: the project it works in."""
        self.registry = registry
        self.server_log = scratch / f"{name}-server.err"
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "fake_agent.py"), str(registry), str(self.server_log)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
            cwd=cwd,
        )
        self._buffer = ""

    def ask(self, timeout: float = 60.0, **step: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(step) + "\n")
        self.process.stdin.flush()
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout
        while "\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AssertionError(f"the fake agent did not answer {step['op']} in {timeout}s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise AssertionError(f"the fake agent died: {self.server_log.read_text()!r}")
            self._buffer += chunk.decode()
        line, self._buffer = self._buffer.split("\n", 1)
        return json.loads(line)

    def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        answer = self.ask(op="call", name=name, arguments=arguments)
        assert "result" in answer and not answer["result"].get("isError"), answer
        return answer["result"]

    def start(self, command: str, **fields: Any) -> str:
        result = self.call("job_start", command=command, **fields)
        return result["structuredContent"]["job"]["id"]

    def hook(self, event: str, client: str, stdin: str | dict[str, Any], *extra: str) -> HookRun:
        text = stdin if isinstance(stdin, str) else json.dumps(stdin)
        argv = [*ENTRY, "hook", event, "--client", client, *extra]
        return HookRun(**self.ask(op="hook", argv=argv, stdin=text))

    def pids(self) -> dict[str, int]:
        return self.ask(op="pids")

    def close(self) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            if self.process.stdout is not None:
                self.process.stdout.close()


def records(registry: Path) -> dict[str, dict[str, Any]]:
    """Every job record of every registry file in `registry`, by id."""
    found: dict[str, dict[str, Any]] = {}
    for path in registry.glob("registry-*.json"):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        for job in data.get("jobs", []):
            found[job["id"]] = job
    return found


def settled(registry: Path, *ids: str, timeout: float = 30.0) -> dict[str, dict[str, Any]]:
    """Poll the registry files (not job_wait: that reports the finish) until `ids` ended."""
    deadline = time.monotonic() + timeout
    while True:
        jobs = records(registry)
        if all(i in jobs and jobs[i]["status"] != "running" for i in ids):
            return jobs
        assert time.monotonic() < deadline, f"{ids} did not finish: {jobs}"
        time.sleep(0.03)
