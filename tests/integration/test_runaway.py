"""Output running away (issue 27, feature 4) in a real shim: the repeat note on a flood of
one line, and the output cap stopping (SIGSTOP, then resumed) or killing the job."""

from __future__ import annotations

import json
import re
import socket
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine.session.launch import LaunchError

from .rawshim import RawShim, spec_for, states, tree_pids

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")

COUNTED = (
    "i=0; while [ $i -lt 800 ]; do "
    'echo "attempt $i: ECONNREFUSED 127.0.0.1:5432"; i=$((i+1)); done; echo done'
)


def test_a_flood_of_one_line_is_noted_once_with_its_count(tmp_path: Path):
    spec = spec_for(
        tmp_path / "reg", "yes 'ECONNREFUSED 127.0.0.1:5432' | head -n 200000", repeatLimit=1000
    )
    shim = RawShim.start(spec)
    end = shim.end()
    assert end["exitStatus"] == 0
    assert end["repeating"] == {
        "line": "ECONNREFUSED 127.0.0.1:5432",
        "count": 200_000,
        "since": end["repeating"]["since"],
        "ongoing": True,
        "approx": False,
    }
    assert abs(end["repeating"]["since"] - time.time() * 1000) < 60_000
    assert end["bytes"] == 200_000 * 28


def test_counts_in_the_line_are_masked_and_a_watcher_is_told(tmp_path: Path):
    spec = spec_for(tmp_path / "reg", "sleep 0.5; " + COUNTED, repeatLimit=500)
    shim = RawShim.start(spec)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(20)
        sock.connect(spec["socket"])
        sock.sendall(b'{"op": "watch"}\n')
        events, data = [], b""
        while not any(e.get("ev") == "exit" for e in events):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
            *lines, data = data.split(b"\n")
            events += [json.loads(line) for line in lines if line]
    noted = [e for e in events if e.get("ev") == "repeating"]
    assert len(noted) == 1, events
    assert noted[0]["repeating"]["line"] == "attempt 0: ECONNREFUSED 127.0.0.1:5432"
    assert 500 <= noted[0]["repeating"]["count"] <= 800  # the count when the read ended
    end = shim.end()
    assert end["repeating"]["count"] == 800 and end["repeating"]["ongoing"] is False
    assert end["repeating"]["approx"] is False  # within the line budget: counted exactly


def test_no_option_no_fields(tmp_path: Path):
    shim = RawShim.start(spec_for(tmp_path / "reg", "yes x | head -n 5000"))
    end = shim.end()
    assert "repeating" not in end and "outputLimit" not in end


def _until(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_the_cap_stops_the_job_and_a_resume_lets_it_finish(tmp_path: Path):
    total = 20_000_000
    spec = spec_for(
        tmp_path / "reg",
        f"head -c {total} /dev/zero; echo finished",
        maxOutputBytes=1 << 20,
        onLimit="stop",
    )
    shim = RawShim.start(spec)
    try:
        assert _until(lambda: shim.ask({"op": "state"}).get("outputLimit", {}).get("stopped"))
        state = shim.ask({"op": "state"})
        limit = state["outputLimit"]
        assert limit["maxBytes"] == 1 << 20 and limit["onLimit"] == "stop"
        assert limit["atBytes"] >= 1 << 20 and limit["reachedAt"] is not None
        assert state["running"] is True
        pids = tree_pids(shim.ready["pid"])
        assert _until(lambda: set(states(pids)) == {"T"}), states(pids)
        time.sleep(0.3)
        assert shim.ask({"op": "state"})["bytes"] < total  # it writes nothing while stopped
        bad = shim.ask({"op": "resume", "maxOutputBytes": 5})
        assert bad["ok"] is False and "more than" in bad["error"]
        assert states(pids) and set(states(pids)) == {"T"}  # a refused resume changes nothing
        assert shim.ask({"op": "resume"}) == {"ok": True, "maxOutputBytes": None, "re": "resume"}
        end = shim.end()
    finally:
        shim.kill()
    assert end["exitStatus"] == 0 and end["bytes"] == total + len("finished\n")
    assert end["outputLimit"]["stopped"] is False and end["outputLimit"]["maxBytes"] is None


def test_a_resume_of_a_job_not_stopped_is_refused(tmp_path: Path):
    shim = RawShim.start(spec_for(tmp_path / "reg", "sleep 30", maxOutputBytes=10))
    try:
        reply = shim.ask({"op": "resume"})
        assert reply["ok"] is False and reply["error"] == "not stopped by its output limit"
        assert shim.ask({"op": "state"})["outputLimit"]["reachedAt"] is None
    finally:
        shim.kill()
    plain = RawShim.start(spec_for(tmp_path / "r2", "sleep 30"))
    try:
        assert plain.ask({"op": "resume"})["ok"] is False  # no option: nothing to resume
    finally:
        plain.kill()


def test_a_kill_reaches_a_stopped_job(tmp_path: Path):
    spec = spec_for(tmp_path / "reg", "yes", maxOutputBytes=1 << 20)
    shim = RawShim.start(spec)
    assert _until(lambda: shim.ask({"op": "state"}).get("outputLimit", {}).get("stopped"))
    reply = shim.ask({"op": "kill", "signal": "SIGTERM", "graceMs": 5000})
    assert reply["ok"] is True
    end = shim.end(timeout=4)  # TERM arrives at once: the tree is continued with it
    assert end["signal"] == "SIGTERM" and end["reason"] == "kill"


def test_the_cap_kills_when_asked_to(tmp_path: Path):
    spec = spec_for(tmp_path / "reg", "yes", maxOutputBytes=1 << 20, onLimit="kill")
    shim = RawShim.start(spec)
    end = shim.end()
    assert end["reason"] == "output-limit" and end["signal"] == "SIGKILL"
    assert end["exitStatus"] == -9
    assert end["outputLimit"]["atBytes"] >= 1 << 20 and end["outputLimit"]["stopped"] is False
    assert end["bytes"] < 16 << 20  # it went no further than a few reads past the cap


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"repeatLimit": 1}, "repeatLimit 1: a whole number, at least 2"),
        ({"repeatLimit": "10"}, "repeatLimit '10'"),
        ({"maxOutputBytes": -5}, "maxOutputBytes -5"),
        ({"maxOutputBytes": 10, "onLimit": "pause"}, "onLimit 'pause': one of stop, kill"),
    ],
)
def test_bad_options_are_refused_before_anything_runs(tmp_path: Path, extra: dict, words: str):
    marker = tmp_path / "ran"
    spec = spec_for(tmp_path / "reg", f"touch {marker}", **extra)
    with pytest.raises(LaunchError, match=re.escape(words)):
        RawShim.start(spec)
    assert not marker.exists()
