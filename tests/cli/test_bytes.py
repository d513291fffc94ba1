"""Issue 9, item 3 (the command line's part): arbitrary bytes in argv never crash a call.

What the registry stores as JSON text (labels, commands, cwd, session names, the
registry directory) is refused with an error naming the flag, before anything starts;
send's TEXT goes to the job as the very bytes typed. Real argv bytes, real processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from .conftest import ENTRY, Cli


def run(cli: Cli, *words: str | bytes, cwd: str | bytes | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [*ENTRY, *words],
        capture_output=True,
        env=cli.env(),
        cwd=cwd or cli.cwd,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    out = done.stdout.decode("utf-8")  # strict: whatever we print is valid UTF-8
    err = done.stderr.decode("utf-8", "replace")
    return done.returncode, out, err


def processes_running(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if marker.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.mark.parametrize(
    ("words", "flag"),
    [
        ((b"start", b"--label", b"build \xff", b"--", b"sleep 777.101"), "--label"),
        ((b"start", b"--", b"sleep 777.102 # caf\xe9"), "COMMAND"),
        ((b"exec", b"--", b"sleep 777.103 # \xff"), "COMMAND"),
        ((b"start", b"--session", b"agent-\xff", b"--", b"sleep 777.104"), "--session"),
        (
            (b"--registry-dir", b"/tmp/reg-\xff", b"start", b"--", b"sleep 777.105"),
            "--registry-dir",
        ),
    ],
)
def test_bytes_the_registry_cannot_hold_are_refused_naming_the_flag(cli: Cli, words, flag):
    code, out, err = run(cli, *words)
    assert code == 2, err
    assert "Traceback" not in err and flag in err
    marker = next(w for w in words if w.startswith(b"sleep")).split()[1].decode()
    time.sleep(0.2)
    assert processes_running(marker) == []  # nothing started
    code, out, err = run(cli, *words[:-2], b"--json", *words[-2:])
    error = json.loads(out)
    assert code == 2 and error["field"] == flag and error["code"] == "usage"
    assert cli.ok("list", "--json").json()["jobs"] == []


def test_a_cwd_that_is_not_utf8_is_refused_for_start_and_exec(cli: Cli, tmp_path):
    odd = os.path.join(os.fsencode(str(tmp_path)), b"dir-\xff")
    os.mkdir(odd)
    for verb in (b"start", b"exec"):
        code, _out, err = run(cli, verb, b"--cwd", odd, b"--", b"sleep 777.106")
        assert code == 2 and "--cwd" in err and "Traceback" not in err
        code, _out, err = run(cli, verb, b"--", b"sleep 777.107", cwd=odd)  # inherited
        assert code == 2 and "--cwd" in err and "Traceback" not in err
    assert processes_running("777.106") == processes_running("777.107") == []
    code, out, err = run(cli, b"list", cwd=odd)  # read-only verbs work there
    assert code == 0 and out.startswith("0 jobs"), err


def test_send_text_reaches_the_job_as_the_bytes_typed(cli: Cli, registry_dir: str):
    cli.ok("start", "--stdin", "--", "cat")
    code, out, err = run(cli, b"send", b"j1", b"caf\xe9 \xff")
    assert code == 0 and "sent 6" in out, err
    code, out, err = run(cli, b"send", b"j1", b"--json", b"--", b"-\xfe-")
    assert code == 0 and json.loads(out)["sent"] == 3, err
    cli.ok("send", "j1", "--eof")
    assert cli("wait", "j1").code == 0
    with open(os.path.join(registry_dir, "j1.log"), "rb") as fh:
        assert fh.read() == b"caf\xe9 \xff\n-\xfe-\n"  # lossless
    shown = cli.ok("logs", "j1").out  # shown sanitized: replacement characters
    assert shown == "caf\ufffd \ufffd\n-\ufffd-\n"


def test_other_bytes_are_errors_or_escaped_never_a_crash(cli: Cli, tmp_path):
    for words in (
        (b"status", b"j\xff"),
        (b"wait", b"j1\xff", b"--json"),
        (b"schema", b"\xff"),
        (b"config", b"\xff"),
        (b"list", b"--\xff"),
        (b"\xff",),
        (b"kill", b"j1", b"--signal", b"\xff"),
    ):
        code, out, err = run(cli, *words)
        assert code == 2 and "Traceback" not in err, (words, err)
        if b"--json" in words:
            assert json.loads(out)["code"] == "usage"
    path = os.path.join(os.fsencode(str(tmp_path)), b"conf-\xff.toml")
    code, out, err = run(cli, b"config", b"init", b"--path", path, b"--json")
    assert code == 0 and os.path.exists(path), err
    assert json.loads(out)["path"] == os.fsdecode(path)  # the exact bytes, escaped in JSON
    code, out, err = run(cli, b"config", b"init", b"--path", path, b"--force")
    assert code == 0 and out.startswith("wrote ") and "\ufffd" in out
