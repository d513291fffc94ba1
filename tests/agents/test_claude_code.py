"""Claude Code, the real client, driven by a scripted fake model (issue 23 G and D).

`claude -p` (2.1.197, from npm) runs in a throwaway HOME with `ANTHROPIC_BASE_URL` on a
fake model on 127.0.0.1 (tests/agents/fake_anthropic.py) and every proxy variable
pointing there too, so nothing reaches the network (a call meant for the outside would
show in the request log as an unknown path). `jobs-tui mcp` is registered the way README
says; root may not use `--dangerously-skip-permissions`, so the session allows the
server's tools with `--allowedTools mcp__jobs`. What the model saw is read from the
request log: the tools Claude Code offered it, each tool result, and the context its
hooks added. Run with `python -m pytest -m agents tests/agents/test_claude_code.py -s`
to see the figures (the tools listed, the request-log line where a finish arrived).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .fake_anthropic import AnthropicSpeaker
from .fakemodel import FakeModel, Reply, Request, Turn
from .npm_cache import npm_package

pytestmark = [pytest.mark.agents, pytest.mark.timeout(600)]

PREFIX = "mcp__jobs__"
RUN_TIMEOUT_S = 240
JOBS_TUI = str(Path(sys.executable).with_name("jobs-tui"))


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    prefix = npm_package("claude-code", "@anthropic-ai/claude-code", 2)
    return prefix / "node_modules" / ".bin" / "claude"


@dataclass
class Sandbox:
    """A throwaway HOME, a project directory and the environment Claude Code runs in."""

    home: Path
    project: Path
    registry: Path
    env: dict[str, str]


def sandbox(tmp_path: Path, model: FakeModel) -> Sandbox:
    home, project, registry = tmp_path / "home", tmp_path / "project", tmp_path / "registry"
    for d in (home, project, registry):
        d.mkdir(mode=0o700)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_RUNTIME_DIR": str(runtime),
        "JOBS_TUI_REGISTRY_DIR": str(registry),
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "test",
        # Claude Code's own switches for what it would fetch or report on its own.
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_GROWTHBOOK": "1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
        # Anything that still wants the outside world goes to the fake model's log.
        "HTTPS_PROXY": model.url,
        "HTTP_PROXY": model.url,
        "https_proxy": model.url,
        "http_proxy": model.url,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    return Sandbox(home, project, registry, env)


def register(claude: Path, box: Sandbox) -> None:
    """`claude mcp add jobs -- jobs-tui mcp`, README's registration (absolute path: the
    venv's bin is not on the client's PATH here)."""
    done = subprocess.run(
        [str(claude), "mcp", "add", "jobs", "--", JOBS_TUI, "mcp"],
        cwd=box.project,
        env=box.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def run_claude(claude: Path, box: Sandbox, prompt: str, *extra: str) -> subprocess.CompletedProcess:
    debug = box.home / "claude-debug.log"
    command = [str(claude), "-p", prompt, "--allowedTools", "mcp__jobs", "--debug-file", str(debug)]
    return subprocess.run(
        [*command, *extra],
        cwd=box.project,
        env=box.env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )


def served_tools(box: Sandbox) -> list[str]:
    """The tools `jobs-tui mcp` itself lists (a plain MCP handshake), the yardstick."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "yardstick", "version": "1"},
        },
    }
    lines = [
        json.dumps(init),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    done = subprocess.run(
        [JOBS_TUI, "mcp"],
        input="\n".join(lines) + "\n",
        cwd=box.project,
        env=box.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    listed = next(a for a in answers if a.get("id") == 2)
    return sorted(t["name"] for t in listed["result"]["tools"])


def job_id(text: str) -> str:
    found = re.search(r"\bj[1-9][0-9]*\b", text)
    assert found, text
    return found.group(0)


def main_requests(model: FakeModel) -> list[Request]:
    return [t.request for t in model.main_turns()]


def offered_tools(request: Request) -> list[str]:
    return [t["name"] for t in request.body.get("tools") or []]


def report(title: str, lines: list[str]) -> None:
    """A figure for the issue note (shown with -s)."""
    print(f"\n[claude-code] {title}")
    for line in lines:
        print(f"    {line}")


def diagnose(model: FakeModel, done: subprocess.CompletedProcess, box: Sandbox) -> str:
    debug = box.home / "claude-debug.log"
    tail = debug.read_text(errors="replace")[-4000:] if debug.exists() else "(no debug log)"
    return (
        f"exit {done.returncode}\nstdout: {done.stdout[-1500:]}\nstderr: {done.stderr[-1500:]}\n"
        f"script errors: {model.errors}\nlog:\n{model.log.dump()}\ndebug tail:\n{tail}"
    )


def no_outside_calls(model: FakeModel) -> None:
    unknown = [f"{r.method} {r.path}" for r in model.log.unknown()]
    assert not unknown, f"calls the fake model does not serve (meant for the network?): {unknown}"


# --- a. the tools Claude Code offers the model --------------------------------------------


def test_claude_code_offers_the_model_every_jobs_tool(claude_bin: Path, tmp_path: Path):
    def script(turn: Turn) -> Reply:
        return Reply.say("nothing to do")

    with FakeModel(AnthropicSpeaker(), script) as model:
        box = sandbox(tmp_path, model)
        register(claude_bin, box)
        done = run_claude(claude_bin, box, "list your tools")
        assert done.returncode == 0, diagnose(model, done, box)
        served = served_tools(box)
        assert len(served) >= 9, served  # job_start ... job_restart
        mains = main_requests(model)
        assert mains, diagnose(model, done, box)
        offered = sorted(n[len(PREFIX) :] for n in offered_tools(mains[0]) if n.startswith(PREFIX))
        report("tools offered to the model", [f"{len(offered)}: {', '.join(offered)}"])
        assert offered == served, diagnose(model, done, box)
        no_outside_calls(model)
        assert not model.errors, model.errors


# --- b. a scripted session: start, wait until ready, logs, kill ---------------------------

READY = "READY-ON-7311"
SERVER_COMMAND = f"sleep 1; echo booting; sleep 1; echo {READY}; exec sleep 300"


def session_script(turn: Turn) -> Reply:
    """start -> wait until the ready line -> logs -> kill -> done, from the results seen."""
    done = [r.name.removeprefix(PREFIX) for r in turn.results()]
    if not done:
        return Reply.call(PREFIX + "job_start", command=SERVER_COMMAND, label="web")
    jid = job_id(turn.results()[0].text)
    step = done[-1]
    if step == "job_start":
        return Reply.call(PREFIX + "job_wait", id=jid, until=READY, timeoutMs=60000)
    if step == "job_wait":
        return Reply.call(PREFIX + "job_logs", id=jid)
    if step == "job_logs":
        return Reply.call(PREFIX + "job_kill", id=jid)
    return Reply.say("all done")


def test_a_scripted_session_sees_each_result(claude_bin: Path, tmp_path: Path):
    with FakeModel(AnthropicSpeaker(), session_script) as model:
        box = sandbox(tmp_path, model)
        register(claude_bin, box)
        done = run_claude(claude_bin, box, "start the web server, wait until ready, then stop it")
        why = diagnose(model, done, box)
        assert done.returncode == 0, why
        assert not model.errors, why
        last = model.main_turns()[-1]
        results = {r.name.removeprefix(PREFIX): r for r in last.results()}
        assert list(results) == ["job_start", "job_wait", "job_logs", "job_kill"], why
        assert not any(r.is_error for r in results.values()), why
        report(
            "session results the model read", [f"{n}: {r.text[:200]!r}" for n, r in results.items()]
        )
        assert READY in results["job_wait"].text, why  # the match, not a timeout
        assert "timeout" not in results["job_wait"].text, why
        assert "booting" in results["job_logs"].text and READY in results["job_logs"].text, why
        assert "killed" in results["job_kill"].text, why
        no_outside_calls(model)
