"""Issue 27 (waiting for input): what one look costs, for a tree of ten processes.

    python -m pytest tests/bench/test_inputwait_bench.py -s -p no:cacheprovider

Two figures: `InputWatch.sample` over the tree's pids (the core: a few /proc reads per
process asleep), and the shim's whole `input` request over its socket (the core plus a
scan of /proc for the tree, and the round trip), for a job of nine sleeps and a `read`.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest
from benchlib import Table, median, p95, publish

from jobs_tui.engine.shim.inputwait import InputWatch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from integration.rawshim import RawShim, spec_for, tree_pids

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc"),
]
LOOKS = 200
TREE = "for i in 1 2 3 4 5 6 7 8 9; do sleep 300 & done; printf 'Password: '; read x"


def _ask(path: str, message: dict) -> tuple[dict, float]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(path)
        t0 = time.perf_counter()
        sock.sendall(json.dumps(message).encode() + b"\n")
        data = b""
        while b"\n" not in data:
            data += sock.recv(65536)
        return json.loads(data.split(b"\n", 1)[0]), time.perf_counter() - t0


def test_one_look_at_a_tree_of_ten(tmp_path: Path) -> None:
    shim = RawShim.start(spec_for(tmp_path / "reg", TREE, stdin=True))
    try:
        deadline = time.monotonic() + 10
        while len(tree_pids(shim.ready["pid"])) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = tree_pids(shim.ready["pid"])
        time.sleep(0.3)
        target = f"/proc/{shim.ready['pid']}/fd/0"
        watch = InputWatch(os.readlink(target), tty=False, min_wait_s=0.0)
        core = []
        for _ in range(LOOKS):
            t0 = time.perf_counter()
            found = watch.sample(pids)
            core.append(time.perf_counter() - t0)
        assert found is not None and found.pid == shim.ready["pid"]
        _ask(shim.spec["socket"], {"op": "input"})  # the first look; the second a second on
        time.sleep(1.1)
        whole = []
        for _ in range(LOOKS):
            reply, spent = _ask(shim.spec["socket"], {"op": "input"})
            whole.append(spent)
        assert reply["waitingForInput"]["prompt"] == "Password: "
    finally:
        shim.kill()
    table = Table(f"issue 27: waiting for input, one look, a tree of {len(pids)} processes")
    table.add(
        "InputWatch.sample (the core)",
        f"{median(core) * 1000:.3f} ms median",
        f"p95 {p95(core) * 1000:.3f} ms",
        "",
        "a few ms",
        p95(core) < 0.005,
    )
    table.add(
        "the shim's input request (scan + core + round trip)",
        f"{median(whole) * 1000:.3f} ms median",
        f"p95 {p95(whole) * 1000:.3f} ms",
        "",
        "a few ms",
        p95(whole) < 0.005,
    )
    publish(table)
