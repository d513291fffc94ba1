"""A stand-in for an agent client (Claude Code, Codex, Gemini CLI) in one process.

As those clients do, it spawns `jobs-tui mcp` as its own child over stdio, and runs each
hook command as its own child through `sh -c` with the hook's input JSON on stdin. The
test drives it with one JSON line per step on stdin and reads one JSON line per answer:

    {"op": "call", "name": "job_start", "arguments": {...}} -> {"result": ...}
    {"op": "hook", "argv": [...], "stdin": "..."}  -> {"code", "stdout", "stderr", "seconds"}
    {"op": "hooks", "argv": [...], "stdin": "...", "count": N}  -> {"runs": [...]}
    {"op": "pids"} -> {"agent": pid, "server": pid}

Usage: fake_agent.py REGISTRY_DIR SERVER_STDERR_FILE
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from typing import Any

ENTRY = [sys.executable, "-m", "jobs_tui.app.cli"]


class Server:
    def __init__(self, registry: str, stderr_path: str) -> None:
        self.stderr = open(stderr_path, "ab")  # noqa: SIM115 - lives as long as the server
        self.process = subprocess.Popen(
            [*ENTRY, "mcp", "--registry-dir", registry],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        self.ids = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "fake-agent", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("the server closed its stdout")
            message = json.loads(line)
            if message.get("id") == self.ids and ("result" in message or "error" in message):
                return message


def run_hook(argv: list[str], stdin: str) -> dict[str, Any]:
    """The hook as the clients run it: `sh -c COMMAND`, input on stdin, output collected."""
    began = time.monotonic()
    done = subprocess.run(
        ["sh", "-c", shlex.join(argv)],
        input=stdin.encode("utf-8", "surrogateescape"),
        capture_output=True,
        timeout=120,
    )
    return {
        "code": done.returncode,
        "stdout": done.stdout.decode("utf-8", "replace"),
        "stderr": done.stderr.decode("utf-8", "replace"),
        "seconds": time.monotonic() - began,
    }


def parallel(argv: list[str], stdin: str, count: int) -> list[dict[str, Any]]:
    runs = [
        subprocess.Popen(
            ["sh", "-c", shlex.join(argv)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(count)
    ]
    answers = []
    for run in runs:
        out, err = run.communicate(stdin.encode(), timeout=120)
        answers.append({"code": run.returncode, "stdout": out.decode(), "stderr": err.decode()})
    return answers


def main() -> int:
    server = Server(sys.argv[1], sys.argv[2])
    for line in sys.stdin:
        step = json.loads(line)
        if step["op"] == "call":
            answer: dict[str, Any] = server.request(
                "tools/call", {"name": step["name"], "arguments": step["arguments"]}
            )
        elif step["op"] == "hook":
            answer = run_hook(step["argv"], step["stdin"])
        elif step["op"] == "hooks":  # several at once, as a client runs parallel hooks
            answer = {"runs": parallel(step["argv"], step["stdin"], step["count"])}
        elif step["op"] == "pids":
            answer = {"agent": __import__("os").getpid(), "server": server.process.pid}
        else:
            break
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    assert server.process.stdin is not None
    server.process.stdin.close()
    server.process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
