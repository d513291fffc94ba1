"""A `jobs-tui mcp` subprocess spoken to line by line, bytes in and JSON out.

The SDK's client cannot send a malformed line or close only the server's stdout, so these
tests drive the wire themselves. Reads wait with `select` and a deadline, so a server that
stays silent fails the test instead of hanging it, and no thread sits in a read of the
pipe (a test must be able to close that pipe's read end for real).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from typing import Any

from .conftest import ENTRY

PROTOCOL = "2025-11-25"


class RawServer:
    """One server process; `send` a line, `next` message, `request` and its answer."""

    def __init__(
        self, cwd: str, registry: str, *options: str, env: dict[str, str] | None = None
    ) -> None:
        self.process = subprocess.Popen(
            [*ENTRY, "mcp", "--registry-dir", registry, *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **(env or {})},
        )
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self.stdout_fd = self.process.stdout.fileno()
        self._buffer = b""
        self._ids = 1000

    def send(self, line: bytes | str | object) -> None:
        if isinstance(line, str):
            data = line.encode()
        elif isinstance(line, bytes):
            data = line
        else:
            data = json.dumps(line).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def next(self, timeout: float = 20.0) -> dict[str, Any]:
        """The next line the server wrote, parsed; fails at the deadline or at its EOF."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no message from the server in {timeout}s")
            ready, _, _ = select.select([self.stdout_fd], [], [], remaining)
            if ready:
                chunk = os.read(self.stdout_fd, 1 << 16)
                if not chunk:
                    raise AssertionError(f"the server closed its stdout: {self._buffer!r}")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def new_id(self) -> int:
        self._ids += 1
        return self._ids

    def until_answer(self, request_id: object, timeout: float = 20.0) -> list[dict[str, Any]]:
        """Every message up to and including the answer to `request_id`, notifications left out."""
        seen = []
        while True:
            message = self.next(timeout)
            if "method" in message and "id" not in message:
                continue  # a notification (progress, log): not an answer to anything
            seen.append(message)
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return seen

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        request_id = self.new_id()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.until_answer(request_id)[-1]

    def initialize(self, client: str = "raw") -> dict[str, Any]:
        """The handshake, as a client named `client` (clientInfo.name); its result."""
        answer = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": client, "version": "0"},
            },
        )
        assert "result" in answer, answer
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer["result"]

    def call(
        self, name: str, arguments: dict[str, Any], token: str | None = None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A tools/call (with a progress token if given): its result, and every
        notification the server sent before the answer."""
        request_id = self.new_id()
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if token is not None:
            params["_meta"] = {"progressToken": token}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
        notes = []
        while True:
            message = self.next(60)
            if "method" in message and "id" not in message:
                notes.append(message)
            elif message.get("id") == request_id:
                assert "result" in message, message
                return message["result"], notes

    def wait_in_flight(self, job_id: str, token: str = "w") -> int:
        """Send a `job_wait` with progress and return once it is in flight (its first
        progress notification came): a call the server is busy with. Its request id."""
        wait_id = self.new_id()
        self.send(
            {
                "jsonrpc": "2.0",
                "id": wait_id,
                "method": "tools/call",
                "params": {
                    "name": "job_wait",
                    "arguments": {"id": job_id, "timeoutMs": 60_000},
                    "_meta": {"progressToken": token},
                },
            }
        )
        while self.next().get("method") != "notifications/progress":
            pass
        return wait_id

    def discard(self) -> None:
        """After a test that ended the server its own way: kill it if it lives, reap it,
        close every pipe (one the test closed already is no error)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def close(self, timeout: float = 20.0) -> int:
        """Close stdin (the ordinary end) and reap the server."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            return self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()
