"""opencode (1.18, from npm) with `jobs-tui mcp`: connected after `jobs-tui setup opencode`,
every tool offered to the model with its parameters intact, and a scripted session
(issue 23 G).

opencode's config is `{"mcp": {"jobs": {"type": "local", "command": [...]}}}` (not the
`mcpServers` shape); `jobs-tui setup opencode` writes it into the project's
opencode.json. The model is a custom provider on the bundled openai-compatible SDK,
pointed at the fake chat-completions server on 127.0.0.1 (tests/agents/fake_openai.py),
set in the user's config so the project's file is setup's alone. opencode names an MCP
tool `SERVER_TOOL` (`jobs_job_start`). It has no hooks: a finish reaches its model
through `job_wait` (with no id: the next finish of the session's jobs).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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
from .fake_openai import OpenAISpeaker, offered_tools
from .fakemodel import FakeModel, Reply
from .sessions import READY, server_session, short

pytestmark = [pytest.mark.agents, pytest.mark.timeout(600)]

PREFIX = "jobs_"
RUN_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def opencode() -> Path:
    return client_bin("opencode", "opencode-ai", 1, "opencode")


class Setting:
    """A throwaway HOME and project for opencode, the fake model its provider."""

    def __init__(self, tmp_path: Path, model: FakeModel) -> None:
        self.home = tmp_path / "home"
        self.project = tmp_path / "project"
        self.registry = tmp_path / "registry"
        self.project.mkdir(parents=True)
        extra = {
            "JOBS_TUI_REGISTRY_DIR": str(self.registry),
            # what opencode would fetch or install on its own (models.dev, npm plugins)
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
        }
        self.env = sealed_env(self.home, model.url, **extra)
        user = self.home / ".config" / "opencode" / "opencode.json"
        user.parent.mkdir(parents=True)
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake",
            "options": {"baseURL": f"{model.url}/v1", "apiKey": "not-a-key"},
            "models": {"fake-model": {"name": "Fake Model", "tool_call": True}},
        }
        user.write_text(
            json.dumps(
                {
                    "$schema": "https://opencode.ai/config.json",
                    "provider": {"fake": provider},
                    "model": "fake/fake-model",
                    "small_model": "fake/fake-model",
                    "autoupdate": False,
                    "share": "disabled",
                }
            )
        )

    def setup(self) -> str:
        """README's one command (docs/agents.md), in the project: `jobs-tui setup opencode`."""
        done = run([JOBS_TUI, "setup", "opencode"], self.env, self.project)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def opencode(self, opencode: Path, *args: str, timeout: float = RUN_TIMEOUT_S) -> Any:
        return run([opencode, *args], self.env, self.project, timeout=timeout)

    def jobs(self) -> dict[str, dict[str, Any]]:
        argv = [JOBS_TUI, "list", "--all", "--json", "--registry-dir", self.registry]
        done = run(argv, self.env, self.project)
        assert done.returncode == 0, done.stderr
        value = json.loads(done.stdout)
        return {j["label"]: j for j in (value["jobs"] if isinstance(value, dict) else value)}


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_opencode_lists_the_server_connected_after_setup(opencode: Path, tmp_path: Path):
    with FakeModel(OpenAISpeaker(), lambda turn: Reply.say("ok")) as model:
        setting = Setting(tmp_path, model)
        said = setting.setup()
        listed = setting.opencode(opencode, "mcp", "list")
    out = ANSI.sub("", listed.stdout + listed.stderr)
    assert listed.returncode == 0, out
    line = next((s for s in out.splitlines() if " jobs " in f"{s} "), "")
    assert "✓" in line and "connected" in line, out
    print(f"\nsetup said: {said.strip()}\nopencode mcp list: {line.strip()}")


def test_opencode_offers_the_model_every_jobs_tool_intact(opencode: Path, tmp_path: Path):
    with FakeModel(OpenAISpeaker(), lambda turn: Reply.say("ok")) as model:
        setting = Setting(tmp_path, model)
        setting.setup()
        done = setting.opencode(opencode, "run", "say ok")
    save_log(model.log.entries, tmp_path / "requests.jsonl")
    assert not model.errors, model.errors
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    main = model.main_turns()
    assert main, model.log.dump()
    offered = {
        t.name[len(PREFIX) :]: t
        for t in offered_tools(main[0].request.body)
        if t.name.startswith(PREFIX)
    }
    served = served_tools(setting.registry, setting.project)
    assert sorted(offered) == sorted(served), (sorted(offered), sorted(served))
    faults, added = {}, {}
    for name, tool in offered.items():
        found = schema_faults(tool.parameters)
        found += kept_parameters(served[name]["inputSchema"], tool.parameters)
        if found:
            faults[name] = found
        if extra := added_parameters(served[name]["inputSchema"], tool.parameters):
            added[name] = extra
    assert not faults, json.dumps(faults, indent=1)
    names = ", ".join(PREFIX + n for n in sorted(offered))
    print(f"\nopencode offers {len(offered)} jobs tools: {names}; added: {added or 'none'}")


def test_an_opencode_session_starts_waits_reads_and_kills(opencode: Path, tmp_path: Path):
    steps: list[str] = []
    with FakeModel(OpenAISpeaker(), server_session(steps, wake=False)) as model:
        setting = Setting(tmp_path, model)
        setting.setup()
        done = setting.opencode(opencode, "run", "run the server")
    save_log(model.log.entries, tmp_path / "requests.jsonl")
    trace = "\n".join(steps) + "\n" + done.stdout[-2000:] + done.stderr[-3000:]
    assert not model.errors, model.errors
    assert done.returncode == 0, trace
    results = {short(r.name): r.text for r in model.main_turns()[-1].results()}
    assert set(results) >= {"job_start", "job_wait", "job_logs", "job_kill"}, trace
    job = setting.jobs()["server"]["id"]
    assert f"matched in {job}: {READY}" in results["job_wait"], results["job_wait"]
    # No channel was declared: nothing may promise the model a notification.
    assert "notification" not in results["job_start"], results["job_start"]
    assert "starting" in results["job_logs"] and READY in results["job_logs"], results["job_logs"]
    assert "killed" in results["job_kill"], results["job_kill"]
    assert setting.jobs()["server"]["status"] == "killed", setting.jobs()
    assert f"■ {job} server · killed" in results["job_kill"], results["job_kill"]
    print("\n" + "\n".join(steps))
