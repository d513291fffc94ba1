"""The stdio transport of `jobs-tui mcp`: every line answered, and a dead stdout ends it.

Why not the SDK's `stdio_server` as it is (issue 22): it drops a line it cannot validate
(the client waits forever; `wire.check_line` answers it here), and a failed write ends
only its writer task: the server reads on, every later write (a `job_wait`'s progress) is
swallowed, and the session and its jobs live until stdin closes, which a client that
closed only our stdout may never do. Here the stdout is watched (`poll` reports a pipe
whose reader left at once, with no write needed) and written by one thread; either seeing
it gone ends the read side, which the server takes as a closed stdin: in-flight calls
are cancelled, and `serve` closes the session and its non-detached jobs.

Like the SDK, fds 0 and 1 are moved aside while serving (0 reads /dev/null, 1 writes to
stderr) so a stray read or print cannot touch the wire; the wire is served from private
duplicates. Both ends are read and written by daemon threads, so a read blocked on a
stdin that never closes can never hold up the process's exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import queue
import select
import sys
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from .early import Lines, claim
from .handshake import Early
from .wire import INTERNAL_ERROR, Refusal, check_line

logger = logging.getLogger("jobs_tui.mcp")

_CLIENT_LEFT = {errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN, errno.ESHUTDOWN}


@dataclass
class Transport:
    """The server's two streams, and why stdout ended the session if it did."""

    read_stream: MemoryObjectReceiveStream[SessionMessage | Exception]
    write_stream: MemoryObjectSendStream[SessionMessage]
    stdout_gone: str | None = None
    stdout_error: OSError | None = None
    stdin_closed: bool = False
    interrupted: bool = False
    reading: anyio.CancelScope = field(default_factory=anyio.CancelScope)

    @property
    def failed(self) -> bool:
        """A write error that is not the client leaving (a full disk, an I/O error)."""
        return self.stdout_error is not None and self.stdout_error.errno not in _CLIENT_LEFT

    def end(self, why: str, error: OSError | None = None) -> None:
        """Stdout is gone: stop reading, so the server ends as on a closed stdin."""
        if self.stdout_gone is not None:
            return
        self.stdout_gone, self.stdout_error = why, error
        if not self.stdin_closed or self.failed:  # a client closing both is no news
            logger.warning("stdout %s: ending the session", why)
        self.reading.cancel()

    def interrupt(self) -> None:
        """SIGINT: end as on a closed stdin (in-flight calls cancelled, the session closed
        with its jobs); a second SIGINT while that runs changes nothing."""
        self.interrupted = True
        self.reading.cancel()


@dataclass
class Interrupt:
    """The SIGINT handler of the server's whole async life (Claude Code sends SIGINT first
    on every shutdown). Before the transport is up it is remembered (the session opens
    only to close); then it ends the transport. It stays installed until the loop closes,
    so a second SIGINT cannot cut short the close that kills the session's jobs."""

    seen: bool = False
    transport: Transport | None = None

    def __call__(self) -> None:
        if not self.seen:
            logger.warning("interrupted (SIGINT): ending the session")
        self.seen = True
        if self.transport is not None:
            self.transport.interrupt()

    def serving(self, transport: Transport) -> None:
        self.transport = transport
        if self.seen:
            transport.interrupt()


@contextlib.asynccontextmanager
async def stdio_transport(
    stdin_fd: int | None = None,
    stdout_fd: int | None = None,
    *,
    watch: bool = True,
    early: Early | None = None,
) -> AsyncIterator[Transport]:
    """Serve over the process's stdin and stdout (or the fds given, used in place);
    `watch=False` leaves a closed stdout to be found by the next write alone. `early` is
    what `handshake.answer_early` read (and perhaps answered) before: read first."""
    restore: list[Callable[[], None]] = []
    try:
        if early is None:
            if stdin_fd is None:
                stdin_fd = claim(0, sys.stdin, os.O_RDONLY, restore)
            if stdout_fd is None:
                stdout_fd = claim(1, sys.stdout, os.O_WRONLY, restore)
            lines, expected = Lines(stdin_fd).start(), {}
        else:
            lines, stdout_fd, expected = early.lines, early.stdout_fd, early.expected
        async with _serving(lines, stdout_fd, watch, expected) as transport:
            yield transport
    finally:
        for undo in reversed(restore):
            with contextlib.suppress(OSError):
                undo()


@contextlib.asynccontextmanager
async def _serving(
    lines: Lines, stdout_fd: int, watch: bool, expected: dict[str, dict[str, Any]]
) -> AsyncIterator[Transport]:
    loop = asyncio.get_running_loop()
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    transport = Transport(read_receive, write_send)
    lines.attach(loop)  # nothing is answered early from here on: the writer's turn
    writer = _Writer(stdout_fd, loop)
    threads = [threading.Thread(target=writer.run, name="mcp stdout")]
    wake: int | None = None
    if watch and stdout_fd >= 0:  # -1 (closed at start): its first write says so
        wake_read, wake = os.pipe()
        gone = _gone_callback(transport)
        args = (stdout_fd, wake_read, loop, gone)
        threads.append(threading.Thread(target=_watch, args=args, name="mcp stdout watch"))
    for thread in threads:
        thread.daemon = True
        thread.start()

    async def write(data: bytes) -> None:
        if transport.stdout_gone is not None or not data:
            return  # discarded: nobody reads it, and the server is ending
        try:
            await writer.write(data)
        except OSError as exc:
            why = "closed by the client" if exc.errno in _CLIENT_LEFT else f"failed: {exc}"
            transport.end(why, exc)

    async def read() -> None:
        async with read_send:
            with transport.reading:
                while (line := await lines.get()) is not None:
                    checked = _checked(line[:-1] if line.endswith(b"\n") else line)
                    if isinstance(checked, Refusal):
                        logger.debug("refused a line: %s", checked.message)
                        await write(checked.line())
                    elif checked is not None:
                        await read_send.send(SessionMessage(checked))
                transport.stdin_closed = True

    async def send() -> None:
        async with write_receive:
            async for message in write_receive:  # drained to the end, even once stdout is gone
                answered = _answer_id(message) if expected else None
                if answered is not None and answered in expected:
                    _compare_early(message, expected.pop(answered))  # the client has ours
                    continue
                await write(_encoded(message))

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(send)
            try:
                yield transport
            finally:
                group.cancel_scope.cancel()
    finally:
        lines.stop()
        writer.stop()
        if wake is not None:
            with contextlib.suppress(OSError):  # EPIPE: the watcher has already returned
                os.write(wake, b"x")
            os.close(wake)  # the watcher closes the read end when it returns


def _checked(line: bytes) -> types.JSONRPCMessage | Refusal | None:
    """`check_line`, and should it ever raise, an internal error: one line, one answer."""
    try:
        return check_line(line)
    except Exception as exc:
        logger.exception("could not check a line")
        return Refusal(INTERNAL_ERROR, f"internal error: {type(exc).__name__} checking the line")


def _encoded(message: SessionMessage) -> bytes:
    """One message as its line; one that cannot be written (a lone surrogate a handler
    echoed) becomes the internal error of its request, so no caller waits forever."""
    try:
        text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
        return text.encode() + b"\n"
    except Exception as exc:  # the transport must outlive any one message
        logger.error("could not write a %s: %s", type(message.message).__name__, exc)
        answer = message.message
        if not isinstance(answer, types.JSONRPCResponse | types.JSONRPCError) or answer.id is None:
            return b""
        request_id = answer.id
        why = f"internal error: the reply could not be encoded ({type(exc).__name__})"
        return Refusal(INTERNAL_ERROR, why, request_id).line()


def _answer_id(message: SessionMessage) -> str | None:
    answer = message.message
    replies = types.JSONRPCResponse | types.JSONRPCError
    return answer.id if isinstance(answer, replies) and isinstance(answer.id, str) else None


def _compare_early(message: SessionMessage, result: dict[str, Any]) -> None:
    """The SDK's answer to a replayed request must be the one the client got early."""
    import json

    try:
        sent = json.loads(_encoded(message) or b"null")
    except ValueError:
        sent = None
    if not isinstance(sent, dict) or sent.get("result") != result:
        logger.warning(
            "an early answer differs from the SDK's (please report): sent %s, the SDK's %s",
            json.dumps(result, sort_keys=True)[:4000],
            json.dumps(sent, sort_keys=True)[:4000],
        )


def _gone_callback(transport: Transport) -> Callable[[], None]:
    return lambda: transport.end("closed by the client")


class _Writer:
    """The one thread that writes stdout: whole messages in order, a write error returned."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self.fd = fd
        self.loop = loop
        self.queue: queue.SimpleQueue[tuple[bytes, asyncio.Future[None]] | None] = (
            queue.SimpleQueue()
        )

    async def write(self, data: bytes) -> None:
        done = self.loop.create_future()
        self.queue.put((data, done))
        await done

    def stop(self) -> None:
        self.queue.put(None)

    def run(self) -> None:
        while (item := self.queue.get()) is not None:
            data, done = item
            error: OSError | None = None
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view) :]
            except OSError as exc:
                error = exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                self.loop.call_soon_threadsafe(_settle, done, error)


def _settle(done: asyncio.Future[Any], error: OSError | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


def _watch(fd: int, wake: int, loop: asyncio.AbstractEventLoop, gone: Callable[[], None]) -> None:
    """Thread: tell the loop the moment stdout has no reader (POLLERR on a pipe, POLLHUP on a
    socket or a hung-up terminal). A regular file or /dev/null never reports either."""
    poller = select.poll()
    poller.register(fd, 0)  # errors and hang-ups are reported whatever is asked
    poller.register(wake, select.POLLIN)
    try:
        while True:
            for ready, events in poller.poll():
                if ready == wake:
                    return
                if events & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
                    with contextlib.suppress(RuntimeError):
                        loop.call_soon_threadsafe(gone)
                    return
    finally:
        os.close(wake)
