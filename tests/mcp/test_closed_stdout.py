"""Issue 22 §6: a client that closes only the server's stdout ends the session, and its jobs.

The reproduction: the client closes its read end of the server's stdout in the middle of
a `job_wait` that sends progress; the server used to swallow the failed writes and wait
on (20 s and counting), its job with it.
"""

from __future__ import annotations

import json
import time

from .raw import RawServer
from .test_server import _tree, _wait_gone


def test_closing_the_servers_stdout_mid_wait_ends_it_and_its_job(project):
    cwd, registry = project
    server = RawServer(cwd, registry)
    try:
        server.initialize()
        started = server.request(
            "tools/call", {"name": "job_start", "arguments": {"command": "sleep 60; true"}}
        )
        job = started["result"]["structuredContent"]["job"]
        read = server.request("resources/read", {"uri": f"jobs://job/{job['id']}"})
        tree = _tree(json.loads(read["result"]["contents"][0]["text"])["job"]["pid"])
        wait_id = server.new_id()
        server.send(
            {
                "jsonrpc": "2.0",
                "id": wait_id,
                "method": "tools/call",
                "params": {
                    "name": "job_wait",
                    "arguments": {"id": "j1", "timeoutMs": 60_000},
                    "_meta": {"progressToken": "w1"},
                },
            }
        )
        while server.next().get("method") != "notifications/progress":
            pass  # the wait is in flight and writing progress
        assert server.process.stdout is not None
        server.process.stdout.close()  # the read end: the server's next write has no reader
        closed = time.monotonic()
        code = server.process.wait(timeout=20)
        took = time.monotonic() - closed
        assert took < 2.0, f"the server took {took:.2f}s to notice its stdout closed"
        for pid in tree:  # the session's job (its whole tree) ended with it
            assert _wait_gone(pid, max(0.1, 2.0 - (time.monotonic() - closed))), pid
        assert server.process.stderr is not None
        said = server.process.stderr.read().decode()
        assert code == 0, said
        assert "stdout" in said and "ending the session" in said, said
    finally:
        if server.process.poll() is None:
            server.process.kill()
        server.process.wait()
        for stream in (server.process.stdin, server.process.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
