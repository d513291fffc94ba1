"""The hook's pure core: each client's shapes, the identity rule, the outcome line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jobs_tui.app.hook import proctree, registration
from jobs_tui.app.hook.identity import agent_of, same_process
from jobs_tui.app.hook.proctree import Proc
from jobs_tui.app.hook.reports import pending, wake_running
from jobs_tui.app.hook.shapes import (
    BadInput,
    block_answer,
    context_answer,
    notice_answer,
    parse_input,
)
from jobs_tui.engine.shim import procs

from .inputs import hook_input


@pytest.mark.parametrize(
    ("client", "event", "name"),
    [
        ("claude", "prompt", "UserPromptSubmit"),
        ("claude", "tool", "PostToolUse"),
        ("codex", "prompt", "UserPromptSubmit"),
        ("codex", "tool", "PostToolUse"),
        ("gemini", "prompt", "BeforeAgent"),
        ("gemini", "tool", "AfterTool"),
    ],
)
def test_context_answer_per_client(client: str, event: str, name: str) -> None:
    text = "✗ j4 build · exit 2 · 41.0s · last line: error: x"
    answer = json.loads(context_answer(client, event, text))
    assert answer == {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
    parsed = parse_input(client, event, json.dumps(hook_input(client, event, "/w")).encode())
    assert (parsed.client, parsed.event, parsed.stop_hook_active) == (client, event, False)


@pytest.mark.parametrize("client", ["claude", "codex", "gemini"])
def test_stop_answers_per_client(client: str) -> None:
    assert json.loads(block_answer(client, "why")) == {"decision": "block", "reason": "why"}
    assert json.loads(notice_answer(client, "still j1")) == {"systemMessage": "still j1"}
    raw = json.dumps(hook_input(client, "stop", "/w", stop_hook_active=True)).encode()
    assert parse_input(client, "stop", raw).stop_hook_active is True


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b"", "no hook input"),
        (b"{", "not JSON"),
        (b'"x"', "JSON str"),
        (b'{"hook_event_name": "PostToolUse"}', "'PostToolUse'"),
        (b'{"stop_hook_active": 1}', "stop_hook_active"),
    ],
)
def test_bad_input_is_named(raw: bytes, said: str) -> None:
    with pytest.raises(BadInput, match=said):
        parse_input("claude", "stop", raw)


def _p(pid: int, name: str, token: str | None = None) -> Proc:
    return Proc(pid, 0, token or f"b:{pid}", name)


SHELL, CLAUDE_A, CLAUDE_B = _p(50, "bash"), _p(100, "claude"), _p(200, "claude")


def test_the_agent_is_the_nearest_ancestor_past_launchers() -> None:
    hook_a = [_p(101, "sh"), CLAUDE_A, SHELL]  # claude runs `sh -c <hook>`
    server_a = [CLAUDE_A, SHELL]
    server_b = [CLAUDE_B, SHELL]  # another agent in the same shell
    screen = [SHELL]  # the person's `jobs-tui` in that shell
    wrapped = [_p(102, "uv"), _p(103, "env"), CLAUDE_A, SHELL]  # `env ... uv run jobs-tui mcp`
    mine = agent_of(hook_a)
    assert mine == CLAUDE_A
    assert agent_of(server_a) == mine and agent_of(wrapped) == mine
    assert agent_of(server_b) != mine and agent_of(screen) != mine
    nested = [CLAUDE_B, _p(201, "bash"), CLAUDE_A, SHELL]  # agent B run by A's Bash tool
    assert agent_of(nested) == CLAUDE_B
    assert agent_of([_p(7, "-bash")]) is None  # a login shell is a launcher too


def test_pid_reuse_is_another_process() -> None:
    assert same_process((100, "b:1"), (100, "b:1"))
    assert not same_process((100, "b:1"), (100, "b:2"))
    assert not same_process(None, (100, "b:1"))


def test_proctree_agrees_with_the_engines_start_token() -> None:
    me = proctree.myself()
    assert me is not None and me.token == procs.start_token(os.getpid())
    chain = proctree.ancestors(os.getpid())
    assert chain and chain[0].pid == os.getppid()
    assert proctree.read(2**22 + 12345) is None


def test_pending_and_wake_rules() -> None:
    jobs = [
        {"id": "j1", "status": "failed", "seen": False, "wake": False, "finishedAt": 3},
        {"id": "j2", "status": "exited", "seen": True, "wake": True, "finishedAt": 1},
        {"id": "j3", "status": "killed", "seen": False, "wake": True, "finishedAt": 2},
        {"id": "j4", "status": "running", "seen": False, "wake": True},
        {"id": "j5", "status": "running", "seen": False, "wake": False},
    ]
    assert [j["id"] for j in pending(jobs, False, False)] == ["j3", "j1"]
    assert [j["id"] for j in pending(jobs, True, False)] == ["j3"]
    assert [j["id"] for j in pending(jobs, True, True)] == ["j3", "j1"]
    assert [j["id"] for j in wake_running(jobs, False)] == ["j4"]
    assert [j["id"] for j in wake_running(jobs, True)] == ["j4", "j5"]


def test_the_finish_line_is_the_notifications(tmp_path: Path) -> None:
    from jobs_tui.app.hook.registration import Registration
    from jobs_tui.app.hook.reports import finish_lines
    from jobs_tui.app.mcp.notify import finish_text
    from jobs_tui.engine.records.model import JobRecord

    base = {
        "id": "j4", "label": "build", "command": "make", "cwd": "/", "pid": 5,
        "startedAt": 1_000, "finishedAt": 42_000, "logPath": str(tmp_path / "j4.log"),
        "detached": False, "wake": False, "sessionId": "s", "seen": False,
        "statusPath": None, "startToken": None,
    }  # fmt: skip
    entry = Registration(
        str(tmp_path / "r"), 1, "t", "s", str(tmp_path), "registry-0.json", "persist-0.lock",
        False, None,
    )  # fmt: skip
    for extra in (
        {"status": "failed", "exitCode": 2, "signal": None, "lastLine": "error: \x1b[31mx"},
        {"status": "exited", "exitCode": 0, "signal": None, "lastLine": "ok"},
        {"status": "killed", "exitCode": None, "signal": "SIGTERM", "lastLine": "bye"},
    ):
        job = base | extra
        assert finish_lines(entry, [job]) == [finish_text(JobRecord.from_json(job))]
    assert "\x1b" not in finish_lines(entry, [base | extra])[0]


def test_registration_names_the_server_and_its_agent(tmp_path: Path) -> None:
    """A real child process registers; its registration names this process as its agent
    (the test runner: not a launcher), and it is gone once the child unregisters."""
    code = (
        "import sys, time; from jobs_tui.app.hook.registration import register, unregister;"
        "p = register('mcp-x', sys.argv[1] + '/registry-0a.json', sys.argv[1] + '/persist-0a.lock',"
        " True); print(p, flush=True);"
        "sys.stdin.readline(); unregister(p)"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        path = Path(child.stdout.readline().strip())
        assert (path.stat().st_mode & 0o777, path.parent.stat().st_mode & 0o777) == (0o600, 0o700)
        (entry,) = [e for e in registration.read_all() if e.path == str(path)]
        me = proctree.myself()
        assert me is not None and entry.agent == (me.pid, me.token)
        assert (entry.session_id, entry.registry_dir, entry.wake_on_finish) == (
            "mcp-x",
            str(tmp_path),
            True,
        )
        assert (entry.registry_name, entry.lock_name) == ("registry-0a.json", "persist-0a.lock")
        assert registration.alive(entry)
        child.stdin.write("\n")
        child.stdin.flush()
        child.wait(timeout=30)
        deadline = time.monotonic() + 10
        while path.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not path.exists()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_a_server_without_the_state_variable_is_found_through_home(tmp_path: Path) -> None:
    """Codex gives its servers HOME but no XDG_STATE_HOME: the server registers under
    HOME (making ~/.local/state), and a hook that has the variable looks there too."""
    home = tmp_path / "fresh-home"
    home.mkdir()
    base = {k: v for k, v in os.environ.items() if k != "XDG_STATE_HOME"} | {"HOME": str(home)}
    code = (
        "import sys; from jobs_tui.app.hook.registration import register, unregister;"
        "p = register('mcp-y', sys.argv[1] + '/registry-0b.json', sys.argv[1] + '/persist-0b.lock',"
        " False); print(p, flush=True); sys.stdin.readline(); unregister(p)"
    )
    server = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=base,
    )
    try:
        assert server.stdout is not None and server.stdin is not None
        path = server.stdout.readline().strip()
        assert path.startswith(str(home / ".local" / "state" / "jobs-tui" / "agents")), path
        look = (
            "from jobs_tui.app.hook import registration;"
            "print([e.path for e in registration.read_all()])"
        )
        hook = subprocess.run(
            [sys.executable, "-c", look],
            capture_output=True,
            text=True,
            timeout=60,
            env=base | {"XDG_STATE_HOME": str(tmp_path / "xdg")},
        )
        assert path in hook.stdout, hook
        server.stdin.write("\n")
        server.stdin.flush()
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
