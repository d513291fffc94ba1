"""The `initialize` answer, given before the SDK and the engine are imported (issue 23 E).

Why: importing the SDK (pydantic models for two protocol eras) and the engine takes
0.5-0.8 s, and a client that does not wait that long for the handshake starts its first
turn without our tools. So `answer_early` reads the client's first line itself, and when it
is a plain `initialize` (the shape every client sends: `protocolVersion`, `capabilities`,
`clientInfo`), writes the answer at once, from the facts below, with the standard library
only. Everything else (any other first line, an `initialize` with parts we do not check
here) is left to the SDK, as before: nothing is answered twice or differently.

The protocol stays exact because the SDK still sees the handshake: the line is handed on
to it (`Early.replay`) under a private id, so its session is initialized from the
client's own params; the transport drops the SDK's answer to that id and logs a warning
should it ever differ from ours (`tests/mcp/test_handshake.py` checks it never does).
This module must stay light: no asyncio, no pydantic, no mcp, no engine.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .early import Lines, claim, plain_id, write_all
from .wording import instructions

# the SDK's `mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS` (a test keeps them equal)
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE = HANDSHAKE_VERSIONS[-1]
SERVER_NAME = "jobs-tui"
INSTRUCTIONS = instructions(False)
CHANNEL = "claude/channel"  # Claude Code's experimental capability: finishes as messages
# what the SDK derives from the handlers `server.JobsMcp` registers (a test compares)
CAPABILITIES: dict[str, Any] = {
    "logging": {},
    "resources": {"listChanged": False, "subscribe": True},
    "tools": {"listChanged": False},
}


def capabilities(channel: bool = False) -> dict[str, Any]:
    """The capabilities, with `experimental["claude/channel"]` under `--channel` (a copy)."""
    found = json.loads(json.dumps(CAPABILITIES))
    if channel:
        found["experimental"] = {CHANNEL: {}}
    return found


READ_ONLY = {"list", "status", "logs", "wait", "list_sessions", "strays"}
DESTRUCTIVE = {"kill", "clear", "restart", "kill_session", "down"}
FIRST_LINE_LIMIT = 1 << 20  # a first line longer than this is the SDK's to read
_NAME = re.compile(r"jobs[-_.]tui(?:-[^-]+)?\.(?:dist|egg)-info\Z", re.IGNORECASE)


def server_version() -> str:
    """This distribution's version, as `importlib.metadata.version("jobs-tui")` finds it
    (the first `jobs_tui-*.dist-info` or `.egg-info` on `sys.path`), without importing
    importlib.metadata (40-100 ms: email, zipfile, csv)."""
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            if _NAME.match(name):
                found = _metadata_version(os.path.join(entry or ".", name))
                if found:
                    return found
    from importlib.metadata import PackageNotFoundError, version  # a zip, an odd layout

    try:
        return version("jobs-tui")
    except PackageNotFoundError:
        return "0"


def _metadata_version(directory: str) -> str | None:
    for leaf in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(directory, leaf), encoding="utf-8") as fh:
                for line in fh:
                    if line.startswith("Version:"):
                        return line.partition(":")[2].strip()
                    if not line.strip():
                        break  # the headers end at the first blank line
        except OSError:
            continue
    return None


def initialize_result(
    requested: str, version: str, channel: bool = False, vocabulary: str = "job"
) -> dict[str, Any]:
    """The `result` of `initialize` as the SDK writes it (same keys, same values), for the
    server the flags make (`--channel`, `--tools`)."""
    return {
        "capabilities": capabilities(channel),
        "instructions": instructions(channel, vocabulary),
        "protocolVersion": requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE,
        "serverInfo": {"name": SERVER_NAME, "title": SERVER_NAME, "version": version},
    }


def listed_tool(spec: Any) -> dict[str, Any]:
    """One `tooltable.ToolSpec` as `tools/list` lists it (the SDK's `Tool` is built from
    this, so the early answer and the SDK's are one listing)."""
    tool: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.input_schema,
        "annotations": {
            "title": spec.name,
            "readOnlyHint": spec.target in READ_ONLY,
            "destructiveHint": spec.target in DESTRUCTIVE,
            "openWorldHint": False,
        },
    }
    if spec.output_schema is not None:
        tool["outputSchema"] = spec.output_schema
    return tool


def tool_listing(vocabulary: str, channel: bool = False) -> list[dict[str, Any]] | None:
    """The `tools` of `tools/list` for this vocabulary; None if it cannot be built here
    (then the SDK answers: a listing is never guessed)."""
    try:
        from .tooltable import tool_table

        return [listed_tool(spec) for spec in tool_table(vocabulary, channel).values()]
    except Exception:
        return None


# -- which first lines are answered here ---------------------------------------------
def _strings(value: Any, required: tuple[str, ...], optional: tuple[str, ...]) -> bool:
    """A dict whose keys are these, each a string."""
    if not isinstance(value, dict) or not set(required) <= set(value):
        return False
    return set(value) <= {*required, *optional} and all(isinstance(v, str) for v in value.values())


def _objects(value: Any, names: dict[str, Any]) -> bool:
    """A dict with only these keys, each an object checked by its entry (None: any object)."""
    if not isinstance(value, dict) or not set(value) <= set(names):
        return False
    for key, inner in value.items():
        if not isinstance(inner, dict):
            return False
        check = names[key]
        if check is not None and not check(inner):
            return False
    return True


def _any_objects(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())


def _roots(value: dict[str, Any]) -> bool:
    return set(value) <= {"listChanged"} and all(isinstance(v, bool) for v in value.values())


_TASKS = {
    "list": None,
    "cancel": None,
    "requests": lambda r: _objects(
        r,
        {
            "sampling": lambda s: _objects(s, {"createMessage": None}),
            "elicitation": lambda e: _objects(e, {"create": None}),
        },
    ),
}
# clientInfo's optional string fields (Claude Code sends all three)
_INFO_OPTIONAL = ("title", "description", "websiteUrl")
_CAPABILITIES = {
    "roots": _roots,
    "sampling": lambda s: _objects(s, {"context": None, "tools": None}),
    "elicitation": lambda e: _objects(e, {"form": None, "url": None}),
    "experimental": _any_objects,
    "extensions": _any_objects,
    "tasks": lambda t: _objects(t, _TASKS),
}


def plain_initialize(message: Any) -> bool:
    """An `initialize` request in the shape clients send, which the SDK accepts as it is.

    Deliberately narrow: any field outside it (`_meta`, icons, a capability of another
    type) sends the line to the SDK, which then answers it as it always did."""
    if not isinstance(message, dict) or set(message) != {"jsonrpc", "id", "method", "params"}:
        return False
    if not plain_id(message["id"]):
        return False
    params = message["params"]
    return (
        message["jsonrpc"] == "2.0"
        and message["method"] == "initialize"
        and isinstance(params, dict)
        and set(params) == {"protocolVersion", "capabilities", "clientInfo"}
        and isinstance(params["protocolVersion"], str)
        and _strings(params["clientInfo"], ("name", "version"), _INFO_OPTIONAL)
        and _objects(params["capabilities"], _CAPABILITIES)
    )


def _parsed(line: bytes) -> Any:
    if b"\\u" in line or line.count(b"{") + line.count(b"[") > 32:
        return None  # escapes (a lone surrogate?) or depth: the wire check's to judge
    try:
        return json.loads(line.decode("utf-8"), parse_constant=_refuse)
    except ValueError:  # not UTF-8, not JSON, NaN
        return None


def _refuse(name: str) -> None:
    raise ValueError(name)


# -- the first line ------------------------------------------------------------------
@dataclass
class Early:
    """stdin and stdout as the handshake left them to the transport: claimed (`early.claim`),
    the first line read (and answered when it was a plain `initialize`), stdin's thread
    running (`early.Lines`, which may answer a `tools/list` before the SDK is up)."""

    lines: Lines
    stdout_fd: int
    restore: list[Callable[[], None]] = field(default_factory=list)
    # private id -> the result the client was sent for the request replayed under it
    expected: dict[str, dict[str, Any]] = field(default_factory=dict)

    def give_back(self) -> None:
        """fds 0 and 1 as they were (when the session is over)."""
        for undo in reversed(self.restore):
            with contextlib.suppress(OSError):
                undo()
        self.restore.clear()


def answer_early(channel: bool = False, vocabulary: str = "job") -> Early:
    """Claim stdin and stdout, read the first line, and answer it if it is a plain
    `initialize` (as the server the flags make: `--channel`, `--tools`); stdin's thread then reads
    on (see `early.Lines`).

    Blocks until the first line (clients write `initialize` as soon as they spawn us);
    SIGINT meanwhile is a KeyboardInterrupt, as it is during the imports that follow."""
    restore: list[Callable[[], None]] = []
    stdin_fd = claim(0, sys.stdin, os.O_RDONLY, restore)
    stdout_fd = claim(1, sys.stdout, os.O_WRONLY, restore)
    data, eof = _first_line(stdin_fd, stdout_fd)
    line, newline, rest = data.partition(b"\n")
    message = _parsed(line[:-1] if line.endswith(b"\r") else line) if newline else None
    expected: dict[str, dict[str, Any]] = {}
    prefix = f"jobs-tui-early-{os.getpid()}-{os.urandom(6).hex()}"
    if stdout_fd >= 0 and plain_initialize(message):
        version = server_version()
        requested = message["params"]["protocolVersion"]
        result = initialize_result(requested, version, channel, vocabulary)
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        try:
            write_all(stdout_fd, json.dumps(answer, ensure_ascii=False).encode() + b"\n")
        except OSError:
            pass  # the SDK answers it, and the transport learns stdout is gone
        else:
            expected[prefix] = result
            replayed = {**message, "id": prefix}
            data = json.dumps(replayed, ensure_ascii=False).encode() + b"\n" + rest
    lines = Lines(
        stdin_fd,
        data,
        eof,
        stdout_fd=stdout_fd,
        expected=expected if expected else None,
        private_prefix=prefix,
    )
    return Early(lines.start(), stdout_fd, restore, expected)  # one `expected`, shared


def _first_line(fd: int, out_fd: int) -> tuple[bytes, bool]:
    """(what was read up to and including the first newline or more, whether stdin ended).

    A stdout whose reader left meanwhile (POLLERR, POLLHUP) stops the wait: the
    transport's watcher then ends the session at once, as it does later on."""
    if fd < 0:
        return b"", True
    data = bytearray()
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    if out_fd >= 0:
        poller.register(out_fd, 0)  # errors and hang-ups are reported whatever is asked
    try:
        while b"\n" not in data and len(data) <= FIRST_LINE_LIMIT:
            events = dict(poller.poll())
            if out_fd in events and out_fd != fd:
                return bytes(data), False
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return bytes(data), True
            data += chunk
    except OSError:
        return bytes(data), True
    return bytes(data), False
