"""The line check and the stdio transport in-process (no server start): edge cases that the
server-level tables in test_malformed.py and test_closed_stdout.py would make expensive."""

from __future__ import annotations

import json
import os
import threading
import time

import anyio
import mcp_types as types
import pytest
from mcp.shared.message import SessionMessage

from jobs_tui.app.mcp.stdio import stdio_transport
from jobs_tui.app.mcp.wire import INVALID_REQUEST, MAX_DEPTH, PARSE_ERROR, Refusal, check_line


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def _request(arguments: str, request_id: str = '"r1"') -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"job_list","arguments":{{"x":{arguments}}}}}}}'
    ).encode()


def test_well_formed_messages_pass_as_the_sdk_types():
    request = check_line(b'{"jsonrpc":"2.0","id":7,"method":"ping"}\r')
    assert isinstance(request, types.JSONRPCRequest) and request.id == 7
    note = check_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert isinstance(note, types.JSONRPCNotification)
    answer = check_line(b'{"jsonrpc":"2.0","id":"s","result":{}}')
    assert isinstance(answer, types.JSONRPCResponse)
    error = check_line(b'{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}')
    assert isinstance(error, types.JSONRPCError)
    sloppy = check_line(b'{"jsonrpc":"2.0","id":8,"method":"ping","params":null}')
    assert isinstance(sloppy, types.JSONRPCRequest)  # taken as before: no params


def test_a_peers_error_with_a_null_id_is_taken_and_never_answered():
    """Answering it could start two peers trading errors forever."""
    assert check_line(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}') is None
    bad = check_line(b'{"jsonrpc":"2.0","id":null,"error":{"message":"x"}}')
    assert isinstance(bad, Refusal) and bad.code == INVALID_REQUEST and bad.id is None


def test_the_depth_limit_is_exact_and_brackets_in_strings_do_not_count():
    envelope = 3  # the message, params, arguments
    inside = MAX_DEPTH - envelope  # arguments.x may nest this many more
    assert isinstance(check_line(_request(_nested(inside))), types.JSONRPCRequest)
    over = check_line(_request(_nested(inside + 1)))
    assert isinstance(over, Refusal) and over.code == INVALID_REQUEST and over.id == "r1"
    assert f"nested {MAX_DEPTH + 1} levels deep" in over.message
    strings = json.dumps("[" * 5000 + "{" * 5000 + '\\"]')
    assert isinstance(check_line(_request(strings)), types.JSONRPCRequest)


def test_a_very_deep_line_is_refused_with_its_id_in_one_pass():
    started = time.perf_counter()
    refused = check_line(_request(_nested(200_000), request_id="42"))
    took = time.perf_counter() - started
    assert isinstance(refused, Refusal) and refused.id == 42
    assert "200003 levels" in refused.message
    assert took < 2.0  # linear: about 0.1 s here
    deep_then_garbage = _request(_nested(100) + " garbage")
    garbled = check_line(deep_then_garbage)
    assert isinstance(garbled, Refusal) and garbled.code == PARSE_ERROR and garbled.id is None


def test_half_a_surrogate_pair_is_refused_and_a_whole_one_taken():
    half = check_line(b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"s":"\\udc00"}}')
    assert isinstance(half, Refusal) and half.code == INVALID_REQUEST and half.id == 9
    in_id = check_line(b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}')
    assert isinstance(in_id, Refusal) and in_id.id is None  # an id that could not be sent back
    whole = check_line(b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"s":"\\ud83d\\ude00"}}')
    assert isinstance(whole, types.JSONRPCRequest) and whole.params == {"s": "\U0001f600"}
    escaped = check_line(b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"s":"\\\\ud800"}}')
    assert isinstance(escaped, types.JSONRPCRequest)  # a backslash, then the letters


@pytest.mark.parametrize(
    "line",
    [
        b"[" * 100 + b'"' + b'\\"a' * 300_000,  # unclosed, quotes escaped: once quadratic
        b"[" * 100 + b'"' + b'\\"a' * 300_000 + b"\\",  # and ending in a lone backslash
        b"[" * 100 + b'"a"' * 300_000,  # many strings
    ],
    ids=["unclosed-string", "unclosed-backslash", "many-strings"],
)
def test_the_depth_scan_is_linear_on_hostile_strings(line):
    started = time.perf_counter()
    refused = check_line(line)
    assert time.perf_counter() - started < 2.0  # about 0.01-0.1 s; quadratic was hours
    assert isinstance(refused, Refusal) and refused.code == PARSE_ERROR


@pytest.mark.parametrize(
    "line",
    [
        b"NaN",
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":Infinity}}',
        b"   ",
        b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}',  # Python's int limit
    ],
    ids=["NaN", "Infinity", "blank", "huge-integer"],
)
def test_what_python_would_parse_but_json_is_not_is_a_parse_error(line):
    refused = check_line(line)
    assert isinstance(refused, Refusal) and refused.code == PARSE_ERROR and refused.id is None


def test_a_refusal_is_one_line_of_json_rpc():
    refused = check_line(b'{"jsonrpc":"2.0","id":"\xc3\xa9t\xc3\xa9","method":5}')
    assert isinstance(refused, Refusal)
    line = refused.line()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    reply = json.loads(line)
    assert reply == {
        "jsonrpc": "2.0",
        "id": "été",
        "error": {"code": INVALID_REQUEST, "message": 'invalid request: "method" must be a string'},
    }


def test_mangled_messages_never_raise_and_every_refusal_is_one_line_of_json():
    """A deterministic fuzz: valid messages cut, spliced and flipped byte by byte."""
    import random

    seeds = [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job_start",'
        b'"arguments":{"command":"echo [\\"{x}\\"]","env":{"A":"\\u00e9"}}}}',
        b'{"jsonrpc":"2.0","id":"a","result":{"content":[[{"b":null}]]}}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}',
        _request(_nested(70)),
    ]
    alphabet = b'{}[]",:\\0123456789.eE+-truefalsnul \xff\xc3'
    rng = random.Random(22)
    for _ in range(3000):
        line = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(line))
            match rng.randrange(3):
                case 0:
                    line[at] = rng.choice(alphabet)
                case 1:
                    del line[at : at + rng.randint(1, 8)]
                case _:
                    line[at:at] = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
        checked = check_line(bytes(line))
        if isinstance(checked, Refusal):
            reply = checked.line()
            assert reply.count(b"\n") == 1 and json.loads(reply)["error"]["code"] == checked.code


class Pipes:
    """A transport's stdin and stdout as pipes this test holds the other ends of."""

    def __init__(self) -> None:
        self.in_read, self.in_write = os.pipe()
        self.out_read, self.out_write = os.pipe()

    async def reply(self, timeout: float = 5.0) -> dict:
        """The next line on stdout, read off the loop (the transport runs on it)."""
        data = b""
        with anyio.fail_after(timeout):
            while not data.endswith(b"\n"):
                data += await anyio.to_thread.run_sync(os.read, self.out_read, 65536)
        return json.loads(data)

    def close(self) -> None:
        for fd in (self.in_write, self.out_read, self.out_write):
            try:
                os.close(fd)
            except OSError:
                pass
        deadline = time.monotonic() + 5  # the reader thread sees EOF, then its fd can go
        while any(t.name == "mcp stdin" and t.is_alive() for t in threading.enumerate()):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        os.close(self.in_read)


async def _ended(stream, seconds: float) -> list:
    """What the read side still delivers, until it ends (it must, within `seconds`)."""
    seen = []
    with anyio.fail_after(seconds):
        async for item in stream:
            seen.append(item)
    return seen


async def test_the_transport_answers_a_bad_line_and_passes_a_good_one_then_ends_at_eof():
    pipes = Pipes()
    try:
        async with stdio_transport(pipes.in_read, pipes.out_write) as wire:
            os.write(pipes.in_write, b'[1]\n{"jsonrpc":"2.0","id":5,"method":"ping"}\n')
            assert (await pipes.reply())["error"]["code"] == INVALID_REQUEST
            with anyio.fail_after(5):
                got = await wire.read_stream.receive()
            assert isinstance(got, SessionMessage) and got.message.id == 5
            answer = types.JSONRPCResponse(jsonrpc="2.0", id=5, result={})
            await wire.write_stream.send(SessionMessage(answer))
            assert await pipes.reply() == {"jsonrpc": "2.0", "id": 5, "result": {}}
            os.close(pipes.in_write)
            assert await _ended(wire.read_stream, 2.0) == []
            assert wire.stdout_gone is None
    finally:
        pipes.close()


@pytest.mark.parametrize("watch", [True, False], ids=["watched", "next-write"])
async def test_a_closed_stdout_ends_the_read_side_within_a_second(watch):
    """Watched, the close alone ends it; unwatched, the next write does (both paths)."""
    pipes = Pipes()
    try:
        async with stdio_transport(pipes.in_read, pipes.out_write, watch=watch) as wire:
            os.close(pipes.out_read)
            closed = time.monotonic()
            if not watch:
                await wire.write_stream.send(SessionMessage(_note()))
            assert await _ended(wire.read_stream, 1.0) == []
            took = time.monotonic() - closed
            assert wire.stdout_gone == "closed by the client" and not wire.failed
            await wire.write_stream.send(SessionMessage(_note()))  # taken, and dropped
    finally:
        pipes.close()
    assert took < 1.0


def _note() -> types.JSONRPCNotification:
    return types.JSONRPCNotification(jsonrpc="2.0", method="notifications/message")


async def test_a_reply_that_cannot_be_encoded_becomes_its_requests_internal_error():
    pipes = Pipes()
    try:
        async with stdio_transport(pipes.in_read, pipes.out_write) as wire:
            bad = types.JSONRPCResponse(jsonrpc="2.0", id=3, result={"text": "a\ud800"})
            await wire.write_stream.send(SessionMessage(bad))
            reply = await pipes.reply()
            assert reply["id"] == 3 and reply["error"]["code"] == -32603
            await wire.write_stream.send(SessionMessage(_note()))  # and the wire goes on
            assert (await pipes.reply())["method"] == "notifications/message"
    finally:
        pipes.close()


async def test_a_write_error_that_is_not_the_client_leaving_marks_the_transport_failed():
    pipes = Pipes()
    full = os.open("/dev/full", os.O_WRONLY)  # every write: ENOSPC
    try:
        async with stdio_transport(pipes.in_read, full, watch=False) as wire:
            await wire.write_stream.send(SessionMessage(_note()))
            assert await _ended(wire.read_stream, 1.0) == []
            assert wire.failed and "No space left" in (wire.stdout_gone or "")
    finally:
        os.close(full)
        pipes.close()


async def test_a_std_stream_closed_at_start_is_never_claimed_and_ends_the_session():
    """Python makes sys.stdin/sys.stdout None when fd 0/1 were closed at start; that fd
    may since name one of the engine's files, so it is left alone and -1 served."""
    from jobs_tui.app.mcp.early import claim as _claim

    restore: list = []
    assert _claim(0, None, os.O_RDONLY, restore) == -1 and restore == []
    async with stdio_transport(-1, -1, watch=False) as wire:
        assert await _ended(wire.read_stream, 1.0) == []  # no stdin: EOF at once
        await wire.write_stream.send(SessionMessage(_note()))
        with anyio.fail_after(1.0):  # taken by the sender, then written by the thread
            while wire.stdout_gone is None:
                await anyio.sleep(0.01)
        assert wire.failed and "Bad file descriptor" in wire.stdout_gone


async def test_a_client_closing_stdin_then_stdout_is_an_ordinary_end_with_no_warning(caplog):
    pipes = Pipes()
    try:
        async with stdio_transport(pipes.in_read, pipes.out_write) as wire:
            os.close(pipes.in_write)
            assert await _ended(wire.read_stream, 2.0) == []
            os.close(pipes.out_read)
            with anyio.fail_after(1.0):
                while wire.stdout_gone is None:
                    await anyio.sleep(0.01)
            assert wire.stdin_closed and not wire.failed
    finally:
        pipes.close()
    assert "ending the session" not in caplog.text
