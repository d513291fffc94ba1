"""`jobs-tui setup CLIENT`, then the client's own listing shows the server connected.

Each test runs setup in a throwaway project with HOME=tmp_path (jobs-tui not on PATH, so
the absolute path is registered), then the real client from npm, with that HOME and the
project as its cwd: `claude mcp list`, `gemini mcp list`, `opencode mcp list` start the
server and say "connected"; `codex mcp list --json` only reads the config (Codex starts
servers in a session), so for Codex the check is the entry itself plus Codex's own
verdict on the hooks' trust (`hooks/list` of `codex app-server`: "trusted", which needs
the hashes setup wrote). No model is involved.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .npm_cache import npm_package

pytestmark = [pytest.mark.agents, pytest.mark.timeout(300)]

PACKAGES = {
    "claude": ("claude-code", "@anthropic-ai/claude-code", 2, "claude"),
    "codex": ("codex", "@openai/codex", 0, "codex"),
    "gemini": ("gemini-cli", "@google/gemini-cli", 0, "gemini"),
    "opencode": ("opencode", "opencode-ai", 1, "opencode"),
}
DROPPED = ("XDG_", "JOBS_TUI_", "CODEX_", "CLAUDE_", "GEMINI_", "ANTHROPIC_", "OPENAI_")


def client_bin(client: str) -> Path:
    name, package, major, binary = PACKAGES[client]
    return npm_package(name, package, major) / "node_modules" / ".bin" / binary


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROPPED)}
    env.update(HOME=str(home), PATH="/usr/local/bin:/usr/bin:/bin", NO_COLOR="1")
    return env


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    return home, proj


def setup(client: str, home: Path, proj: Path, *words: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "jobs_tui.app.cli", "setup", client, *words],
        capture_output=True,
        text=True,
        env=env_for(home),
        cwd=proj,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def run_client(client: str, home: Path, proj: Path, *words: str, stdin: str = "") -> str:
    done = subprocess.run(
        [str(client_bin(client)), *words],
        capture_output=True,
        text=True,
        env=env_for(home),
        cwd=proj,
        input=stdin,
        timeout=180,
    )
    return done.stdout + done.stderr


def our_line(output: str) -> str:
    lines = [line for line in output.splitlines() if "jobs" in line and "mcp" in line]
    assert lines, output[-3000:]
    return lines[0]


def test_claude_lists_the_project_server_connected(project: tuple[Path, Path]) -> None:
    home, proj = project
    setup("claude", home, proj)
    line = our_line(run_client("claude", home, proj, "mcp", "list"))
    assert "Connected" in line and "jobs-tui" in line, line
    assert "Pending" not in line  # approved by setup's enabledMcpjsonServers


def test_claude_user_scope_connected(project: tuple[Path, Path]) -> None:
    home, proj = project
    setup("claude", home, proj, "--user")
    line = our_line(run_client("claude", home, proj, "mcp", "list"))
    assert "Connected" in line, line


def test_gemini_lists_the_server_connected(project: tuple[Path, Path]) -> None:
    home, proj = project
    setup("gemini", home, proj)
    line = our_line(run_client("gemini", home, proj, "mcp", "list"))
    assert "Connected" in line and "Disabled" not in line, line


def test_opencode_lists_the_server_connected(project: tuple[Path, Path]) -> None:
    home, proj = project
    setup("opencode", home, proj)
    output = run_client("opencode", home, proj, "mcp", "list")
    assert "jobs" in output and "connected" in output, output[-3000:]
    assert "failed" not in output.lower(), output[-3000:]


def _codex_app_server(home: Path, proj: Path, method: str) -> dict:
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "t", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": method, "params": {}},
    ]
    proc = subprocess.Popen(
        [str(client_bin("codex")), "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env_for(home),
        cwd=proj,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        proc.stdin.flush()
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                return message
        raise AssertionError("codex app-server ended without answering")
    finally:
        proc.kill()
        proc.wait(timeout=30)


@pytest.mark.parametrize("scope", [[], ["--user"]], ids=["project", "user"])
def test_codex_lists_the_server_and_trusts_the_hooks(
    project: tuple[Path, Path], scope: list[str]
) -> None:
    home, proj = project
    setup("codex", home, proj, *scope)
    listed = run_client("codex", home, proj, "mcp", "list", "--json")
    servers = json.loads(listed[listed.index("[") : listed.rindex("]") + 1])
    [jobs] = [s for s in servers if s["name"] == "jobs"]
    assert jobs["enabled"] is True
    assert jobs["transport"]["args"] == ["mcp"] and jobs["transport"]["command"].endswith(
        "jobs-tui"
    )
    shown = run_client("codex", home, proj, "mcp", "get", "jobs")
    assert "default_tools_approval_mode: approve" in shown, shown
    answer = _codex_app_server(home, proj, "hooks/list")
    hooks = answer["result"]["data"][0]["hooks"]
    ours = {h["eventName"]: h for h in hooks if "hook" in (h["command"] or "")}
    assert set(ours) == {"userPromptSubmit", "postToolUse", "stop"}, hooks
    assert {h["trustStatus"] for h in ours.values()} == {"trusted"}, hooks
    assert ours["stop"]["timeoutSec"] == 660
