"""stdin and stdout of `jobs-tui mcp` from the first moment: claimed, and read by one thread
that starts before the SDK is imported (issue 23 E).

`claim` moves fds 0 and 1 aside (0 reads /dev/null, 1 writes to stderr) so a stray read
or print cannot touch the wire, and serves it from private duplicates. `Lines` is the
thread that reads stdin for the whole session. Until the transport attaches it to the
event loop, it keeps the lines (at most `LINES_AHEAD`) and answers a plain `tools/list`
itself, from the listing `offer_tools` gave it, as `handshake` answered `initialize`: the
line is still handed to the SDK under a private id, and the transport compares and drops
the SDK's answer. So a client that lists the tools right after the handshake has them in
about the time of the handshake, not after the SDK's 0.5 s of imports.

Standard library only, as `handshake`: asyncio is imported by the loop, not here.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import threading
from collections.abc import Callable
from typing import Any

LINES_AHEAD = 16  # lines read ahead of the server: a flooding client waits, memory doesn't grow
TOOLS_WAIT_S = 10.0  # how long a tools/list waits for the listing before the SDK gets it


def claim(fd: int, stream: Any, mode: int, restore: list[Callable[[], None]]) -> int:
    """A private, blocking duplicate of fd, and fd pointed elsewhere until `restore` runs.

    An fd that was closed when the process started (Python's sys stream is then None, and
    the fd may since name one of the engine's files) is never touched: -1 is served
    instead, whose first read is EOF and whose first write fails, ending the session."""
    try:
        if stream is None or stream.fileno() != fd:
            return -1
        private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    except (OSError, ValueError, AttributeError):
        return -1
    with contextlib.suppress(OSError):  # a launcher's O_NONBLOCK would read as EOF here
        os.set_blocking(private, True)
    try:
        aside = os.open(os.devnull, mode) if mode == os.O_RDONLY else os.dup(2)
    except OSError:
        return private  # not diverted: a stray print could reach the wire, nothing worse
    try:
        os.dup2(aside, fd)
    except OSError:
        return private
    finally:
        os.close(aside)
    # the private fd is never closed: a daemon thread may still block on it
    restore.append(lambda: os.dup2(private, fd))
    return private


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def plain_id(request_id: Any) -> bool:
    """A request id every client and the SDK read alike: a string, or an integer that
    survives a JavaScript number (a bool is no id)."""
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return False
    return not (isinstance(request_id, int) and abs(request_id) >= 2**53)


def _plain_params(params: Any) -> bool:
    """No params, empty ones, or only a `_meta.progressToken`: Codex 0.171 sends
    `{"_meta": {"progressToken": 0}}` with its tools/list, and a listing answered at once
    has no progress to report, so the token changes nothing of the answer."""
    if params in (None, {}):
        return True
    if not isinstance(params, dict) or set(params) != {"_meta"}:
        return False
    meta = params["_meta"]
    if not isinstance(meta, dict) or not set(meta) <= {"progressToken"}:
        return False
    return "progressToken" not in meta or plain_id(meta["progressToken"])


def plain_tools_list(message: Any) -> bool:
    """`tools/list` with no params, empty ones or only a progress token: the only form
    answered early (a cursor, or anything else, goes to the SDK)."""
    if not isinstance(message, dict) or not {"jsonrpc", "id", "method"} <= set(message):
        return False
    if not set(message) <= {"jsonrpc", "id", "method", "params"}:
        return False
    if not plain_id(message["id"]):
        return False
    return (
        message["jsonrpc"] == "2.0"
        and message["method"] == "tools/list"
        and _plain_params(message.get("params"))
    )


class Lines:
    """stdin's lines, read by a thread that never waits on the loop: it waits for room
    (at most `LINES_AHEAD` lines ahead of the server) and then only on stdin itself."""

    def __init__(
        self,
        fd: int,
        replay: bytes = b"",
        eof: bool = False,
        *,
        stdout_fd: int = -1,
        expected: dict[str, Any] | None = None,
        private_prefix: str = "",
    ) -> None:
        self.fd = fd
        self.replay = replay  # read from stdin already (the handshake's first line)
        self.eof = eof
        self.stdout_fd = stdout_fd
        # private id -> the result the client was sent (None: nothing answered early)
        self.expected = expected
        self.private_prefix = private_prefix
        self.loop: Any = None
        self.queue: Any = None
        self.backlog: list[bytes | None] = []
        self.lock = threading.Lock()
        self.room = threading.Semaphore(LINES_AHEAD)
        self.stopped = False
        self.tools: list[dict[str, Any]] | None = None
        self.tools_ready = threading.Event()
        self.early_answers = 0
        self.thread = threading.Thread(target=self.run, name="mcp stdin", daemon=True)

    def start(self) -> Lines:
        self.thread.start()
        return self

    def offer_tools(self, tools: list[dict[str, Any]] | None) -> None:
        """The tools/list result's `tools` (None: none to offer, the SDK answers)."""
        self.tools = tools
        self.tools_ready.set()

    def attach(self, loop: Any) -> None:
        """From the loop's thread: from now on every line goes to `get`, none is answered."""
        import asyncio

        with self.lock:
            self.queue = asyncio.Queue()
            for line in self.backlog:
                self.queue.put_nowait(line)
            self.backlog = []
            self.loop = loop
        self.tools_ready.set()  # a tools/list waiting for the listing goes to the SDK

    async def get(self) -> bytes | None:
        """The next line, None at EOF."""
        line = await self.queue.get()
        self.room.release()
        return line

    def stop(self) -> None:
        self.stopped = True
        self.room.release()

    def run(self) -> None:
        try:
            self._read_all()
        finally:  # whatever ended it (EOF, an error, even a bug), the server sees EOF
            self._deliver(None)

    def _deliver(self, line: bytes | None) -> bool:
        with self.lock:
            if self.loop is None and line is not None:
                line = self._early(line)  # may wait for the listing, and the loop attach
            if self.loop is None:
                self.backlog.append(line)
                return True
            loop, queue = self.loop, self.queue
        try:
            loop.call_soon_threadsafe(queue.put_nowait, line)
        except RuntimeError:  # the loop is closed: nobody reads any more
            return False
        return True

    def _read_all(self) -> None:
        try:
            stream = io.BufferedReader(_Replayed(self.replay, self.fd, self.eof))
        except (OSError, ValueError):  # -1: stdin was closed when the process started
            return
        while True:
            self.room.acquire()
            if self.stopped:
                return
            try:
                line = stream.readline()
            except (OSError, ValueError):
                return
            if not line or not self._deliver(line):
                return

    def _early(self, line: bytes) -> bytes:
        """Under the lock, before the loop: answer a plain tools/list; the line to replay."""
        if self.expected is None or b"tools/list" not in line:
            return line
        try:
            message = json.loads(line)
        except ValueError:
            return line
        if not plain_tools_list(message):
            return line
        self.lock.release()  # the listing is being built: the loop may attach meanwhile
        try:
            self.tools_ready.wait(TOOLS_WAIT_S)
        finally:
            self.lock.acquire()
        if self.tools is None or self.loop is not None:
            return line
        result = {"tools": self.tools}
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        try:
            write_all(self.stdout_fd, json.dumps(answer, ensure_ascii=False).encode() + b"\n")
        except OSError:
            self.expected = None  # stdout is gone: the transport will learn it so
            return line
        self.early_answers += 1
        private = f"{self.private_prefix}-tools-{self.early_answers}"
        self.expected[private] = result
        return json.dumps({**message, "id": private}, ensure_ascii=False).encode() + b"\n"


class _Replayed(io.RawIOBase):
    """stdin, after the bytes the handshake already read from it (read first)."""

    def __init__(self, replay: bytes, fd: int, eof: bool) -> None:
        super().__init__()
        self.pending = memoryview(replay)
        self.raw = None if eof else open(fd, "rb", buffering=0, closefd=False)  # noqa: SIM115

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.pending:
            count = min(len(buffer), len(self.pending))
            buffer[:count] = self.pending[:count]
            self.pending = self.pending[count:]
            return count
        if self.raw is None:
            return 0
        return self.raw.readinto(buffer)
