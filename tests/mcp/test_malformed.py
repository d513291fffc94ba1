"""Issue 22 §6: every malformed line gets exactly one JSON-RPC error, and the server goes on.

One server process serves the whole table (a server start costs seconds of CPU): each
case sends its line and then a `ping`, and must see exactly one message before the ping's
answer, the error, with the code and id the table says.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .raw import RawServer

PARSE, INVALID = -32700, -32600


def _deep_object(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


def _deep_array(levels: int) -> str:
    return "[" * levels + "]" * levels


def _call(request_id: int, arguments: str) -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"job_list","arguments":{{"x":{arguments}}}}}}}'
    ).encode()


# (name, line, expected code, expected id, a word the message must hold)
CASES: list[tuple[str, bytes, int, object, str]] = [
    ("not-json", b"{this is not json", PARSE, None, "parse"),
    ("empty-line", b"", PARSE, None, "parse"),
    ("truncated", b'{"jsonrpc":"2.0","id":3,"method":"ping"', PARSE, None, "parse"),
    ("trailing-garbage", b'{"jsonrpc":"2.0","id":4,"method":"ping"} x', PARSE, None, "parse"),
    ("not-utf8", b'{"jsonrpc":"2.0","id":5,"method":"\xff\xfe"}', PARSE, None, "UTF-8"),
    ("a-string", b'"just a string"', INVALID, None, "object"),
    ("a-number", b"42", INVALID, None, "object"),
    ("null", b"null", INVALID, None, "object"),
    ("array-of-garbage", b'[1, "garbage", {"x": []}]', INVALID, None, "batch"),
    ("empty-array", b"[]", INVALID, None, "batch"),
    ("no-method", b'{"jsonrpc":"2.0","id":11}', INVALID, 11, "method"),
    ("no-jsonrpc", b'{"id":12,"method":"ping"}', INVALID, 12, "jsonrpc"),
    ("jsonrpc-1.0", b'{"jsonrpc":"1.0","id":13,"method":"ping"}', INVALID, 13, "jsonrpc"),
    ("jsonrpc-number", b'{"jsonrpc":2.0,"id":"s14","method":"ping"}', INVALID, "s14", "jsonrpc"),
    ("method-not-string", b'{"jsonrpc":"2.0","id":"s15","method":5}', INVALID, "s15", "method"),
    ("id-true", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID, None, "id"),
    ("id-object", b'{"jsonrpc":"2.0","id":{"n":17},"method":"ping"}', INVALID, None, "id"),
    ("id-null", b'{"jsonrpc":"2.0","id":null,"method":"ping"}', INVALID, None, "id"),
    ("id-fraction", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', INVALID, 1.5, "id"),
    (
        "params-array",
        b'{"jsonrpc":"2.0","id":20,"method":"ping","params":[1]}',
        INVALID,
        20,
        "params",
    ),
    (
        "result-and-error",
        b'{"jsonrpc":"2.0","id":21,"result":{},"error":{"code":1,"message":"x"}}',
        INVALID,
        21,
        "result",
    ),
    (
        "error-without-code",
        b'{"jsonrpc":"2.0","id":22,"error":{"message":"x"}}',
        INVALID,
        22,
        "code",
    ),
    (
        "lone-surrogate",
        b'{"jsonrpc":"2.0","id":28,"method":"tools/call","params":{"name":"\\ud800"}}',
        INVALID,
        28,
        "surrogate",
    ),
    ("bad-notification", b'{"jsonrpc":"2.0","method":["x"]}', INVALID, None, "method"),
    ("deep-object-199", _call(24, _deep_object(199)), INVALID, 24, "levels"),
    ("deep-array-199", _call(25, _deep_array(199)), INVALID, 25, "levels"),
    ("deep-array-5000", _call(26, _deep_array(5000)), INVALID, 26, "levels"),
    ("deep-unclosed-5000", b"[" * 5000, PARSE, None, "parse"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    root = tmp_path_factory.mktemp("malformed")
    (root / "project").mkdir()
    raw = RawServer(str(root / "project"), str(root / "registry"))
    try:
        raw.initialize()
        yield raw
    finally:
        assert raw.close() == 0


@pytest.mark.parametrize(
    ("line", "code", "request_id", "word"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_malformed_line_gets_one_error_and_the_server_goes_on(
    server: RawServer, line: bytes, code: int, request_id: object, word: str
) -> None:
    server.send(line)
    ping = server.new_id()
    server.send({"jsonrpc": "2.0", "id": ping, "method": "ping"})
    seen = server.until_answer(ping)
    assert len(seen) == 2, f"expected one error before the ping's answer, got {seen[:-1]}"
    error, answer = seen
    assert answer == {"jsonrpc": "2.0", "id": ping, "result": {}}
    assert error["jsonrpc"] == "2.0" and set(error) == {"jsonrpc", "id", "error"}
    assert error["id"] == request_id and type(error["id"]) is type(request_id)
    assert error["error"]["code"] == code, error
    assert word.lower() in error["error"]["message"].lower(), error


def test_a_tool_call_still_works_after_the_table(server: RawServer) -> None:
    for _name, line, *_ in CASES:  # all at once this time, without waiting in between
        server.send(line)
    listed = server.request("tools/call", {"name": "job_list", "arguments": {}})
    assert listed["result"]["structuredContent"]["jobs"] == [], listed
    started = server.request("tools/call", {"name": "job_start", "arguments": {"command": "true"}})
    assert started["result"]["structuredContent"]["job"]["id"] == "j1", started
    shallow = server.request(
        "tools/call", {"name": "job_list", "arguments": {"x": json.loads(_deep_object(20))}}
    )
    assert shallow["result"]["isError"] is True  # within the depth limit: the tool's own answer
    assert "x" in shallow["result"]["content"][0]["text"]
