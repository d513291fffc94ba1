"""The shim's control socket: JSON lines in, replies and pushed events out, never blocking.

Part of the shim's poll loop; `handle(client, message)` answers one request. Built on
`_socket`, `select.poll` and `_json` (see shimjson): `socket`, `selectors` and `json`
would import `enum`, `collections` and `re`, milliseconds of every job's start.
"""

import _socket
import os
import select
import sys

from .regdir import RegDir
from .shimjson import dumps, loads

TYPE_CHECKING = False  # not `typing`: the shim imports this module and must start fast
if TYPE_CHECKING:
    from collections.abc import Callable

EVENT_READ = 1  # selectors' values: the loop reads the same masks on every platform
EVENT_WRITE = 2


def encode(message: dict) -> bytes:
    return dumps(message, separators=(",", ":")).encode() + b"\n"


class Key:
    """What the poller holds for one fd (selectors' SelectorKey: fd, events, data)."""

    __slots__ = ("data", "events", "fd")

    def __init__(self, fd: int, events: int, data: object) -> None:
        self.fd, self.events, self.data = fd, events, data


class PollSelector:
    """selectors' interface (fds only) over poll(2): register, modify, unregister,
    get_map, select, close. A hang-up or error counts as readable and writable, as in
    selectors, so its owner reads the EOF or fails its write."""

    def __init__(self) -> None:
        self._poll = select.poll()
        self._keys: dict[int, Key] = {}

    @staticmethod
    def _flags(events: int) -> int:
        return (select.POLLIN if events & EVENT_READ else 0) | (
            select.POLLOUT if events & EVENT_WRITE else 0
        )

    def register(self, fd: int, events: int, data: object = None) -> Key:
        if fd in self._keys:
            raise KeyError(f"{fd} is already registered")
        if not events & (EVENT_READ | EVENT_WRITE):
            raise ValueError(f"invalid events: {events!r}")
        self._poll.register(fd, self._flags(events))
        key = self._keys[fd] = Key(fd, events, data)
        return key

    def modify(self, fd: int, events: int, data: object = None) -> Key:
        if fd not in self._keys:
            raise KeyError(f"{fd} is not registered")
        self._poll.modify(fd, self._flags(events))
        key = self._keys[fd] = Key(fd, events, data)
        return key

    def unregister(self, fd: int) -> Key:
        key = self._keys.pop(fd)  # KeyError if it is not registered, as selectors
        self._poll.unregister(fd)
        return key

    def get_map(self) -> dict[int, Key]:
        return self._keys

    def select(self, timeout: float | None = None) -> list[tuple[Key, int]]:
        if timeout is None:
            wait = -1
        elif timeout <= 0:
            wait = 0
        else:
            wait = -int(-timeout * 1000 // 1)  # rounded up: never wake before the timer
        ready = []
        for fd, flags in self._poll.poll(wait):
            key = self._keys.get(fd)
            if key is None:
                continue
            mask = (EVENT_READ if flags & ~select.POLLOUT else 0) | (
                EVENT_WRITE if flags & ~select.POLLIN else 0
            )
            if mask & key.events:
                ready.append((key, mask & key.events))
        return ready

    def close(self) -> None:
        self._keys.clear()


def make_selector() -> "PollSelector":
    """poll(2) on Linux; elsewhere selectors' choice (macOS's poll cannot watch a PTY)."""
    if sys.platform.startswith("linux"):
        return PollSelector()
    import selectors

    return selectors.DefaultSelector()


class Client:
    def __init__(self, sock: "_socket.socket") -> None:
        self.sock = sock
        self.inbox = b""
        self.outbox = bytearray()
        self.watching = False  # asked for pushed events


class ControlServer:
    def __init__(
        self,
        sel: "PollSelector",
        path: str,
        handle: "Callable[[Client, dict], dict | None]",
        directory: "RegDir | None" = None,
    ) -> None:
        self.sel = sel
        self.path = path
        self.name = os.path.basename(path)
        # The socket's directory, held open: the registry's (given), or the private
        # runtime directory (opened and verified at listen). Bind and unlink go by name
        # in it, so a swapped directory or a planted link never moves either.
        self.dir = directory
        self._own_dir = directory is None
        self.handle = handle
        self.clients: dict[int, Client] = {}
        self.sock: _socket.socket | None = None

    def listen(self) -> None:
        if self.dir is None:
            self.dir = RegDir.open(os.path.dirname(self.path))
        self.dir.unlink(self.name)
        server = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is 0600 from birth
        try:
            self.dir.bind(server, self.name)
        except BaseException:
            server.close()
            raise
        finally:
            os.umask(old)
        server.listen(16)
        server.setblocking(False)
        self.sock = server
        self.sel.register(server.fileno(), EVENT_READ, "accept")

    def accept(self) -> None:
        assert self.sock is not None
        try:
            fd, _ = self.sock._accept()  # close-on-exec (accept4), as socket.accept()
        except BlockingIOError:
            return
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM, 0, fd)
        sock.setblocking(False)
        self.clients[fd] = Client(sock)
        self.sel.register(fd, EVENT_READ, "client")

    def broadcast(self, message: dict) -> None:
        line = encode(message)
        for client in list(self.clients.values()):
            if client.watching:
                self._queue(client, line)

    def on_client(self, fd: int, mask: int) -> None:
        client = self.clients.get(fd)
        if client is None:
            return
        if mask & EVENT_WRITE:
            self._flush(client)
        if not mask & EVENT_READ:
            return
        try:
            data = client.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(client)
            return
        client.inbox += data
        while b"\n" in client.inbox and client.sock.fileno() in self.clients:
            raw, client.inbox = client.inbox.split(b"\n", 1)
            self._answer(client, raw)

    def _answer(self, client: Client, raw: bytes) -> None:
        op = None
        try:
            message = loads(raw)
            if not isinstance(message, dict):
                raise ValueError("a request is a JSON object")
            op = message.get("op")
            reply = self.handle(client, message)
        except Exception as exc:  # a malformed request must not take the shim down
            reply = {"ok": False, "error": f"bad request: {exc}"}
        if reply is not None:
            reply.setdefault("re", op)
            self._queue(client, encode(reply))

    def _queue(self, client: Client, line: bytes) -> None:
        client.outbox += line
        self._flush(client)

    def _flush(self, client: Client) -> None:
        try:
            while client.outbox:
                sent = client.sock.send(client.outbox)
                del client.outbox[:sent]
        except BlockingIOError:
            pass
        except OSError:
            self._drop(client)
            return
        events = EVENT_READ | (EVENT_WRITE if client.outbox else 0)
        self.sel.modify(client.sock.fileno(), events, "client")

    def _drop(self, client: Client) -> None:
        self.clients.pop(client.sock.fileno(), None)
        try:
            self.sel.unregister(client.sock.fileno())
        except (KeyError, ValueError):
            pass
        client.sock.close()

    def close(self) -> None:
        """Send what is queued (briefly), close every client, remove the socket file."""
        for client in list(self.clients.values()):
            try:
                client.sock.setblocking(True)
                client.sock.settimeout(0.5)
                if client.outbox:
                    client.sock.sendall(client.outbox)
            except OSError:
                pass
            client.sock.close()
        self.clients.clear()
        if self.dir is not None and self.sock is not None:  # ours only once we bound it
            self.dir.unlink(self.name, quiet=True)
        if self._own_dir and self.dir is not None:
            self.dir.close()
            self.dir = None
