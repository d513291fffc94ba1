"""Who ended a job (issue 27, feature 3) with real processes: a memory hog under a small
memory cgroup limit (where the test can make one), and an outside `kill -9`."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine.procs import oom
from jobs_tui.engine.records.endedby import EndFacts, ended_by
from jobs_tui.engine.registry.exitfiles import read_exit
from jobs_tui.engine.registry.paths import RegistryPaths
from jobs_tui.engine.registry.reconcile import who_ended
from jobs_tui.engine.shim import procs

from .rawshim import RawShim, spec_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
HOG = f"{sys.executable} -c 'x = bytearray(400 << 20); print(len(x))'"


def _memory_cgroup(name: str) -> Path | None:
    """A child of our memory cgroup with a 32 MiB limit: v2 (memory.max) or v1
    (memory.limit_in_bytes), wherever one may be made here; None if none can."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            base, limit = Path("/sys/fs/cgroup") / path.lstrip("/"), "memory.max"
            if "memory" not in (base / "cgroup.controllers").read_text(errors="replace"):
                continue
        elif "memory" in controllers.split(","):
            base, limit = Path("/sys/fs/cgroup/memory") / path.lstrip("/"), "memory.limit_in_bytes"
        else:
            continue
        child = base / name
        try:
            child.mkdir()
            (child / limit).write_text(str(32 << 20))
            swap = child / "memory.memsw.limit_in_bytes"
            if swap.exists():
                try:
                    swap.write_text(str(32 << 20))
                except OSError:
                    pass
            return child
        except OSError:
            if child.exists():
                child.rmdir()
            continue
    return None


def test_counters_are_read_from_either_cgroup_version(tmp_path: Path):
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 2\noom_kill 2\n")
    v1 = tmp_path / "v1"
    v1.mkdir()
    (v1 / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 5\n")
    assert oom.cgroup_kills(str(v2)) == 2 and oom.cgroup_kills(str(v1)) == 5
    assert oom.cgroup_kills(str(tmp_path)) is None and oom.cgroup_kills(None) is None
    assert isinstance(oom.machine_kills(), int)


def test_the_end_field_reads_back_or_is_none():
    assert oom.from_end({"oomKill": {"source": "cgroup", "kills": 1}}) == oom.OomKill("cgroup", 1)
    assert oom.from_end({"oomKill": {"source": "cgroup", "kills": 1}}).certain
    for bad in (
        {},
        {"oomKill": 1},
        {"oomKill": {"source": "x", "kills": 1}},
        {"oomKill": {"source": "machine", "kills": 0}},
    ):
        assert oom.from_end(bad) is None


def test_a_memory_hog_under_a_small_limit_is_ended_by_the_kernel(tmp_path: Path):
    group = _memory_cgroup(f"jobs-tui-test-oom-{os.getpid()}")
    if group is None:
        pytest.skip("no memory cgroup can be made here (not root, or no delegation)")
    try:
        command = f"echo $$ > {group}/cgroup.procs; exec {HOG}"
        shim = RawShim.start(spec_for(tmp_path / "reg", command))
        end = shim.end(timeout=60)
        assert end["exitStatus"] == -9, end
        found = oom.from_end(end)
        assert found is not None and found.kills >= 1
        assert oom.cgroup_kills(str(group)) >= 1  # the limit's own counter says so too
        got = ended_by(
            EndFacts(signal=end["signal"], reason=end["reason"], oom_source=found.source)
        )
        assert got.by == "kernel-oom"
        assert got.words().startswith("killed · SIGKILL · by the kernel: out of memory")
        # and as a session settles it: the end file read back, the record's endedBy
        info = read_exit(RegistryPaths(str(tmp_path / "reg")), "j1", shim.spec["status"])
        assert info is not None and info.oom_source == found.source
        assert who_ended(info, procs.signal_name).by == "kernel-oom"
    finally:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.05)


def test_an_outside_kill_9_is_from_outside_and_no_oom(tmp_path: Path):
    shim = RawShim.start(spec_for(tmp_path / "reg", "sleep 300"))
    time.sleep(0.2)
    os.kill(shim.ready["pid"], signal.SIGKILL)
    end = shim.end()
    assert end["signal"] == "SIGKILL" and end["reason"] == "exit"
    assert "oomKill" not in end
    got = ended_by(EndFacts(signal=end["signal"], reason=end["reason"], oom_source=None))
    assert got.by == "outside"
    info = read_exit(RegistryPaths(str(tmp_path / "reg")), "j1", shim.spec["status"])
    assert info is not None and info.oom_source is None and info.door is None
    assert who_ended(info, procs.signal_name) == got
    assert got.words() == "killed · SIGKILL · from outside (sender unknown)"
