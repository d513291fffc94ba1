"""`jobs-tui wait ID --port N` (issue 23 D): returns when the job's process tree listens
on that TCP port, as `--until` returns on a line; and `wait --help` says what the exit
status is, so an agent can run `jobs-tui wait j3` as a background shell command."""

from __future__ import annotations

import socket
import time

from tests.listening import free_port, listener

from .conftest import Cli


def test_wait_port_returns_0_once_the_job_listens_and_leaves_it_running(cli: Cli):
    port = free_port()
    cli.ok("start", "--", listener(port, 0.8))
    began = time.monotonic()
    done = cli("wait", "j1", "--port", str(port), "--timeout-ms", "20000")
    took = time.monotonic() - began
    assert done.code == 0, done
    assert f":{port}" in done.err and "listening" in done.err
    assert 0.5 < took < 15, took
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    out = cli("wait", "j1", "--port", str(port), "--json").json()
    assert out["reason"] == "port" and out["exit"] == 0 and out["job"]["status"] == "running"
    assert out["listening"] == {"jobId": "j1", "port": port}


def test_wait_port_times_out_with_124_and_a_job_that_ends_first_gives_its_code(cli: Cli):
    cli.ok("start", "--", "sleep 300")
    cli.ok("start", "--", "sleep 0.3; exit 4")
    port = free_port()
    assert cli("wait", "j1", "--port", str(port), "--timeout-ms", "400").code == 124
    assert cli("wait", "j2", "--port", str(port), "--timeout-ms", "20000").code == 4


def test_wait_port_refuses_a_bad_port_naming_it(cli: Cli):
    cli.ok("start", "--", "sleep 300")
    for bad in ("0", "65536", "http", "-1"):
        done = cli("wait", "j1", "--port", bad, "--json")
        assert done.code == 2 and "--port" in done.err, (bad, done)


def test_wait_help_says_the_exit_status_and_the_port(cli: Cli):
    text = cli.ok("wait", "--help").out
    for words in ("--port", "the job's own code", "128+N", "124", "listens"):
        assert words in text, words
