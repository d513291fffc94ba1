"""Gemini CLI (0.61, from npm) with `jobs-tui mcp`: connected after `jobs-tui setup gemini`,
and every tool offered to the model with its parameters intact (issue 23 D and G).

Gemini CLI disables every MCP server, the user's too, in a folder it does not trust
("MCP servers are configured but disabled because this folder is untrusted"), so what
setup does about the trust is part of what is tested. The model is the fake Gemini API
on 127.0.0.1 (`GOOGLE_GEMINI_BASE_URL`, tests/agents/fake_gemini.py); `-m` names the
model so the CLI's router (a side call to a lite model) stays out of the way. In
non-interactive mode Gemini CLI offers the model no tool that would need a confirmation,
so the run that reads the tool list approves them (`--approval-mode yolo`), as a person
at its prompt would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .clients import (
    JOBS_TUI,
    added_parameters,
    client_bin,
    kept_parameters,
    run,
    save_log,
    schema_faults,
    sealed_env,
    served_tools,
)
from .fake_gemini import GeminiSpeaker, declarations, parameters
from .fakemodel import FakeModel, Reply

pytestmark = [pytest.mark.agents, pytest.mark.timeout(600)]

PREFIX = "mcp_jobs_"


@pytest.fixture(scope="module")
def gemini() -> Path:
    return client_bin("gemini-cli", "@google/gemini-cli", 0, "gemini")


class Setting:
    """A throwaway HOME and project for Gemini CLI, its auth set to an API key."""

    def __init__(self, tmp_path: Path, model: FakeModel) -> None:
        self.home = tmp_path / "home"
        self.project = tmp_path / "project"
        self.registry = tmp_path / "registry"
        self.project.mkdir(parents=True)
        extra = {
            "GEMINI_API_KEY": "not-a-key",
            "GOOGLE_GEMINI_BASE_URL": model.url,
            "GEMINI_CLI_NO_RELAUNCH": "true",
            "JOBS_TUI_REGISTRY_DIR": str(self.registry),
        }
        self.env = sealed_env(self.home, model.url, **extra)
        settings = self.home / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True)
        auth = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
        settings.write_text(json.dumps({**auth, "privacy": {"usageStatisticsEnabled": False}}))

    def setup(self) -> str:
        """README's one command, run in the project: `jobs-tui setup gemini`."""
        done = run([JOBS_TUI, "setup", "gemini"], self.env, self.project)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def gemini(self, gemini: Path, *args: str, timeout: float = 240):
        return run([gemini, *args], self.env, self.project, timeout=timeout)


def test_gemini_lists_the_server_connected_after_setup(gemini: Path, tmp_path: Path):
    with FakeModel(GeminiSpeaker(), lambda turn: Reply.say("ok")) as model:
        setting = Setting(tmp_path, model)
        said = setting.setup()
        listed = setting.gemini(gemini, "mcp", "list")
    out = listed.stdout + listed.stderr
    assert listed.returncode == 0, out
    assert "untrusted" not in out, out
    line = next((s for s in out.splitlines() if "jobs" in s and "jobs-tui" in s), "")
    assert "Connected" in line and "✓" in line, out
    print(f"\nsetup said: {said.strip()}\ngemini mcp list: {line.strip()}")


def test_gemini_offers_the_model_every_jobs_tool_intact(gemini: Path, tmp_path: Path):
    with FakeModel(GeminiSpeaker(), lambda turn: Reply.say("ok")) as model:
        setting = Setting(tmp_path, model)
        setting.setup()
        done = setting.gemini(
            gemini, "-m", "gemini-2.5-pro", "--approval-mode", "yolo", "-p", "say ok"
        )
    save_log(model.log.entries, tmp_path / "requests.jsonl")
    assert not model.errors, model.errors
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    main = model.main_turns()
    assert main, model.log.dump()
    offered = {
        d["name"][len(PREFIX) :]: d
        for d in declarations(main[0].request.body)
        if d["name"].startswith(PREFIX)
    }
    served = served_tools(setting.registry, setting.project)
    assert sorted(offered) == sorted(served), (sorted(offered), sorted(served))
    faults, added = {}, {}
    for name, declaration in offered.items():
        schema = parameters(declaration)
        found = schema_faults(schema) + kept_parameters(served[name]["inputSchema"], schema)
        if found:
            faults[name] = found
        if extra := added_parameters(served[name]["inputSchema"], schema):
            added[name] = extra
    assert not faults, json.dumps(faults, indent=1)
    names = ", ".join(PREFIX + n for n in sorted(offered))
    print(f"\nGemini CLI offers {len(offered)} jobs tools: {names}; added: {added or 'none'}")
