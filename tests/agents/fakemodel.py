"""A scripted fake model server on 127.0.0.1, for driving real agent clients offline.

The agent tests run the clients people use (Claude Code, Codex, Gemini CLI, opencode)
against a model that is a few lines of Python: it answers on 127.0.0.1 only, keeps every
request's JSON body (the request log, where a test finds what the client showed the model:
the tools it listed, each tool result, the hook context), and decides each reply with a
per-test *script*, a function that sees the conversation so far and returns the next
reply (text, tool calls, or both).

This module is API-neutral. A *speaker* (fake_anthropic.py for the Messages API; others
for OpenAI Responses, Gemini, chat completions) turns a request body into a neutral
`Turn` (messages of text, tool calls and tool results) and a `Reply` back into that API's
wire format, streaming or not. Anything the speaker does not know is still logged (with
`known=False`) and answered by the speaker's fallback, so a client's unexpected call shows
up in the log instead of hanging the test.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

# --- the request log -------------------------------------------------------------------


@dataclass
class Request:
    """One HTTP request as the client sent it (body parsed when it is JSON)."""

    index: int
    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    body: Any = None
    known: bool = True
    at: float = field(default_factory=time.monotonic)
    wall: float = field(default_factory=time.time)  # to compare with a record's times

    def strings(self) -> Iterator[str]:
        """Every string in the body (keys excluded), depth first: what a model would read."""
        yield from _strings(self.body)

    def has(self, text: str) -> bool:
        """Whether some string of the body contains `text` (JSON escapes undone)."""
        return any(text in s for s in self.strings())

    def lines_with(self, text: str) -> list[str]:
        """The lines (of the body's strings) that contain `text`, for a test's report."""
        return [line for s in self.strings() for line in s.splitlines() if text in line]


def strings_of(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (keys excluded), depth first."""
    return _strings(value)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


class RequestLog:
    """Every request the fake model got, in order; thread-safe, with waits by deadline."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._entries: list[Request] = []

    def add(self, request: Request) -> None:
        with self._lock:
            self._entries.append(request)
            self._lock.notify_all()

    def next_index(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def entries(self) -> list[Request]:
        with self._lock:
            return list(self._entries)

    def __len__(self) -> int:
        return len(self.entries)

    def paths(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.entries]

    def unknown(self) -> list[Request]:
        return [r for r in self.entries if not r.known]

    def find(
        self, text: str, start: int = 0, where: Callable[[Request], bool] | None = None
    ) -> Request | None:
        """The first request from index `start` on whose body has `text` (and `where` holds)."""
        for r in self.entries[start:]:
            if (where is None or where(r)) and r.has(text):
                return r
        return None

    def wait_for(
        self, predicate: Callable[[Request], bool], timeout: float, start: int = 0
    ) -> Request | None:
        """The first request from `start` on that satisfies `predicate`, waiting up to `timeout`."""
        deadline = time.monotonic() + timeout
        seen = start
        with self._lock:
            while True:
                for r in self._entries[seen:]:
                    if predicate(r):
                        return r
                seen = max(seen, len(self._entries))
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._lock.wait(left)

    def dump(self, limit: int = 4000) -> str:
        """A short listing of the log, for an assertion message."""
        out = []
        for r in self.entries:
            text = json.dumps(r.body, ensure_ascii=False) if r.body is not None else repr(r.raw)
            out.append(f"#{r.index} {r.method} {r.path} known={r.known} {text[:300]}")
        return "\n".join(out)[-limit:]


# --- the neutral conversation ----------------------------------------------------------


@dataclass
class ToolCall:
    """A call the model makes (or made, earlier in the conversation)."""

    name: str
    arguments: dict[str, Any]
    id: str = ""


@dataclass
class ToolResult:
    """A tool's result as the client sent it back; `name` is resolved from the call id."""

    call_id: str
    text: str
    is_error: bool = False
    name: str = ""


@dataclass
class Message:
    """One message of the conversation: role `user`, `assistant` (or `system`)."""

    role: str
    text: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)


@dataclass
class Turn:
    """What the script sees: the conversation so far, the tools offered, the raw request."""

    request: Request
    messages: list[Message]
    tools: list[str]
    system: str = ""
    stream: bool = False
    main: bool = True  # the agent's own conversation, not a side call (title, summary...)

    def calls(self) -> list[ToolCall]:
        return [c for m in self.messages for c in m.calls]

    def results(self) -> list[ToolResult]:
        """Every tool result so far, in order, each named after the call it answers."""
        names = {c.id: c.name for c in self.calls()}
        out = []
        for m in self.messages:
            for r in m.results:
                out.append(
                    ToolResult(r.call_id, r.text, r.is_error, r.name or names.get(r.call_id, ""))
                )
        return out

    def last_result(self, name: str | None = None) -> ToolResult | None:
        """The latest result (of tool `name` when given; a suffix match, as clients prefix)."""
        for r in reversed(self.results()):
            if name is None or r.name == name or r.name.endswith(name):
                return r
        return None

    def user_texts(self) -> list[str]:
        return [m.text for m in self.messages if m.role == "user" and m.text]

    def has(self, text: str) -> bool:
        """Whether anything the client sent in this request contains `text`."""
        return self.request.has(text)


@dataclass
class Reply:
    """The model's next message: text, then tool calls (none means the turn ends)."""

    text: str = ""
    calls: list[ToolCall] = field(default_factory=list)

    @staticmethod
    def say(text: str) -> Reply:
        return Reply(text=text)

    @staticmethod
    def call(name: str, text: str = "", **arguments: Any) -> Reply:
        return Reply(text=text, calls=[ToolCall(name, arguments)])


Script = Callable[[Turn], Reply]


def side_reply(turn: Turn) -> Reply:
    """The default answer to a client's side call (a title, a quota probe): a short text."""
    return Reply.say("ok")


# --- the server and its speaker --------------------------------------------------------


@dataclass
class Response:
    """An HTTP answer: a body of bytes, or chunks to stream (then the connection closes)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | Iterable[bytes] = b""

    @staticmethod
    def json(value: Any, status: int = 200) -> Response:
        data = json.dumps(value).encode()
        return Response(status, {"content-type": "application/json"}, data)


class Speaker(Protocol):
    """One model API: parses a request into a Turn, renders a Reply into that API's answer."""

    def respond(self, model: FakeModel, request: Request) -> Response:
        """Answer `request`; set `request.known = False` for a path this API does not have."""
        ...


class FakeModel:
    """The server: `with FakeModel(speaker, script) as model:` serves on `model.url`."""

    def __init__(
        self,
        speaker: Speaker,
        script: Script,
        side: Script = side_reply,
        host: str = "127.0.0.1",
    ) -> None:
        self.speaker = speaker
        self.script = script
        self.side = side
        self.log = RequestLog()
        self.errors: list[str] = []  # a script's exceptions (the client got an end of turn)
        self.turns: list[Turn] = []
        self._ids = itertools.count(1)
        self._counter = itertools.count()
        self._httpd = _QuietServer((host, 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):04d}"

    def decide(self, turn: Turn) -> Reply:
        """The script's (or side script's) reply; an exception is kept and ends the turn."""
        self.turns.append(turn)
        try:
            return (self.script if turn.main else self.side)(turn)
        except Exception:
            self.errors.append(traceback.format_exc())
            return Reply.say("(fake model: the script failed)")

    def main_turns(self) -> list[Turn]:
        return [t for t in self.turns if t.main]

    def start(self) -> FakeModel:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        raw = _read_body(handler)
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
        request = Request(
            index=next(self._counter),
            method=handler.command,
            path=handler.path,
            headers={k.lower(): v for k, v in handler.headers.items()},
            raw=raw,
            body=body,
        )
        try:
            response = self.speaker.respond(self, request)
        except Exception:
            self.errors.append(traceback.format_exc())
            response = Response.json({"error": {"type": "fake_model_error"}}, 500)
        self.log.add(request)
        _write(handler, response)


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up (a CONNECT answered 404, a killed agent) is no error here."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(model: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            model._handle(self)

        # CONNECT too: a test that points HTTPS_PROXY here sees any call meant for the
        # outside world in the log (as an unknown path) instead of it reaching the network.
        do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_CONNECT = do_GET

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the request log is the record; stderr stays quiet

    return Handler


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                handler.rfile.readline()
                break
            parts.append(handler.rfile.read(size))
            handler.rfile.readline()
        return b"".join(parts)
    length = int(handler.headers.get("content-length") or 0)
    return handler.rfile.read(length) if length else b""


def _write(handler: BaseHTTPRequestHandler, response: Response) -> None:
    try:
        handler.send_response(response.status)
        for k, v in response.headers.items():
            handler.send_header(k, v)
        if isinstance(response.body, bytes):
            handler.send_header("content-length", str(len(response.body)))
            handler.end_headers()
            if handler.command != "HEAD":
                handler.wfile.write(response.body)
            return
        handler.send_header("cache-control", "no-cache")
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.close_connection = True
        for chunk in response.body:
            handler.wfile.write(chunk)
            handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        handler.close_connection = True
