"""The sandbox Claude Code runs in for the agent tests, and readers of what its model saw.

A throwaway HOME and project, an environment that points Claude Code (and every proxy
variable) at the fake model on 127.0.0.1, `jobs-tui setup claude`, a `claude -p` run with
its debug log kept, and the helpers that read the fake model's request log: the tools it
was offered, the calls and results, and what hooks or channels put before it outside any
tool result (where a job's finish has to arrive).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .fakemodel import FakeModel, Request, strings_of
from .npm_cache import npm_package

PREFIX = "mcp__jobs__"
RUN_TIMEOUT_S = 240
# The jobs-tui under test: this venv's, or another build's (to see a test fail on old code).
JOBS_TUI = os.environ.get("JOBS_TUI_AGENTS_BIN") or str(Path(sys.executable).with_name("jobs-tui"))


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


def system_path() -> str:
    """PATH without the folder of the jobs-tui under test: setup must write its absolute
    path, as for a user whose venv is not on the client's PATH."""
    mine = str(Path(JOBS_TUI).parent)
    return os.pathsep.join(
        p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep) if p != mine
    )


def sandbox(tmp_path: Path, model: FakeModel) -> Sandbox:
    home, project, registry = tmp_path / "home", tmp_path / "project", tmp_path / "registry"
    for d in (home, project, registry):
        d.mkdir(mode=0o700)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {
        "PATH": system_path(),
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
        # How long `claude -p` waits for an alwaysLoad server to be ready (connected, tools
        # and resources listed) before its first request: 5 s by default, which this
        # shared two-core machine (load 10-12 while other helpers run their suites) can
        # exceed; the tests check that the tools are there on the first request, not how
        # fast the machine is (test_claude_code_offers_... prints the time it took).
        "MCP_CONNECT_TIMEOUT_MS": "60000",
        # Anything that still wants the outside world goes to the fake model's log.
        "HTTPS_PROXY": model.url,
        "HTTP_PROXY": model.url,
        "https_proxy": model.url,
        "http_proxy": model.url,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    return Sandbox(home, project, registry, env)


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
    proc = subprocess.Popen(
        [JOBS_TUI, "mcp"],
        cwd=box.project,
        env=box.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin and proc.stdout
    try:
        for message in (
            init,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ):
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        for line in proc.stdout:  # ends at the answer (or at EOF, then the next fails)
            listed = json.loads(line)
            if listed.get("id") == 2:
                break
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
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
        f"script errors: {model.errors}\nlog:\n{model.log.dump()}\n"
        f"conversation:\n{conversation(model)}\ndebug tail:\n{tail}"
    )


def conversation(model: FakeModel) -> str:
    """Each main turn: the tools offered (jobs ones), the calls and results so far."""
    out = []
    for i, turn in enumerate(model.main_turns()):
        jobs = sum(1 for name in turn.tools if name.startswith(PREFIX))
        calls = [f"{c.name}({json.dumps(c.arguments)[:80]})" for c in turn.calls()]
        results = [f"{r.name} err={r.is_error} {r.text[:160]!r}" for r in turn.results()]
        out.append(f"turn {i}: {jobs} jobs tools; calls {calls}; results {results}")
    return "\n".join(out)


def readiness(box: Sandbox) -> list[str]:
    """What Claude Code's debug log says of the server's start (for the note)."""
    debug = box.home / "claude-debug.log"
    text = debug.read_text(errors="replace") if debug.exists() else ""
    keep = ("Successfully connected", "not ready after", "alwaysLoad")
    return [
        ln[:200]
        for ln in text.splitlines()
        if 'server "jobs"' in ln or "[MCP]" in ln
        if any(k in ln for k in keep)
    ]


def no_outside_calls(model: FakeModel) -> None:
    unknown = [f"{r.method} {r.path}" for r in model.log.unknown()]
    assert not unknown, f"calls the fake model does not serve (meant for the network?): {unknown}"


def install(claude: Path, box: Sandbox) -> None:
    """`jobs-tui setup claude` in the project, as docs/agents.md says: the server in .mcp.json,
    its approval and the three hooks in .claude/settings.local.json."""
    done = subprocess.run(
        [JOBS_TUI, "setup", "claude"],
        cwd=box.project,
        env=box.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def context_texts(request: Request) -> Iterator[tuple[str, str]]:
    """(role, text) of every part of the request's messages that is not a tool call or a
    tool result: the prompt, and what hooks put before the model."""
    for m in (request.body or {}).get("messages") or []:
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            if isinstance(block, dict) and block.get("type") not in ("tool_result", "tool_use"):
                for text in strings_of(block):
                    yield str(m.get("role")), text


def outcome_lines(request: Request, marker: str) -> list[str]:
    """The lines that carry `marker` outside every tool call and result: what a hook (not
    a tool call) put before the model."""
    return [ln for _, text in context_texts(request) for ln in text.splitlines() if marker in ln]


def hook_text(request: Request, marker: str) -> str:
    """The whole text (outside tool calls and results) that carries `marker`, for the note."""
    for role, text in context_texts(request):
        if marker in text:
            return f"{role}: {text[-400:]!r}"
    return ""


def first_seen(model: FakeModel, marker: str) -> tuple[int, Request, list[str]] | None:
    """The first main request (its position among them) whose hook context has `marker`."""
    for i, request in enumerate(main_requests(model)):
        lines = outcome_lines(request, marker)
        if lines:
            return i, request, lines
    return None


def job_status(registry: Path, jid: str) -> str | None:
    """A job's status as its session's registry file says (read only: a poll of ours must
    not count as the agent having been told)."""
    for path in registry.glob("registry-*.json"):
        try:
            jobs = json.loads(path.read_text()).get("jobs") or []
        except (OSError, ValueError):
            continue
        for record in jobs:
            if record.get("id") == jid:
                return str(record.get("status"))
    return None
