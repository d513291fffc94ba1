"""Waiting for input (issue 27, feature 1) with real processes: `read` in sh on a stdin
pipe, `python3 -c 'input()'` on a terminal (the shim's, and ptyprocess's), and the
negatives: a sleep, a read of another pipe, a reader in the terminal's background."""

from __future__ import annotations

import base64
import os
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.engine.procs import inputwait as procs_inputwait
from jobs_tui.engine.shim import inputwait
from jobs_tui.engine.shim.inputwait import InputWatch, prompt_of

from .rawshim import RawShim, spec_for, tree_pids

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
LOOK_S = 1.1  # two looks at least a second apart


def _asked_twice(shim: RawShim) -> dict:
    first = shim.ask({"op": "input"})
    assert first == {"ok": True, "waitingForInput": None, "re": "input"}  # one look: not yet
    time.sleep(LOOK_S)
    return shim.ask({"op": "input"})["waitingForInput"]


def _until_asleep(pid: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
        if raw[raw.rfind(b")") + 2 :].split()[0] == b"S":
            return
        time.sleep(0.02)


def _until_reading(pid: int, timeout: float = 10.0) -> None:
    """Until `pid` sleeps in a read (its interpreter has started)."""
    reads = {str(n) for n in inputwait.machine_reads()}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        call = Path(f"/proc/{pid}/syscall").read_text().split()
        if call and call[0] in reads:
            return
        time.sleep(0.02)


def test_read_in_sh_on_a_stdin_pipe_is_waiting_with_its_prompt(tmp_path: Path):
    spec = spec_for(tmp_path / "reg", "printf 'Password: '; read x; echo got $x", stdin=True)
    shim = RawShim.start(spec)
    try:
        time.sleep(0.2)
        before = int(time.time() * 1000)
        waiting = _asked_twice(shim)
        assert waiting is not None
        assert waiting["pid"] == shim.ready["pid"]  # dash's read builtin: sh itself reads
        assert waiting["fd"] == 0 and waiting["how"] == "syscall"
        assert waiting["prompt"] == "Password: "
        assert before - 1000 <= waiting["since"] <= before + 1000
        data = base64.b64encode(b"hunter2\n").decode()
        assert shim.ask({"op": "send", "data": data})["ok"] is True
        end = shim.end()
        assert end["exitStatus"] == 0
    finally:
        shim.kill()
    assert Path(spec["log"]).read_bytes() == b"Password: got hunter2\n"


def test_python_input_on_the_shims_terminal_is_waiting(tmp_path: Path):
    command = f"{sys.executable} -c 'input(\"name? \")'"
    shim = RawShim.start(spec_for(tmp_path / "reg", command, tty=True, stdin=True))
    try:
        time.sleep(0.5)
        waiting = _asked_twice(shim)
        assert waiting is not None and waiting["fd"] == 0, waiting
        assert waiting["pid"] in tree_pids(shim.ready["pid"])
        assert waiting["prompt"] == "name? "
        shim.ask({"op": "send", "data": base64.b64encode(b"ada\r").decode()})
        assert shim.end()["exitStatus"] == 0
    finally:
        shim.kill()


def test_a_sleep_and_a_read_of_another_pipe_are_not_waiting_for_input(tmp_path: Path):
    other = "import os; r, w = os.pipe(); os.read(r, 1)"
    for index, command in enumerate(["sleep 30", f"{sys.executable} -c '{other}'"]):
        shim = RawShim.start(spec_for(tmp_path / f"reg{index}", command, stdin=True))
        try:
            time.sleep(0.3)
            assert shim.ask({"op": "input"})["waitingForInput"] is None
            time.sleep(LOOK_S)
            assert shim.ask({"op": "input"})["waitingForInput"] is None, command
        finally:
            shim.kill()


def test_a_job_without_stdin_never_waits(tmp_path: Path):
    shim = RawShim.start(spec_for(tmp_path / "reg", "read x; sleep 30"))  # /dev/null: EOF
    try:
        shim.ask({"op": "input"})
        time.sleep(LOOK_S)
        assert shim.ask({"op": "input"})["waitingForInput"] is None
    finally:
        shim.kill()


def test_python_input_on_a_ptyprocess_terminal(tmp_path: Path):
    ptyprocess = pytest.importorskip("ptyprocess")
    child = ptyprocess.PtyProcess.spawn([sys.executable, "-c", "input('? ')"])
    try:
        _until_reading(child.pid)
        target = os.readlink(f"/proc/{child.pid}/fd/0")
        assert target.startswith("/dev/pts/")
        watch = InputWatch(target, tty=True)
        assert watch.sample([child.pid]) is None
        time.sleep(LOOK_S)
        found = watch.sample([child.pid])
        assert found is not None and found.pid == child.pid and found.fd == 0
        assert found.how == "syscall"
        child.write(b"x\r")
        time.sleep(0.3)
        assert watch.sample([child.pid]) is None  # it read: no longer waiting
    finally:
        child.terminate(force=True)


def test_a_background_reader_of_the_terminal_is_not_the_one_waiting():
    ptyprocess = pytest.importorskip("ptyprocess")
    # sh -i gives job control: `sleep` in the foreground, the reader in the background.
    child = ptyprocess.PtyProcess.spawn(["sh", "-c", "sleep 30"])
    try:
        _until_asleep(child.pid)
        target = os.readlink(f"/proc/{child.pid}/fd/0")
        watch = InputWatch(target, tty=True, min_wait_s=0.0)
        # A process asleep in read() but not in the foreground group: the leader's group
        # is the foreground; a helper of another group reading the terminal is not.
        import subprocess

        reader = subprocess.Popen(
            [sys.executable, "-c", "import os; os.read(0, 1)"],
            stdin=os.open(target, os.O_RDWR | os.O_NOCTTY),
            start_new_session=True,
        )
        try:
            _until_reading(reader.pid)
            watch.sample([reader.pid])
            assert watch.sample([reader.pid]) is None
            pipe_watch = InputWatch(target, tty=False, min_wait_s=0.0)  # no group rule
            pipe_watch.sample([reader.pid])
            assert pipe_watch.sample([reader.pid]) is not None
        finally:
            reader.kill()
            reader.wait()
    finally:
        child.terminate(force=True)


def test_where_the_syscall_is_unreadable_the_wchan_says(monkeypatch: pytest.MonkeyPatch):
    import subprocess

    reader = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.buffer.read(1)"], stdin=subprocess.PIPE
    )
    try:
        _until_reading(reader.pid)
        assert reader.stdin is not None
        target = inputwait.pipe_target(reader.stdin.fileno())
        real = inputwait._read
        monkeypatch.setattr(
            inputwait, "_read", lambda p: None if p.endswith("/syscall") else real(p)
        )
        watch = InputWatch(target, tty=False, min_wait_s=0.0)
        watch.sample([reader.pid])
        found = watch.sample([reader.pid])
        assert found is not None and found.how == "wchan" and found.fd == 0
    finally:
        reader.kill()
        reader.wait()


def test_the_prompt_is_the_last_line_said():
    assert prompt_of(b"log line\nPassword: ") == "Password: "
    assert prompt_of(b"Continue? [y/N]\r\n") == "Continue? [y/N]"
    assert prompt_of(b"10%\r50%\rOverwrite? ") == "Overwrite? "
    assert prompt_of(b"") == ""


def test_off_linux_nothing_is_detected(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(inputwait, "LINUX", False)
    assert InputWatch("pipe:[1]", tty=False).sample([os.getpid()]) is None
    assert procs_inputwait.InputWatch is InputWatch  # the session side's name for it
