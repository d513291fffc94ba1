"""Gemini CLI (0.61, from npm) with `jobs-tui mcp`: connected after `jobs-tui setup gemini`,
every tool offered to the model with its parameters intact, and a scripted session whose
`wake` job's finish reaches the model through the hooks setup wrote (issue 23 D and G).

Gemini CLI disables every MCP server, the user's too, in a folder it does not trust
("MCP servers are configured but disabled because this folder is untrusted"), so what
setup does about the trust is part of what is tested. The model is the fake Gemini API
on 127.0.0.1 (`GOOGLE_GEMINI_BASE_URL`, tests/agents/fake_gemini.py); `-m` names the
model so the CLI's router (a side call to a lite model) stays out of the way. In
non-interactive mode Gemini CLI offers the model no tool that would need a confirmation:
the jobs tools reach it because setup marks the server `trust: true`.
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
from .sessions import FINISH, READY, server_session, short

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
        """README's one command (docs/agents.md), in the project: `jobs-tui setup gemini`."""
        done = run([JOBS_TUI, "setup", "gemini"], self.env, self.project)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def gemini(self, gemini: Path, *args: str, timeout: float = 240):
        return run([gemini, *args], self.env, self.project, timeout=timeout)

    def jobs(self) -> list[dict]:
        """The registry's jobs, as `jobs-tui list --json` reads them."""
        argv = [JOBS_TUI, "list", "--all", "--json", "--registry-dir", self.registry]
        done = run(argv, self.env, self.project)
        assert done.returncode == 0, done.stderr
        value = json.loads(done.stdout)
        return value["jobs"] if isinstance(value, dict) else value


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
        done = setting.gemini(gemini, "-m", "gemini-2.5-pro", "-p", "say ok")
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


def test_a_gemini_session_waits_reads_kills_and_hears_the_wake_finish(gemini: Path, tmp_path: Path):
    """The scripted session (start, wait until the ready line, logs, kill, a `wake` job,
    end of turn): the AfterAgent hook setup wrote holds for the wake job and its outcome
    line reaches the model in a later request."""
    steps: list[str] = []
    with FakeModel(GeminiSpeaker(), server_session(steps, wake=True)) as model:
        setting = Setting(tmp_path, model)
        setting.setup()
        done = setting.gemini(
            gemini, "-m", "gemini-2.5-pro", "-p", "run the server, then the waker"
        )
    log = save_log(model.log.entries, tmp_path / "requests.jsonl")
    trace = "\n".join(steps) + "\n" + done.stdout[-2000:] + done.stderr[-3000:]
    assert not model.errors, model.errors
    assert done.returncode == 0, trace
    results = {short(r.name): r.text for r in model.main_turns()[-1].results()}
    assert set(results) >= {"job_start", "job_wait", "job_logs", "job_kill"}, trace
    server = next(j for j in setting.jobs() if j["label"] == "server")
    assert f"matched in {server['id']}: {READY}" in results["job_wait"], results["job_wait"]
    assert server["status"] == "killed", server
    assert "starting" in results["job_logs"] and READY in results["job_logs"], results["job_logs"]
    assert "killed" in results["job_kill"], results["job_kill"]
    started = next(
        t.request.index
        for t in model.main_turns()
        if any(short(r.name) == "job_start" and "waker" in r.text for r in t.results())
    )
    seen = model.log.find("last line: bye-from-wake", start=started + 1)
    assert seen is not None, "no later request carried the waker's outcome line:\n" + trace
    lines = [m.group(0) for s in seen.lines_with("bye-from-wake") if (m := FINISH.search(s))]
    assert lines, seen.lines_with("bye-from-wake")
    waker = next(j for j in setting.jobs() if j["label"] == "waker")
    assert waker["status"] == "failed" and waker["exitCode"] == 3, waker
    assert lines[0].split()[1] == waker["id"], (lines, waker)
    where = f"request #{seen.index} ({log} line {seen.index + 1})"
    print(f"\nGemini CLI: the model saw the finish in {where}:\n  {lines[0]}")
    print("\n".join(steps))
