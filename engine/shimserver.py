"""The shim's control socket: JSON lines in, replies and pushed events out, never blocking.

Part of the shim's selector loop; `handle(client, message)` answers one request.
"""

from __future__ import annotations

import json
import os
import selectors
import socket
from collections.abc import Callable


def encode(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


class Client:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.inbox = b""
        self.outbox = bytearray()
        self.watching = False  # asked for pushed events


class ControlServer:
    def __init__(
        self,
        sel: selectors.BaseSelector,
        path: str,
        handle: Callable[[Client, dict], dict | None],
    ) -> None:
        self.sel = sel
        self.path = path
        self.handle = handle
        self.clients: dict[int, Client] = {}
        self.sock: socket.socket | None = None

    def listen(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is 0600 from birth
        try:
            server.bind(self.path)
        finally:
            os.umask(old)
        server.listen(16)
        server.setblocking(False)
        self.sock = server
        self.sel.register(server, selectors.EVENT_READ, "accept")

    def accept(self) -> None:
        assert self.sock is not None
        try:
            sock, _ = self.sock.accept()
        except BlockingIOError:
            return
        sock.setblocking(False)
        self.clients[sock.fileno()] = Client(sock)
        self.sel.register(sock, selectors.EVENT_READ, "client")

    def broadcast(self, message: dict) -> None:
        line = encode(message)
        for client in list(self.clients.values()):
            if client.watching:
                self._queue(client, line)

    def on_client(self, fd: int, mask: int) -> None:
        client = self.clients.get(fd)
        if client is None:
            return
        if mask & selectors.EVENT_WRITE:
            self._flush(client)
        if not mask & selectors.EVENT_READ:
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
            message = json.loads(raw)
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
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if client.outbox else 0)
        self.sel.modify(client.sock, events, "client")

    def _drop(self, client: Client) -> None:
        self.clients.pop(client.sock.fileno(), None)
        try:
            self.sel.unregister(client.sock)
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
        try:
            os.unlink(self.path)
        except OSError:
            pass
