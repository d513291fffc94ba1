"""Issue 23 E: `initialize` is answered before the SDK is imported, and exactly as the SDK
would answer it (`app/mcp/handshake.py`).

The answer is written from static facts (protocol versions, capabilities, server info,
instructions); these tests hold each fact to the SDK's own answer, in process for every
protocol version, and over a real server's stdin, where the SDK's answer to the replayed
`initialize` is compared by the transport itself (a difference is a warning on stderr).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from importlib.metadata import version
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.shared.message import SessionMessage
from mcp_types import methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from jobs_tui.app.mcp import early, handshake
from jobs_tui.app.mcp.server import JobsMcp, Options
from jobs_tui.app.mcp.stdio import _encoded
from jobs_tui.app.mcp.wire import check_line
from jobs_tui.engine import JobManager

from .conftest import ENTRY

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

CLIENTS = {  # what real clients send (their logs), and the SDK's own client
    "claude-code": {"roots": {}, "elicitation": {}},
    "codex": {"elicitation": {"form": {}}, "experimental": {"codex/x": {"on": True}}},
    "gemini": {"roots": {"listChanged": True}},
    "typescript-sdk": {"sampling": {"context": {}, "tools": {}}, "roots": {"listChanged": True}},
    "tasks": {"tasks": {"list": {}, "requests": {"sampling": {"createMessage": {}}}}},
}


def _initialize(protocol: str, capabilities: dict[str, Any], request_id: Any = 1) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": protocol,
            "capabilities": capabilities,
            "clientInfo": {"name": "test", "version": "1.0"},
        },
    }


def test_the_static_facts_are_the_sdks_and_the_packages():
    assert handshake.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    assert handshake.server_version() == version("jobs-tui")


async def _sdk_answers(
    tmp_path: Any,
    requests: list[dict],
    then: dict | None = None,
    vocabulary: str = "job",
    channel: bool = False,
) -> list[dict]:
    """The SDK server of `JobsMcp`, in this process, answering each `initialize` on a
    connection of its own (and `then` after it, whose answer is the last one)."""
    manager = JobManager(cwd=str(tmp_path), registry_dir=str(tmp_path / "registry"))
    answers = []
    for request in requests:
        app = JobsMcp(manager, Options(vocabulary=vocabulary, cwd=str(tmp_path), channel=channel))
        to_server, server_reads = anyio.create_memory_object_stream[Any](4)
        server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](4)
        async with anyio.create_task_group() as group:
            options = app.initialization_options()
            group.start_soon(app.server.run, server_reads, server_writes, options)
            message = check_line(json.dumps(request).encode())
            assert isinstance(message, types.JSONRPCRequest)
            await to_server.send(SessionMessage(message))
            with anyio.fail_after(10):
                answers.append(json.loads(_encoded(await from_server.receive())))
            if then is not None:
                followed = check_line(json.dumps(then).encode())
                assert isinstance(followed, types.JSONRPCRequest)
                await to_server.send(SessionMessage(followed))
                with anyio.fail_after(10):
                    answers.append(json.loads(_encoded(await from_server.receive())))
            await to_server.aclose()
            group.cancel_scope.cancel()
    return answers


@pytest.mark.parametrize("channel", [False, True])
@pytest.mark.parametrize("client", sorted(CLIENTS))
async def test_the_early_answer_is_the_sdks_for_every_protocol_version(tmp_path, client, channel):
    versions = [*HANDSHAKE_PROTOCOL_VERSIONS, "2026-07-28", "1999-01-01"]
    requests = [_initialize(v, CLIENTS[client]) for v in versions]
    for request in requests:
        assert handshake.plain_initialize(request), request
    answers = await _sdk_answers(tmp_path, requests, channel=channel)
    for request, answer in zip(requests, answers, strict=True):
        params = request["params"]
        version_ = handshake.server_version()
        ours = handshake.initialize_result(params["protocolVersion"], version_, channel)
        assert answer == {"jsonrpc": "2.0", "id": 1, "result": ours}
    declared = answers[0]["result"]["capabilities"].get("experimental")
    assert declared == ({"claude/channel": {}} if channel else None)


@pytest.mark.parametrize("vocabulary", ["exec_command", "process"])
async def test_the_early_answer_is_the_sdks_for_each_vocabulary(tmp_path, vocabulary):
    for channel in (False, True):
        request = _initialize("2025-11-25", {})
        (answer,) = await _sdk_answers(tmp_path, [request], vocabulary=vocabulary, channel=channel)
        ours = handshake.initialize_result(
            "2025-11-25", handshake.server_version(), channel, vocabulary
        )
        assert answer["result"] == ours


@pytest.mark.parametrize("channel", [False, True])
@pytest.mark.parametrize("vocabulary", ["job", "exec_command", "process"])
async def test_the_early_tools_list_is_the_sdks(tmp_path, vocabulary, channel):
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    assert early.plain_tools_list(listing) and early.plain_tools_list({**listing, "params": {}})
    answers = await _sdk_answers(
        tmp_path,
        [_initialize("2025-11-25", {})],
        then=listing,
        vocabulary=vocabulary,
        channel=channel,
    )
    assert answers[-1] == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {"tools": handshake.tool_listing(vocabulary, channel)},
    }


def test_a_tools_list_with_a_cursor_or_meta_is_left_to_the_sdk():
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    assert not early.plain_tools_list({**listing, "params": {"cursor": "x"}})
    assert not early.plain_tools_list({**listing, "params": {"_meta": {"other": 1}}})
    assert not early.plain_tools_list({**listing, "id": None})
    assert not early.plain_tools_list({**listing, "method": "tools/call"})


_OBJECT = st.dictionaries(st.text(max_size=5), st.booleans() | st.integers(), max_size=2)
_CAPABILITY = st.fixed_dictionaries(
    {},
    optional={
        "roots": st.fixed_dictionaries({}, optional={"listChanged": st.booleans()}),
        "sampling": st.fixed_dictionaries({}, optional={"context": _OBJECT, "tools": _OBJECT}),
        "elicitation": st.fixed_dictionaries({}, optional={"form": _OBJECT, "url": _OBJECT}),
        "experimental": st.dictionaries(st.text(max_size=8), _OBJECT, max_size=2),
        "extensions": st.dictionaries(st.text(max_size=8), _OBJECT, max_size=2),
        "tasks": st.fixed_dictionaries({}, optional={"list": _OBJECT, "cancel": _OBJECT}),
    },
)
_INFO = st.fixed_dictionaries(
    {"name": st.text(max_size=10), "version": st.text(max_size=10)},
    optional={
        "title": st.text(max_size=10),
        "description": st.text(max_size=10),
        "websiteUrl": st.text(max_size=10),
    },
)


@settings(max_examples=150, deadline=None)
@given(
    capabilities=_CAPABILITY,
    info=_INFO,
    protocol=st.sampled_from([*HANDSHAKE_PROTOCOL_VERSIONS, "2026-07-28", "x"]),
    request_id=st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8),
)
def test_every_initialize_answered_early_is_one_the_sdk_accepts(
    capabilities, info, protocol, request_id
):
    """The early path takes only what the wire check and the SDK's own validation (the
    version surface and the monolith model) would take, so it never says yes where the
    SDK would have answered an error."""
    request = _initialize(protocol, capabilities, request_id)
    request["params"]["clientInfo"] = info
    line = json.dumps(request, ensure_ascii=False).encode()
    if not handshake.plain_initialize(handshake._parsed(line)):
        return  # the SDK's to answer: nothing to hold equal
    assert isinstance(check_line(line), types.JSONRPCRequest)
    methods.validate_client_request("initialize", "2025-11-25", request["params"])
    types.InitializeRequestParams.model_validate(request["params"], by_name=False)


@pytest.mark.parametrize(
    "params",
    [
        {"_meta": {}},
        {"clientInfo": {"name": "x", "version": "1", "icons": [{"src": "a"}]}},
        {"capabilities": {"roots": {"listChanged": "yes"}}},
        {"capabilities": {"sampling": []}},
        {"protocolVersion": 5},
    ],
)
def test_what_the_early_path_does_not_check_is_left_to_the_sdk(params):
    request = _initialize("2025-11-25", {})
    request["params"].update(params)
    assert not handshake.plain_initialize(request)
    assert not handshake.plain_initialize({**_initialize("2025-11-25", {}), "id": True})
    assert not handshake.plain_initialize({**_initialize("2025-11-25", {}), "extra": 1})


def _spawn(cwd: str, registry: str, *options: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*ENTRY, "mcp", "--registry-dir", registry, *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(os.environ),
    )


def _lines(server: subprocess.Popen[bytes], count: int, timeout: float = 30) -> list[dict]:
    assert server.stdout is not None
    found: list[dict] = []
    deadline = time.monotonic() + timeout
    while len(found) < count:
        assert time.monotonic() < deadline, found
        line = server.stdout.readline()
        assert line, found
        message = json.loads(line)
        if "id" in message:
            found.append(message)
    return found


@pytest.mark.parametrize("options", [(), ("--channel",)])
def test_a_pipelined_handshake_then_tools_list_and_a_call(project, options):
    """initialize, initialized, tools/list and a call in one write, before the server has
    loaded: each answered once, with the client's ids, and the SDK agreed with the early
    answer (no warning), with the channel or without."""
    cwd, registry = project
    server = _spawn(cwd, registry, *options)
    assert server.stdin is not None and server.stderr is not None
    try:
        batch = [
            _initialize("2025-06-18", CLIENTS["claude-code"], request_id=0),
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "job_list", "arguments": {}},
            },
        ]
        server.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in batch))
        server.stdin.flush()
        first, *rest = _lines(server, 3)
        assert first["id"] == 0 and first["result"]["protocolVersion"] == "2025-06-18"
        assert first["result"]["serverInfo"]["name"] == "jobs-tui"
        assert first["result"] == handshake.initialize_result(
            "2025-06-18", handshake.server_version(), bool(options)
        )
        by_id = {m["id"]: m for m in rest}
        assert sorted(by_id) == [1, 2]
        assert by_id[1]["result"]["tools"] == handshake.tool_listing("job", bool(options))
        names = {tool["name"] for tool in by_id[1]["result"]["tools"]}
        assert {"job_start", "job_wait", "job_kill", "job_list"} <= names
        assert by_id[2]["result"].get("isError") is not True
        server.stdin.close()
        assert server.wait(timeout=30) == 0
        said = server.stderr.read().decode()
        assert "differs" not in said and "Traceback" not in said, said
        assert server.stdout is not None and server.stdout.read() == b""  # nothing twice
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        for stream in (server.stdin, server.stdout, server.stderr):
            if stream is not None and not stream.closed:
                stream.close()


def test_a_client_that_leaves_after_initialize_gets_its_answer_and_an_ordinary_end(project):
    cwd, registry = project
    done = subprocess.run(
        [*ENTRY, "mcp", "--registry-dir", registry],
        input=json.dumps(_initialize("2025-11-25", {}, "a")).encode() + b"\n",
        capture_output=True,
        cwd=cwd,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == ["a"], answers
    assert b"differs" not in done.stderr


CLAUDE_CODE_INFO = {  # what Claude Code 2.1.197 sends (its cli source: `new Client({...})`)
    "name": "claude-code",
    "title": "Claude Code",
    "version": "2.1.197",
    "description": "Anthropic's agentic coding tool",
    "websiteUrl": "https://claude.com/claude-code",
}


@pytest.mark.parametrize("info", [None, CLAUDE_CODE_INFO])
def test_the_early_answer_does_not_wait_for_the_sdk(project, info):
    """The answer is on stdout before anything heavy is imported (the SDK, pydantic, even
    asyncio): the handshake alone produced it, for Claude Code's own clientInfo too."""
    cwd, _ = project
    request = _initialize("2025-11-25", CLIENTS["claude-code"])
    if info is not None:
        request["params"]["clientInfo"] = info
    code = (
        "import sys\n"
        "from jobs_tui.app.mcp.handshake import answer_early\n"
        "done = answer_early()\n"
        "heavy = sorted(m for m in ('mcp', 'mcp_types', 'pydantic', 'asyncio', 'anyio')"
        " if m in sys.modules)\n"
        "print('HEAVY', heavy, bool(done.expected), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(request).encode() + b"\n",
        capture_output=True,
        cwd=cwd,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert b"HEAVY [] True" in done.stderr, done.stderr
    assert json.loads(done.stdout)["result"]["serverInfo"]["version"] == version("jobs-tui")


def test_a_client_that_closes_stdout_before_the_first_line_ends_the_server(project):
    """The handshake waits for the first line, but not on a stdout nobody reads any more."""
    cwd, registry = project
    server = _spawn(cwd, registry)
    assert server.stdout is not None and server.stderr is not None
    try:
        server.stdout.close()
        code = server.wait(timeout=20)
        said = server.stderr.read().decode()
        assert code == 0 and "Traceback" not in said, said
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        for stream in (server.stdin, server.stderr):
            if stream is not None and not stream.closed:
                stream.close()
