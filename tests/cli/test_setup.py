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


# --- edges ----------------------------------------------------------------------------


def test_codex_trusts_its_hooks_in_the_user_config_and_keeps_its_comments(box: Box) -> None:
    user_config = box.home / ".codex" / "config.toml"
    user_config.parent.mkdir()
    mine = '# mine\nmodel = "o3"\n\n[projects."/elsewhere"]\ntrust_level = "trusted"\n'
    user_config.write_text(mine)
    assert box.setup("codex").code == 0
    user = tomllib.loads(user_config.read_text())
    assert user_config.read_text().startswith(mine)
    hooks_file = box.project / ".codex" / "hooks.json"
    state = user["hooks"]["state"]
    assert set(state) == {
        f"{hooks_file}:user_prompt_submit:0:0",
        f"{hooks_file}:post_tool_use:0:0",
        f"{hooks_file}:stop:0:0",
    }
    assert all(v["trusted_hash"].startswith("sha256:") for v in state.values())
    assert box.setup("codex", "--remove").code == 0
    assert user_config.read_text() == mine


def test_codex_hook_trust_key_counts_the_groups_already_there(box: Box) -> None:
    (box.project / ".codex").mkdir()
    theirs = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo bye"}]}]}}
    (box.project / ".codex" / "hooks.json").write_text(json.dumps(theirs, indent=2) + "\n")
    assert box.setup("codex").code == 0
    state = tomllib.loads((box.home / ".codex" / "config.toml").read_text())["hooks"]["state"]
    hooks_file = box.project / ".codex" / "hooks.json"
    assert f"{hooks_file}:stop:1:0" in state and f"{hooks_file}:stop:0:0" not in state


def test_codex_replaces_a_jobs_table_and_gives_it_back(box: Box) -> None:
    (box.project / ".codex").mkdir()
    config = box.project / ".codex" / "config.toml"
    text = '[mcp_servers.jobs]\ncommand = "old"  # by hand\n\n# next\n[other]\nx = 1\n'
    config.write_text(text)
    run = box.setup("codex", "--no-trust")
    assert run.code == 0, run.err
    data = tomllib.loads(config.read_text())
    assert data["mcp_servers"]["jobs"]["args"] == ["mcp"] and data["other"] == {"x": 1}
    assert "# next" in config.read_text()
    assert "trust" in run.out and not (box.home / ".codex").exists()
    assert box.setup("codex", "--remove").code == 0
    assert config.read_text() == text


def test_codex_an_untrusted_project_stays_untrusted(box: Box) -> None:
    user_config = box.home / ".codex" / "config.toml"
    user_config.parent.mkdir()
    mine = f'[projects."{box.project}"]\ntrust_level = "untrusted"\n'
    user_config.write_text(mine)
    run = box.setup("codex")
    assert run.code == 0, run.err
    assert tomllib.loads(user_config.read_text())["projects"][str(box.project)] == {
        "trust_level": "untrusted"
    }
    assert "untrusted" in run.out and "left as it is" in run.out


def test_codex_inline_table_refused(box: Box) -> None:
    (box.project / ".codex").mkdir()
    config = box.project / ".codex" / "config.toml"
    config.write_text('mcp_servers = { jobs = { command = "x" } }\n')
    before = snapshot(box.home.parent)
    run = box.setup("codex")
    assert run.code == 2 and "config.toml" in run.err
    assert snapshot(box.home.parent) == before


def test_gemini_a_folder_marked_not_trusted_stays_so(box: Box) -> None:
    folders = box.home / ".gemini" / "trustedFolders.json"
    folders.parent.mkdir()
    folders.write_text(json.dumps({str(box.project): "DO_NOT_TRUST"}, indent=2) + "\n")
    run = box.setup("gemini")
    assert run.code == 0, run.err
    assert read_json(folders) == {str(box.project): "DO_NOT_TRUST"}
    assert "left as it is" in run.out


def test_a_symlinked_config_stays_a_link(box: Box, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "mcp.json"
    real.write_text("{}\n")
    (box.home / ".cursor").mkdir()
    link = box.home / ".cursor" / "mcp.json"
    link.symlink_to(real)
    assert box.setup("cursor", "--user").code == 0
    assert link.is_symlink()
    assert read_json(real)["mcpServers"]["jobs"]["args"] == ["mcp"]


def test_no_client_lists_the_five(box: Box) -> None:
    run = box.setup()
    assert run.code == 2
    assert all(client in run.err for client in CLIENTS)


def test_a_new_path_to_jobs_tui_replaces_our_hooks(box: Box, tmp_path: Path) -> None:
    """Setup run from another install: its hooks replace ours, never stand beside them."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "jobs-tui").symlink_to(launcher_words(box)[0])
    assert box.setup("claude", PATH=f"{bin_dir}:/usr/bin:/bin").code == 0
    assert box.setup("claude").code == 0  # now not on PATH: the absolute path
    hooks = read_json(box.project / ".claude" / "settings.local.json")["hooks"]
    for event in ("UserPromptSubmit", "PostToolUse", "Stop"):
        [group] = hooks[event]
        assert group["hooks"][0]["command"].startswith("/"), group
    assert box.setup("claude", "--remove").code == 0
    assert not (box.project / ".claude" / "settings.local.json").exists()
    assert not (box.project / ".mcp.json").exists()


def test_hook_command_quotes_a_path_with_spaces() -> None:
    from jobs_tui.app.setup.launcher import hook_command

    line = hook_command(["/opt/my tools/jobs-tui"], "stop", "codex")
    assert line == "'/opt/my tools/jobs-tui' hook stop --client codex"


def test_a_file_deleted_since_setup_is_a_new_file_again(box: Box) -> None:
    assert box.setup("cursor").code == 0
    (box.project / ".cursor" / "mcp.json").unlink()
    again = box.setup("cursor")
    assert again.code == 0 and "wrote .cursor/mcp.json" in again.out
    assert box.setup("cursor", "--remove").code == 0
    assert not (box.project / ".cursor").exists()  # file and the folder setup made: gone


def test_new_codex_files_are_private(box: Box) -> None:
    assert box.setup("codex").code == 0
    assert mode(box.home / ".codex") == 0o700
    assert mode(box.home / ".codex" / "config.toml") == 0o600
    assert mode(box.project / ".codex" / "hooks.json") == 0o600
