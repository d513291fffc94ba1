"""`jobs-tui hook EVENT --client CLIENT` run the way agent clients run it (issue 23 D).

Each test has a fake agent client process (`fake_agent.py`) that spawns its own
`jobs-tui mcp` over stdio, starts jobs through `tools/call`, and runs the hook as its
own child through `sh -c` with the client's hook input on stdin.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .agents import ENTRY, FakeAgent, records, settled
from .inputs import EVENT_NAMES, hook_input

# Claude Code in the default run; the same path for the others under -m slow (their shapes
# are checked one by one, cheaply, in test_hook_core)
PER_CLIENT = [
    "claude",
    pytest.param("codex", marks=pytest.mark.slow),
    pytest.param("gemini", marks=pytest.mark.slow),
]
FAILED_LINE = re.compile(r"✗ j1 build · exit 2 · \d+(\.\d+)?s · last line: boom")


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    return tmp_path / "registry"


@pytest.fixture
def agent(registry: Path, tmp_path: Path) -> Iterator[FakeAgent]:
    one = FakeAgent(registry, tmp_path, "a")
    try:
        yield one
    finally:
        one.close()


def context_of(client: str, event: str, run) -> str:
    """The additional context a hook's answer adds, checked against the client's shape."""
    assert run.code == 0, run
    answer = run.answer
    assert set(answer) == {"hookSpecificOutput"}, answer
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == EVENT_NAMES[client][event]
    assert set(specific) == {"hookEventName", "additionalContext"}
    return specific["additionalContext"]


@pytest.mark.parametrize("client", PER_CLIENT)
def test_finishes_reach_the_context_once(
    agent: FakeAgent, registry: Path, tmp_path: Path, client: str
) -> None:
    cwd = str(tmp_path)
    agent.start("sleep 0.2; echo boom; exit 2", label="build")
    second = agent.start("sleep 30", label="serve")
    settled(registry, "j1")
    prompt = agent.hook("prompt", client, hook_input(client, "prompt", cwd))
    text = context_of(client, "prompt", prompt)
    assert len(FAILED_LINE.findall(text)) == 1, text
    assert "j2" not in text  # still running: nothing to say of it
    again = agent.hook("tool", client, hook_input(client, "tool", cwd))
    assert (again.code, again.stdout) == (0, ""), again  # reported once
    agent.call("job_kill", id=second)  # its result shows the end: that is its report
    settled(registry, second)
    assert records(registry)["j2"]["seen"] is True
    after_kill = agent.hook("tool", client, hook_input(client, "tool", cwd))
    assert (after_kill.code, after_kill.stdout) == (0, ""), after_kill  # not told twice
    quiet = agent.hook("prompt", client, hook_input(client, "prompt", cwd))
    assert (quiet.code, quiet.stdout, quiet.stderr) == (0, "", "")
    # nothing to report is the path of every tool call: it loads no engine, SDK or loop
    argv = [sys.executable, "-X", "importtime", "-m", "jobs_tui.app.cli", "hook", "tool"]
    timed = agent.ask(
        op="hook",
        argv=[*argv, "--client", client],
        stdin=json.dumps(hook_input(client, "tool", cwd)),
    )
    assert (timed["code"], timed["stdout"]) == (0, ""), timed
    loaded = {line.rsplit("|", 1)[-1].strip() for line in timed["stderr"].splitlines()}
    assert "jobs_tui.app.hook.run" in loaded
    heavy = {"jobs_tui.engine", "asyncio", "mcp", "dataclasses", "hashlib", "psutil"}
    assert not loaded & heavy, loaded & heavy


def test_other_agents_and_the_persons_jobs_are_never_reported(
    registry: Path, tmp_path: Path
) -> None:
    cwd = str(tmp_path)
    first = FakeAgent(registry, tmp_path, "a")
    second = FakeAgent(registry, tmp_path, "b")  # same parent (this shell), same registry
    try:
        first.start("sleep 0.2; echo boom; exit 2", label="build")
        theirs = second.start("sleep 0.2; echo other; exit 3", label="other-agent")
        person = subprocess.run(
            [
                *ENTRY,
                "--registry-dir",
                str(registry),
                "start",
                "--label",
                "person",
                "--",
                "sleep 0.2; exit 4",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert person.returncode == 0, person.stderr
        persons = re.findall(r"\bj\d+\b", person.stdout)[0]
        settled(registry, "j1", theirs)
        deadline = time.monotonic() + 30  # nobody settles a CLI job's record: its exit file
        while not (registry / f"{persons}.status").exists():
            assert time.monotonic() < deadline
            time.sleep(0.03)
        run = second.hook("tool", "codex", hook_input("codex", "tool", cwd))
        text = context_of("codex", "tool", run)
        assert "other-agent" in text and "build" not in text and "person" not in text, text
        run = first.hook("tool", "claude", hook_input("claude", "tool", cwd))
        text = context_of("claude", "tool", run)
        assert FAILED_LINE.search(text) and "other" not in text and "person" not in text
        # a hook that no agent of ours runs (here: the person's shell) says nothing
        lone = subprocess.run(
            [*ENTRY, "hook", "prompt", "--client", "claude"],
            input=json.dumps(hook_input("claude", "prompt", cwd)),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (lone.returncode, lone.stdout) == (0, "")
        assert records(registry)[persons]["sessionId"] == "cli"
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("client", PER_CLIENT)
def test_stop_holds_for_a_wake_job_and_blocks_with_its_finish(
    agent: FakeAgent, tmp_path: Path, client: str
) -> None:
    cwd = str(tmp_path)
    agent.start("sleep 1; echo ready; exit 0", label="deploy", wake=True)
    agent.start("sleep 30", label="not-wake")
    run = agent.hook("stop", client, hook_input(client, "stop", cwd))
    assert run.code == 0, run
    assert run.seconds >= 0.5, run  # it held until the job ended
    answer = run.answer
    assert answer["decision"] == "block", answer
    assert re.search(r"✓ j1 deploy · exit 0 · \d+(\.\d+)?s", answer["reason"]), answer
    assert "not-wake" not in answer["reason"]
    # the woken turn ends: nothing new, and only a non-wake job runs -> let it stop
    again = agent.hook("stop", client, hook_input(client, "stop", cwd, stop_hook_active=True))
    assert (again.code, again.stdout) == (0, ""), again
    assert again.seconds < 5


@pytest.mark.slow
def test_stop_without_a_running_wake_job_lets_the_agent_stop(
    agent: FakeAgent, tmp_path: Path
) -> None:
    agent.start("sleep 30", label="serve")
    run = agent.hook("stop", "claude", hook_input("claude", "stop", str(tmp_path)))
    assert (run.code, run.stdout) == (0, ""), run


def test_stop_reports_an_unreported_wake_finish_at_once(
    agent: FakeAgent, registry: Path, tmp_path: Path
) -> None:
    agent.start("sleep 0.2; echo boom; exit 2", label="build", wake=True)
    settled(registry, "j1")
    run = agent.hook("stop", "gemini", hook_input("gemini", "stop", str(tmp_path), True))
    assert run.answer["decision"] == "block" and FAILED_LINE.search(run.answer["reason"])
    again = agent.hook("stop", "gemini", hook_input("gemini", "stop", str(tmp_path), True))
    assert (again.code, again.stdout) == (0, ""), again


def test_stop_limit_lets_the_agent_stop_and_says_what_still_runs(
    agent: FakeAgent, tmp_path: Path
) -> None:
    agent.start("sleep 60", label="long", wake=True)
    run = agent.hook("stop", "claude", hook_input("claude", "stop", str(tmp_path)), "--limit", "1")
    assert run.code == 0, run
    assert 0.9 <= run.seconds < 10, run
    answer = run.answer
    assert "decision" not in answer, answer
    assert "j1 long" in answer["systemMessage"] and "j1 long" in run.stderr


BAD_STDIN = ["", "not json", "[1, 2]", '{"hook_event_name": "Stop"}', '{"stop_hook_active": "yes"}']


def test_bad_stdin_says_so_and_changes_nothing(
    agent: FakeAgent, registry: Path, tmp_path: Path
) -> None:
    agent.start("sleep 0.2; echo boom; exit 2", label="build")
    settled(registry, "j1")
    for stdin in BAD_STDIN:  # empty, garbage, an array, another event, a bad field
        run = agent.hook("tool", "claude", stdin)
        assert (run.code, run.stdout) == (0, ""), (stdin, run)
        assert "jobs-tui hook" in run.stderr and "input" in run.stderr, (stdin, run)
        assert records(registry)["j1"]["seen"] is False
    good = agent.hook("tool", "claude", hook_input("claude", "tool", str(tmp_path)))
    assert FAILED_LINE.search(context_of("claude", "tool", good))


def test_usage_errors_never_exit_with_a_blocking_code(tmp_path: Path) -> None:
    for words in (
        ["hook", "prompt"],
        ["hook", "nap", "--client", "claude"],
        ["hook", "stop", "--client", "vim"],
        ["hook", "stop", "--client", "claude", "--limit", "-3"],
        ["--session", "x", "hook", "tool", "--client", "vim"],  # through the common parser
    ):
        run = subprocess.run(
            [*ENTRY, *words], input="{}", capture_output=True, text=True, timeout=60
        )
        assert run.returncode == 1 and run.stdout == "", (words, run)
        assert "jobs-tui" in run.stderr and ("--client" in run.stderr or "EVENT" in run.stderr)
    run = subprocess.run(
        [*ENTRY, "--session", "x", "hook", "tool", "--client", "gemini"],
        input="{}",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (run.returncode, run.stdout) == (0, ""), run


@pytest.mark.slow  # the lock is checked deterministically below; this is the real thing
def test_hooks_at_once_report_each_finish_once(
    agent: FakeAgent, registry: Path, tmp_path: Path
) -> None:
    for n in range(3):
        agent.start(f"sleep 0.2; echo boom; exit {n + 1}", label=f"build{n}")
    settled(registry, "j1", "j2", "j3")
    stdin = json.dumps(hook_input("codex", "tool", str(tmp_path)))
    argv = [*ENTRY, "hook", "tool", "--client", "codex"]
    runs = agent.ask(op="hooks", argv=argv, stdin=stdin, count=4)["runs"]
    said = "".join(
        json.loads(r["stdout"])["hookSpecificOutput"]["additionalContext"]
        for r in runs
        if r["stdout"]
    )
    assert all(r["code"] == 0 for r in runs), runs
    for n in range(3):
        assert said.count(f"j{n + 1} build{n} ·") == 1, said


def test_tool_results_and_hooks_report_each_finish_once(
    agent: FakeAgent, registry: Path, tmp_path: Path
) -> None:
    tool_input = hook_input("claude", "tool", str(tmp_path))
    # 1. a finish job_wait returned: reported; a hook right after it (as PostToolUse runs
    # right after the call) says nothing
    job = agent.start("sleep 0.2; echo boom; exit 2", label="waited")
    assert "exit 2" in agent.call("job_wait", id=job)["content"][0]["text"]
    run = agent.hook("tool", "claude", tool_input)
    assert (run.code, run.stdout) == (0, ""), run
    # 2. an instant job's start result already says how it ended: that is its report
    for attempt in range(5):
        result = agent.call("job_start", command="echo boom; exit 3", label=f"quick{attempt}")
        started = result["structuredContent"]["job"]
        if started["status"] != "running":
            break
    else:
        pytest.fail("no start returned a finished job in 5 tries")
    assert "exit 3" in result["content"][0]["text"]
    # 3. a hook's mark survives the server's next writes (it merges our file first)
    hooked = agent.start("sleep 0.2; echo boom; exit 2", label="hooked")
    settled(registry, hooked, started["id"])
    run = agent.hook("tool", "claude", tool_input)
    text = context_of("claude", "tool", run)
    assert f"{hooked} hooked" in text and "waited" not in text, text
    assert f"{started['id']} quick" not in text, text
    for n in range(3):  # each start is a write of the server's own file
        agent.start(f"sleep 0.1; echo {n}", label=f"more{n}")
    agent.call("job_list")
    assert records(registry)[hooked]["seen"] is True
    status = agent.call("job_status", id=hooked)  # the server's own view of it
    assert "exit 2" in status["content"][0]["text"]
    assert records(registry)[hooked]["seen"] is True
    settled(registry, *(r for r in records(registry)))
    run = agent.hook("tool", "claude", tool_input)
    assert "hooked" not in run.stdout and "more2" in run.stdout, run


def test_a_hook_holds_the_sessions_lock_from_its_read_to_its_write(
    agent: FakeAgent, registry: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two hooks at once: the second one, started between the first one's read and its
    write, waits for the lock and then finds nothing left to report."""
    import threading

    from jobs_tui.app.hook import registration, reports

    agent.start("sleep 0.2; echo boom; exit 2", label="build")
    settled(registry, "j1")
    server = agent.pids()["server"]
    (entry,) = [e for e in registration.read_all() if e.pid == server]
    seen: dict[str, object] = {}

    def other_hook() -> None:
        seen["run"] = agent.hook("tool", "claude", hook_input("claude", "tool", str(tmp_path)))

    real_write = reports._write

    def interleaved(path: str, data: dict) -> None:
        thread = threading.Thread(target=other_hook)
        thread.start()
        thread.join(timeout=3.0)  # the lock is ours: the other hook waits for it
        seen["other ended first"] = not thread.is_alive()
        seen["thread"] = thread
        real_write(path, data)

    monkeypatch.setattr(reports, "_write", interleaved)
    taken = reports.take(entry, wake_only=False)
    thread = seen["thread"]
    assert isinstance(thread, threading.Thread)
    thread.join(timeout=60)
    assert [j["id"] for j in taken] == ["j1"]
    assert seen["other ended first"] is False
    run = seen["run"]
    assert run.code == 0 and run.stdout == "", run  # type: ignore[attr-defined]
