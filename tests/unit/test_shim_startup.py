"""The shim's start-up (issue 10, performance): it is a second interpreter on the critical
path of every start, so it loads only what the first byte needs.

A real shim is started exactly as `launch` starts it, under `-X importtime`, and runs a
real job to its end; what it imported is read from its own report.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine.session.launch import shim_command

# Each of these costs milliseconds before the first byte (json pulls in re and enum, signal
# and socket enum, selectors and array collections.abc, ctypes struct and its own classes).
HEAVY = {
    "json",
    "re",
    "enum",
    "selectors",
    "socket",
    "signal",
    "ctypes",
    "typing",
    "dataclasses",
    "collections",
    "collections.abc",
    "functools",
    "types",
    "array",
    "struct",
    "bisect",
    "subprocess",
    "threading",
    "contextlib",
    "warnings",
    "__future__",
}


def _spec(tmp_path: Path, tty: bool) -> dict:
    base = str(tmp_path / "j1")
    return {
        "id": "j1",
        "command": "echo started",
        "cwd": str(tmp_path),
        "log": base + ".log",
        "previous": base + ".log.1",
        "status": base + ".status",
        "end": base + ".end",
        "socket": base + ".sock",
        "maxLogBytes": 1 << 20,
        "killGraceMs": 500,
        "timeoutMs": None,
        "stdin": tty,
        "tty": tty,
        "cols": 80,
        "rows": 24,
        "ownerPid": None,
        "ownerToken": None,
        "ownerPoll": False,
        "marker": "test:j1",
    }


def _read_all(fd: int, timeout: float) -> bytes:
    chunks = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    raise AssertionError(f"no EOF within {timeout}s: {b''.join(chunks)[-500:]!r}")


def _imports_of_a_shim_run(tmp_path: Path, tty: bool) -> tuple[dict, set[str]]:
    """Start a shim as launch does (plus -X importtime), let its job end; its ready line
    and every module it imported, from start to exit."""
    ready_r, ready_w = os.pipe()
    argv = shim_command(json.dumps({**_spec(tmp_path, tty), "readyFd": ready_w}))
    argv = [argv[0], "-X", "importtime", *argv[1:]]
    err_r, err_w = os.pipe()
    proc = subprocess.Popen(
        argv,
        pass_fds=(ready_w,),
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=err_w,
    )
    os.close(ready_w)
    os.close(err_w)
    try:
        ready = json.loads(_read_all(ready_r, 30))
        report = _read_all(err_r, 30).decode(errors="replace")  # EOF: the shim has exited
    finally:
        os.close(ready_r)
        os.close(err_r)
        proc.wait()
    modules = {
        line.split("|")[-1].strip()
        for line in report.splitlines()
        if line.startswith("import time:") and "imported package" not in line
    }
    return ready, modules


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="-I -S start: Linux")
@pytest.mark.parametrize("tty", [False, True], ids=["pipes", "terminal"])
def test_a_shim_loads_no_heavy_module_from_start_to_exit(tmp_path: Path, tty: bool):
    ready, modules = _imports_of_a_shim_run(tmp_path, tty)
    assert isinstance(ready.get("pid"), int), ready
    assert "jobs_tui.engine.shim.main" in modules  # the report is the shim's, and it is read
    assert sorted(modules & HEAVY) == []
    assert (tmp_path / "j1.status").read_text() == "0"
    assert b"started" in (tmp_path / "j1.log").read_bytes()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="-I -S start: Linux")
def test_the_shim_starts_isolated_without_site():
    # No `site`: no site-packages scan, no editable-install finder (which imports pathlib).
    argv = shim_command("{}")
    assert argv[0] == sys.executable and argv[1:3] == ["-I", "-S"]


# -- the pieces that replace json, selectors, signal and ctypes in the shim --------------

CORPUS = [
    {"id": "j1", "command": "echo 'héllo' \udcff \u2028", "n": -12, "big": 1 << 70},
    {"f": 1.5, "e": 1e-7, "nan": float("nan"), "inf": float("-inf"), "t": True, "z": None},
    {"nested": [[], {}, [1, [2, {"k": 'v\n\t"\\'}]]], "": ""},
    [1, "two", 3.0],
    "a string \x00 with a NUL",
    0,
    None,
]


@pytest.mark.parametrize("value", CORPUS)
def test_shimjson_dumps_as_json_does(value: object):
    from jobs_tui.engine.shim import shimjson

    assert shimjson.dumps(value) == json.dumps(value)
    compact = (",", ":")
    assert shimjson.dumps(value, separators=compact) == json.dumps(value, separators=compact)


@pytest.mark.parametrize("value", CORPUS)
def test_shimjson_loads_what_json_wrote(value: object):
    from jobs_tui.engine.shim import shimjson

    text = json.dumps(value)
    for given in (text, f" \n{text}\t ", text.encode()):
        assert repr(shimjson.loads(given)) == repr(json.loads(given))


@pytest.mark.parametrize(
    "bad", ["", "  ", "{", '{"a": 1} x', '{"a": 1}{}', "[1,]", "nul", '"\\x"', b"\xff", "{'a': 1}"]
)
def test_shimjson_refuses_what_json_refuses(bad: str | bytes):
    from jobs_tui.engine.shim import shimjson

    with pytest.raises(ValueError):
        json.loads(bad)
    with pytest.raises(ValueError):
        shimjson.loads(bad)


def test_shimjson_refuses_what_json_cannot_write():
    from jobs_tui.engine.shim import shimjson

    with pytest.raises(TypeError):
        shimjson.dumps({"a": object()})
    assert shimjson.dumps({"a": [1]}) == '{"a": [1]}'  # a failed call leaves nothing behind
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError):
        shimjson.dumps(loop)


def test_signal_names_are_those_of_the_signal_module():
    from jobs_tui.engine.shim import procs

    for number in range(1, 70):
        try:
            expected = signal.Signals(number).name
        except ValueError:
            expected = f"SIG{number}"
        assert procs.signal_name(number) == expected
    assert procs.signal_number("SIGKILL") == signal.SIGKILL


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(2)")
def test_the_shim_becomes_a_subreaper_and_its_job_gets_a_death_signal():
    # In a child interpreter (prctl changes the calling process): an orphan of ours
    # re-parents to us, the death signal is accepted, a bad option is refused, and
    # `ctypes` itself is never imported.
    code = """
import os, sys, time
from jobs_tui.engine.shim import spawn
top = os.getpid()
assert spawn.set_child_subreaper()
pid = os.fork()
if pid == 0:
    if os.fork():
        os._exit(0)  # the grandchild is orphaned
    time.sleep(0.3)
    os._exit(0 if os.getppid() == top else 3)
os.waitpid(pid, 0)
orphan, status = os.waitpid(-1, 0)  # ours to reap: we are its parent now
assert orphan != pid and os.WEXITSTATUS(status) == 0, status
assert spawn.set_parent_death_signal(9)
assert not spawn._prctl(-1, 0)
print("ok", "ctypes" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == ["ok", "False"], done.stderr


def test_the_poll_selector_reports_as_selectors_does():
    from jobs_tui.engine.shim.server import EVENT_READ, EVENT_WRITE, PollSelector

    sel = PollSelector()
    r, w = os.pipe()
    try:
        sel.register(r, EVENT_READ, "out")
        with pytest.raises(KeyError):
            sel.register(r, EVENT_READ, "again")
        with pytest.raises(KeyError):
            sel.modify(w, EVENT_WRITE, "x")
        assert sel.select(0) == []
        started = time.monotonic()
        assert sel.select(0.05) == [] and time.monotonic() - started >= 0.05
        sel.register(w, EVENT_WRITE, "in")
        assert [(k.data, m) for k, m in sel.select(None)] == [("in", EVENT_WRITE)]
        os.write(w, b"x")
        sel.modify(w, EVENT_READ, "in")  # a write end never reads: nothing for it
        assert [(k.fd, k.data, m) for k, m in sel.select(1)] == [(r, "out", EVENT_READ)]
        assert sel.unregister(w).data == "in" and w not in sel.get_map()
        os.close(w)
        os.read(r, 1)
        ready = sel.select(1)  # a hang-up is readable: the owner reads its EOF
        assert [(k.data, m) for k, m in ready] == [("out", EVENT_READ)]
        assert os.read(r, 1) == b""
        with pytest.raises(KeyError):
            sel.unregister(w)
    finally:
        os.close(r)


def test_a_shim_whose_children_are_all_reaped_knows_its_tree_is_gone_without_a_scan(
    tmp_path: Path,
):
    # A child subreaper with no child left has no descendant either (an orphan would have
    # become its child): the end of a job needs no scan of every process on the machine.
    # In a child interpreter: reaping there must not take this test process's children.
    code = f"""
import os, sys
from jobs_tui.engine.shim import procs
from jobs_tui.engine.shim.main import Shim
spec = {_spec(tmp_path, False)!r}
shim = Shim(spec)
shim.spawn()
while shim.exit_status is None:
    os.waitid(os.P_PID, shim.child_pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped
    shim.reap()
while shim.drain() >= 0:
    pass
def scan(root):
    raise AssertionError("scanned every process")
procs.descendants = scan
print(shim.tree_gone())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == ["True"], done.stderr
    assert (tmp_path / "j1.status").read_text() == "0"
