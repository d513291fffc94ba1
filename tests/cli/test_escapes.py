"""Issue 9, item 10: strings from registry files never reach a terminal raw.

A peer's registry file is planted with a label and a signal holding ESC sequences,
BEL, an 8-bit CSI and a bidi override; `list`, `status` and `wait` show them
sanitized, and `--json` escapes them (a parser still reads the original back).
"""

from __future__ import annotations

import hashlib
import json
import os
import time

from .conftest import Cli

LABEL = "evil\x1b]0;pwned\x07 \x1b[31mred\x9b2J\u202etxt.exe\x07\x7f\x85end"
SIGNAL = "SIG\x1b[2JKILL\x9b31m\u202e\x07"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\x7f", "\x85")


def plant_peer(registry_dir: str) -> None:
    os.makedirs(registry_dir, mode=0o700, exist_ok=True)
    now = int(time.time() * 1000)

    def record(number: int, **fields) -> dict:
        base = {
            "id": f"j{number}",
            "label": LABEL,
            "command": "sleep 1",
            "cwd": "/",
            "pid": None,
            "status": "killed",
            "exitCode": None,
            "signal": SIGNAL,
            "startedAt": now - 5000,
            "finishedAt": now - 1000,
            "logPath": os.path.join(registry_dir, f"j{number}.log"),
            "detached": False,
            "wake": False,
            "sessionId": "evil",
            "seen": True,
            "lastLine": LABEL,
            "statusPath": None,
            "startToken": None,
        }
        return {**base, **fields}

    data = {
        "version": 1,
        "sessionId": "evil",
        "counter": 3,
        "persistent": True,
        "jobs": [record(1), record(2, status="failed", exitCode=3, signal=None)],
    }
    name = f"registry-{hashlib.sha1(b'evil').hexdigest()[:16]}.json"
    path = os.path.join(registry_dir, name)
    with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as fh:
        json.dump(data, fh)
    for number in (1, 2):
        with open(os.open(os.path.join(registry_dir, f"j{number}.log"), os.O_CREAT, 0o600)):
            pass


def assert_clean(text: str) -> None:
    for ch in RAW:
        assert ch not in text, (ch, text)
    assert all(ch == "\n" or ch >= " " for ch in text), repr(text)


def test_list_status_and_wait_show_a_peers_fields_sanitized(cli: Cli, registry_dir: str):
    plant_peer(registry_dir)
    listed = cli.ok("list", "--all")
    assert_clean(listed.out + listed.err)
    assert "evil" in listed.out and "end" in listed.out and listed.out.count("peer") >= 2
    for verb in ("status", "wait"):
        for job in ("j1", "j2"):
            result = cli(verb, job)
            assert_clean(result.out + result.err)
            assert "evil" in result.out, result
    killed = cli.ok("status", "j1").out
    assert "SIG" in killed and "KILL" in killed
    assert cli("wait", "j1").code in (125, 1)  # a signal name that is no signal: not a code
    assert cli("wait", "j2").code == 3
    default = cli.ok()  # no verb, off a terminal: the rows
    assert_clean(default.out + default.err)


def test_json_escapes_c1_and_bidi_and_keeps_the_text(cli: Cli, registry_dir: str):
    plant_peer(registry_dir)
    calls = (("list", "--all", "--json"), ("status", "j1", "--json"), ("wait", "j2", "--json"))
    for words in calls:
        result = cli(*words)
        assert_clean(result.out + result.err)
        parsed = json.loads(result.out)
        record = parsed["jobs"][0] if "jobs" in parsed else parsed["job"]
        assert record["label"] == LABEL  # lossless for a program
        assert "\\u009b" in result.out and "\\u202e" in result.out
