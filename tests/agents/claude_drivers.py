"""Two ways to drive Claude Code beyond one `claude -p` prompt.

`StreamSession`: `claude -p --input-format stream-json`, one process and several prompts
(the prompt hook runs between them while the MCP server and its jobs stay up).
`Terminal`: the interactive screen in a pseudo-terminal, the only place Claude Code
registers a channel for a server that is not a plugin's.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable
from pathlib import Path

from .claude_box import Sandbox


class StreamSession:
    """`claude -p --input-format stream-json`: one process, several user prompts, so the
    prompt hook runs between them while the MCP server (and its jobs) stays up."""

    def __init__(self, claude: Path, box: Sandbox) -> None:
        self.box = box
        debug = box.home / "claude-debug.log"
        command = [
            str(claude),
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "mcp__jobs",
            "--debug-file",
            str(debug),
        ]
        self.proc = subprocess.Popen(
            command,
            cwd=box.project,
            env=box.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.events: list[dict] = []

    def prompt(self, text: str) -> dict:
        """Send one user prompt; the turn's `result` event (read with a deadline by the
        caller's pytest timeout: Claude Code answers each prompt with one)."""
        assert self.proc.stdin and self.proc.stdout
        message = {"type": "user", "message": {"role": "user", "content": text}}
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            event = json.loads(line)
            self.events.append(event)
            if event.get("type") == "result":
                return event
        raise AssertionError(f"claude ended without a result: {self.close()}")

    def close(self) -> tuple[int, str]:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self.proc.stderr.read() if self.proc.stderr else ""
        return self.proc.returncode, err


class Terminal:
    """Claude Code's interactive screen in a pseudo-terminal (channels exist only there:
    `claude -p` registers them only for plugin servers over its SDK control channel)."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become claude
            try:
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.raw = b""

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if ready:
                try:
                    self.raw += os.read(self.fd, 65536)
                except OSError:
                    return

    def text(self) -> str:
        """What it printed, escapes and all whitespace removed (the screen moves its
        cursor instead of printing spaces), for finding words."""
        plain = re.sub(rb"\x1b\[[0-9;?>=]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b.", b"", self.raw)
        return re.sub(r"\s+", "", plain.decode(errors="replace"))

    def pump_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            self.pump(0.3)
        return predicate()

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())
        self.pump(0.5)
        os.write(self.fd, b"\r")

    def close(self) -> None:
        """End the claude this test started (by its pid), then reap it."""
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            self.pump(0.2)
        else:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)
