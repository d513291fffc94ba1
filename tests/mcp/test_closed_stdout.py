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
        server.wait_in_flight("j1")
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
        server.discard()
