"""`jobs-tui setup CLIENT`: the real entry point, a throwaway HOME and project per test.

Each test runs `python -m jobs_tui.app.cli setup ...` as a subprocess (HOME=tmp_path) and
reads the files it wrote with the parsers the clients use (json, tomllib).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ENTRY = [sys.executable, "-m", "jobs_tui.app.cli"]
CLIENTS = ("claude", "codex", "gemini", "opencode", "cursor")


@dataclass
class Run:
    code: int
    out: str
    err: str


@dataclass
class Box:
    home: Path
    project: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("XDG_", "JOBS_TUI_", "CODEX_", "CLAUDE_", "GEMINI_"))
        }
        env.update(HOME=str(self.home), PATH="/usr/bin:/bin")
        env.update(extra)
        return env

    def setup(self, *words: str, cwd: Path | None = None, **env: str) -> Run:
        done = subprocess.run(
            [*ENTRY, "setup", *words],
            capture_output=True,
            text=True,
            env=self.env(**env),
            cwd=cwd or self.project,
            timeout=60,
        )
        return Run(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def box(tmp_path: Path) -> Box:
    home = tmp_path / "home"
    project = tmp_path / "proj"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    return Box(home, project)


def read_json(path: Path) -> dict:
    return json.loads(path.read_text())


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root with its bytes (directories as b"<dir>"), but jobs-tui's own
    state folder, where setup keeps its record of what it added."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if name.startswith(("home/.local", "home/s")):
            continue
        out[name] = path.read_bytes() if path.is_file() else b"<dir>"
    return out


JT = "jobs-tui"  # the words of the launcher in the files: an absolute path here


def launcher_words(box: Box) -> list[str]:
    """What setup registers when jobs-tui is not on PATH: this interpreter's install."""
    script = Path(sys.executable).parent / "jobs-tui"
    return [str(script)] if script.exists() else [sys.executable, "-m", "jobs_tui.app.cli"]


# --- claude ---------------------------------------------------------------------------


def test_claude_project_writes_mcp_json_approval_and_hooks(box: Box) -> None:
    run = box.setup("claude", cwd=box.project / "src")  # from a subdirectory: the git top
    assert run.code == 0, run.err
    assert str(box.project) in run.out and "git" in run.out
    assert "wrote .mcp.json (mcpServers.jobs)" in run.out
    server = read_json(box.project / ".mcp.json")["mcpServers"]["jobs"]
    words = launcher_words(box)
    assert [server["command"], *server["args"]] == [*words, "mcp"]
    assert server["type"] == "stdio"
    local = read_json(box.project / ".claude" / "settings.local.json")
    assert local["enabledMcpjsonServers"] == ["jobs"]
    hooks = local["hooks"]
    events = {"UserPromptSubmit": "prompt", "PostToolUse": "tool", "Stop": "stop"}
    for event, ours in events.items():
        [group] = hooks[event]
        [hook] = group["hooks"]
        assert hook["type"] == "command"
        assert hook["command"].endswith(f"hook {ours} --client claude")
        assert hook["command"].startswith(words[0])
    assert hooks["Stop"][0]["hooks"][0]["timeout"] == 660  # seconds: the limit 600 + 60
    assert mode(box.project / ".mcp.json") == 0o600
    assert mode(box.project / ".claude") == 0o700
    assert not (box.home / ".claude.json").exists()  # project scope touches no user file


def test_claude_user_scope(box: Box) -> None:
    run = box.setup("claude", "--user")
    assert run.code == 0, run.err
    server = read_json(box.home / ".claude.json")["mcpServers"]["jobs"]
    assert server["args"][-1] == "mcp"
    hooks = read_json(box.home / ".claude" / "settings.json")["hooks"]
    assert set(hooks) == {"UserPromptSubmit", "PostToolUse", "Stop"}
    assert not (box.project / ".mcp.json").exists()
    assert "wrote ~/.claude.json (mcpServers.jobs)" in run.out


def test_twice_changes_nothing_and_says_so(box: Box) -> None:
    for client in CLIENTS:
        first = box.setup(client)
        assert first.code == 0, (client, first.err)
        before = snapshot(box.home.parent)
        second = box.setup(client)
        assert second.code == 0, (client, second.err)
        assert snapshot(box.home.parent) == before, client
        assert "wrote" not in second.out, (client, second.out)
        assert "unchanged" in second.out and "already set up" in second.out, second.out


def test_merge_keeps_other_servers_keys_and_hooks(box: Box) -> None:
    other_hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}
    settings = {
        "permissions": {"allow": ["Bash(ls)"]},
        "enabledMcpjsonServers": ["other"],
        "hooks": {"PostToolUse": [other_hook]},
    }
    (box.project / ".claude").mkdir()
    (box.project / ".claude" / "settings.local.json").write_text(json.dumps(settings, indent=2))
    mcp = {"mcpServers": {"other": {"command": "other-server", "args": []}}, "x": 1}
    (box.project / ".mcp.json").write_text(json.dumps(mcp, indent=2) + "\n")
    assert box.setup("claude").code == 0
    data = read_json(box.project / ".mcp.json")
    assert data["x"] == 1 and data["mcpServers"]["other"] == mcp["mcpServers"]["other"]
    assert "jobs" in data["mcpServers"]
    local = read_json(box.project / ".claude" / "settings.local.json")
    assert local["permissions"] == settings["permissions"]
    assert local["enabledMcpjsonServers"] == ["other", "jobs"]
    assert local["hooks"]["PostToolUse"][0] == other_hook
    assert len(local["hooks"]["PostToolUse"]) == 2


def test_remove_gives_back_the_files_as_they_were(box: Box) -> None:
    (box.project / ".claude").mkdir(mode=0o755)
    kept = json.dumps({"permissions": {"allow": ["Read"]}}, indent=2) + "\n"
    (box.project / ".claude" / "settings.local.json").write_text(kept)
    os.chmod(box.project / ".claude" / "settings.local.json", 0o644)
    before = snapshot(box.home.parent)
    assert box.setup("claude").code == 0
    assert mode(box.project / ".claude" / "settings.local.json") == 0o644  # its mode kept
    run = box.setup("claude", "--remove")
    assert run.code == 0, run.err
    assert snapshot(box.home.parent) == before  # byte-equal; .mcp.json (created) is gone
    assert "removed" in run.out and ".mcp.json" in run.out
    again = box.setup("claude", "--remove")
    assert again.code == 0 and "nothing to remove" in again.out


def test_remove_keeps_what_was_there_before_setup(box: Box) -> None:
    """A server entry named jobs the person wrote before setup is given back, not deleted."""
    mine = {"mcpServers": {"jobs": {"command": "my-jobs", "args": ["serve"]}}}
    (box.project / ".cursor").mkdir()
    path = box.project / ".cursor" / "mcp.json"
    path.write_text(json.dumps(mine, indent=2) + "\n")
    original = path.read_bytes()
    run = box.setup("cursor")
    assert run.code == 0 and "mcpServers.jobs" in run.out
    assert read_json(path)["mcpServers"]["jobs"]["args"] == ["mcp"]
    assert box.setup("cursor", "--remove").code == 0
    assert path.read_bytes() == original


@pytest.mark.parametrize("client", CLIENTS)
def test_unparsable_file_refused_and_untouched(box: Box, client: str) -> None:
    target = {
        "claude": box.project / ".mcp.json",
        "codex": box.project / ".codex" / "config.toml",
        "gemini": box.project / ".gemini" / "settings.json",
        "opencode": box.project / "opencode.json",
        "cursor": box.project / ".cursor" / "mcp.json",
    }[client]
    target.parent.mkdir(exist_ok=True)
    target.write_text("{ not [ valid = \n")
    before = snapshot(box.home.parent)
    run = box.setup(client)
    assert run.code == 2
    assert str(target.name) in run.err and "does not parse" in run.err
    assert snapshot(box.home.parent) == before  # nothing written, anywhere


def test_unknown_client_lists_the_five(box: Box) -> None:
    run = box.setup("vscode")
    assert run.code == 2
    for client in CLIENTS:
        assert client in run.err


# --- codex ----------------------------------------------------------------------------


def test_codex_project_keeps_toml_comments_and_trusts_the_project(box: Box) -> None:
    (box.project / ".codex").mkdir()
    config = box.project / ".codex" / "config.toml"
    text = '# my codex settings\nmodel = "o3"  # the model I use\n\n'
    text += '[mcp_servers.other]\ncommand = "x"\n'
    config.write_text(text)
    env = {"JOBS_TUI_REGISTRY_DIR": str(box.home / "reg"), "XDG_STATE_HOME": str(box.home / "s")}
    run = box.setup("codex", **env)
    assert run.code == 0, run.err
    written = config.read_text()
    assert written.startswith(text)  # comments and formatting kept: our table is appended
    server = tomllib.loads(written)["mcp_servers"]["jobs"]
    assert server["args"] == ["mcp"]
    assert server["env_vars"] == ["JOBS_TUI_REGISTRY_DIR", "XDG_STATE_HOME"]
    assert server["default_tools_approval_mode"] == "approve"
    user = tomllib.loads((box.home / ".codex" / "config.toml").read_text())
    assert user["projects"][str(box.project)]["trust_level"] == "trusted"
    hooks = read_json(box.project / ".codex" / "hooks.json")["hooks"]
    assert hooks["Stop"][0]["hooks"][0]["timeout"] == 660
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["command"].endswith("prompt --client codex")
    assert box.setup("codex", "--remove", **env).code == 0
    assert config.read_text() == text
    assert not (box.project / ".codex" / "hooks.json").exists()
    assert not (box.home / ".codex" / "config.toml").exists()


def test_codex_user_scope_no_env_vars_when_unset(box: Box) -> None:
    run = box.setup("codex", "--user")
    assert run.code == 0, run.err
    user = tomllib.loads((box.home / ".codex" / "config.toml").read_text())
    assert "env_vars" not in user["mcp_servers"]["jobs"]
    assert "projects" not in user
    assert (box.home / ".codex" / "hooks.json").exists()


# --- gemini, opencode, cursor ---------------------------------------------------------


def test_gemini_project_settings_hooks_in_ms_and_trust(box: Box) -> None:
    run = box.setup("gemini")
    assert run.code == 0, run.err
    settings = read_json(box.project / ".gemini" / "settings.json")
    assert settings["mcpServers"]["jobs"]["args"] == ["mcp"]
    hooks = settings["hooks"]
    assert hooks["AfterAgent"][0]["hooks"][0]["timeout"] == 660_000  # milliseconds
    assert hooks["BeforeAgent"][0]["hooks"][0]["command"].endswith("prompt --client gemini")
    assert hooks["AfterTool"][0]["hooks"][0]["command"].endswith("tool --client gemini")
    trusted = read_json(box.home / ".gemini" / "trustedFolders.json")
    assert trusted == {str(box.project): "TRUST_FOLDER"}
    assert "trust" in run.out


def test_gemini_no_trust_prints_the_line_to_run(box: Box) -> None:
    run = box.setup("gemini", "--no-trust")
    assert run.code == 0, run.err
    assert not (box.home / ".gemini" / "trustedFolders.json").exists()
    assert "gemini" in run.out and "trust" in run.out.lower()


def test_opencode_shape_and_no_hooks_said(box: Box) -> None:
    run = box.setup("opencode")
    assert run.code == 0, run.err
    server = read_json(box.project / "opencode.json")["mcp"]["jobs"]
    assert server["type"] == "local"
    assert server["command"][-1] == "mcp"
    assert "job_wait" in run.out and "no hooks" in run.out
    user = box.setup("opencode", "--user", XDG_CONFIG_HOME=str(box.home / "cfg"))
    assert user.code == 0, user.err
    assert (box.home / "cfg" / "opencode" / "opencode.json").exists()


def test_cursor_project_and_user(box: Box) -> None:
    assert box.setup("cursor").code == 0
    assert read_json(box.project / ".cursor" / "mcp.json")["mcpServers"]["jobs"]["args"] == ["mcp"]
    assert box.setup("cursor", "--user").code == 0
    assert (box.home / ".cursor" / "mcp.json").exists()


def test_json_output(box: Box) -> None:
    run = box.setup("cursor", "--json")
    assert run.code == 0, run.err
    out = json.loads(run.out)
    assert out["action"] == "setup"
    assert out["client"] == "cursor" and out["scope"] == "project"
    assert out["files"][0]["change"] == "wrote"
    assert out["files"][0]["items"] == ["mcpServers.jobs"]


def test_on_path_the_command_is_the_bare_name(box: Box, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    words = launcher_words(box)
    if len(words) > 1:
        pytest.fail("this test needs the venv's jobs-tui console script")
    (bin_dir / "jobs-tui").symlink_to(words[0])
    run = box.setup("cursor", PATH=f"{bin_dir}:/usr/bin:/bin")
    assert run.code == 0, run.err
    server = read_json(box.project / ".cursor" / "mcp.json")["mcpServers"]["jobs"]
    assert server["command"] == "jobs-tui"
