"""Codex CLI (0.171, from npm) with `jobs-tui mcp`: listed after setup, every tool offered
to the model with its parameters intact, a scripted session, and a job's finish reaching
the model through Codex's hooks (issue 23 D and G).

`codex exec` runs in a throwaway HOME against a custom model provider, the fake
Responses server on 127.0.0.1 (`wire_api = "responses"`, tests/agents/fake_openai.py);
the fake's script plays the model, deciding each reply from the tool results Codex sends,
and its request log is what the model saw. Codex runs a project's config only in a trusted
project, and a non-managed hook only once its definition is trusted (the person reviews
it in `/hooks`); setup writes both trusts, so nothing here bypasses them. Run with `-s`
to see the figures.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .clients import (
    JOBS_TUI,
    client_bin,
    kept_parameters,
    run,
    save_log,
    schema_faults,
    sealed_env,
    served_tools,
)
from .fake_openai import OpenAISpeaker, offered_tools
from .fakemodel import FakeModel, Reply, Turn
from .sessions import FINISH, READY, job_id, server_session, short

pytestmark = [pytest.mark.agents, pytest.mark.timeout(600)]

NAMESPACE = "mcp__jobs"
KEY_ENV = "FAKE_OPENAI_KEY"
RUN_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def codex() -> Path:
    return client_bin("codex", "@openai/codex", 0, "codex")


class Setting:
    """A throwaway HOME and project for Codex, its user config pointing at the fake model."""

    def __init__(self, tmp_path: Path, model: FakeModel) -> None:
        self.home = tmp_path / "home"
        self.project = tmp_path / "project"
        self.registry = tmp_path / "registry"
        self.project.mkdir(parents=True)
        extra = {KEY_ENV: "not-a-key", "JOBS_TUI_REGISTRY_DIR": str(self.registry)}
        self.env = sealed_env(self.home, model.url, **extra)
        self.config = self.home / ".codex" / "config.toml"
        self.config.parent.mkdir(parents=True)
        self.config.write_text(
            f"""model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "{model.url}/v1"
wire_api = "responses"
env_key = "{KEY_ENV}"
request_max_retries = 0
stream_max_retries = 0
"""
        )

    def setup(self) -> str:
        """README's one command (docs/agents.md), in the project: `jobs-tui setup codex`
        (the project's .codex/config.toml and hooks.json, the project's trust and the
        hooks' in the user's config, beside the test's model provider)."""
        done = run([JOBS_TUI, "setup", "codex"], self.env, self.project)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def codex(self, codex: Path, *args: str, timeout: float = RUN_TIMEOUT_S) -> Any:
        return run([codex, *args], self.env, self.project, timeout=timeout)

    def exec(self, codex: Path, prompt: str) -> Any:
        return self.codex(codex, "exec", "--skip-git-repo-check", prompt)

    def jobs(self) -> dict[str, dict[str, Any]]:
        """The registry's jobs by label, as `jobs-tui list --json` reads them."""
        argv = [JOBS_TUI, "list", "--all", "--json", "--registry-dir", self.registry]
        done = run(argv, self.env, self.project)
        assert done.returncode == 0, done.stderr
        value = json.loads(done.stdout)
        return {j["label"]: j for j in (value["jobs"] if isinstance(value, dict) else value)}


def test_codex_lists_the_server_and_offers_every_tool_intact(codex: Path, tmp_path: Path):
    with FakeModel(OpenAISpeaker(), lambda turn: Reply.say("ok")) as model:
        setting = Setting(tmp_path, model)
        setting.setup()
        listed = setting.codex(codex, "mcp", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        servers = {s["name"]: s for s in json.loads(listed.stdout)}
        assert "jobs" in servers, listed.stdout
        assert servers["jobs"]["enabled"] is True, servers["jobs"]
        transport = servers["jobs"]["transport"]
        assert Path(transport["command"]).name == "jobs-tui", transport
        assert transport["args"][:1] == ["mcp"], transport
        done = setting.exec(codex, "say ok")
        assert done.returncode == 0, done.stderr[-3000:]
    save_log(model.log.entries, tmp_path / "requests.jsonl")
    assert not model.errors, model.errors
    turns = model.main_turns()
    assert turns, model.log.dump()
    offered = {
        t.wire_name: t for t in offered_tools(turns[0].request.body) if t.namespace == NAMESPACE
    }
    served = served_tools(setting.registry, setting.project)
    assert sorted(offered) == sorted(served), (sorted(offered), sorted(served))
    # Codex converts each input schema for the Responses API: nothing may come out
    # self-contradictory (its old `{"type": "string", "enum": [true]}` for a `const`) or
    # lose a parameter, a type, an enum or `required`.
    faults = {}
    for name, tool in offered.items():
        found = schema_faults(tool.parameters)
        found += kept_parameters(served[name]["inputSchema"], tool.parameters)
        if found:
            faults[name] = found
    assert not faults, json.dumps(faults, indent=1)
    names = ", ".join(sorted(offered))
    print(f"\nCodex offers {len(offered)} jobs tools under {NAMESPACE}: {names}")


def test_a_codex_session_waits_reads_kills_and_hears_the_wake_finish(codex: Path, tmp_path: Path):
    """Start a job, wait until its ready line, read its logs, kill it (Codex runs the
    kill: setup's `default_tools_approval_mode = "approve"`), then a `wake` job and the
    end of the turn: the Stop hook holds until it ends and its outcome line reaches the
    model in a later request, as a new user message."""
    steps: list[str] = []
    with FakeModel(OpenAISpeaker(), server_session(steps, wake=True)) as model:
        setting = Setting(tmp_path, model)
        setting.setup()
        done = setting.exec(codex, "run the server, then the waker")
    log = save_log(model.log.entries, tmp_path / "requests.jsonl")
    trace = "\n".join(steps) + "\n" + done.stdout[-2000:] + done.stderr[-3000:]
    assert not model.errors, model.errors
    assert done.returncode == 0, trace
    results = {short(r.name): r.text for r in model.main_turns()[-1].results()}
    assert f'"line":"{READY}"' in results["job_wait"].replace(" ", ""), results["job_wait"]
    assert "starting" in results["job_logs"] and READY in results["job_logs"], results["job_logs"]
    assert '"status":"killed"' in results["job_kill"].replace(" ", ""), results["job_kill"]
    jobs = setting.jobs()
    assert jobs["server"]["status"] == "killed", jobs["server"]
    # The wake job's finish reached the model in a later request, through the hooks.
    started = next(
        t.request.index
        for t in model.main_turns()
        if any(r.name.endswith("job_start") and "waker" in r.text for r in t.results())
    )
    seen = model.log.find("last line: bye-from-wake", start=started + 1)
    assert seen is not None, "no later request carried the waker's outcome line:\n" + trace
    lines = [m.group(0) for s in seen.lines_with("bye-from-wake") if (m := FINISH.search(s))]
    assert lines, seen.lines_with("bye-from-wake")  # the outcome line, in the form
    line = lines[0]
    assert line.split()[1] == jobs["waker"]["id"], (line, jobs["waker"])
    assert jobs["waker"]["status"] == "failed" and jobs["waker"]["exitCode"] == 3, jobs["waker"]
    where = f"request #{seen.index} ({log} line {seen.index + 1})"
    print(f"\nCodex: the model saw the finish in {where}:")
    print("  " + line)
    print("\n".join(steps))


QUICK = re.compile(r"✗ (j[1-9]\d*) quick · exit 2 · [0-9.]+s · last line: out-of-quick")
SLOW_LINE = re.compile(r"[✓✗] j[1-9]\d* slow · exit")
PERSON_COMMAND = "sleep 3; echo person-job-$((40+5)); exit 5"  # the mark only in its output
PERSON_LINE = re.compile(r"j[1-9]\d* person · exit 5|person-job-45")


def finishes_script(steps: list[str]) -> Any:
    """Start a quick failing job and a slower one, wait for the slower (the quick one
    finishes meanwhile, unwatched), then list the jobs and end."""

    def script(turn: Turn) -> Reply:
        result = turn.last_result()
        last = turn.messages[-1] if turn.messages else None
        if last is None or not last.results or result is None:
            return Reply.call(
                "job_start", command="sleep 1; echo out-of-quick; exit 2", label="quick"
            )
        step = short(result.name)
        steps.append(f"#{turn.request.index} {step}: {result.text[-200:]!r}")
        if step == "job_start" and "quick" in result.text:
            return Reply.call("job_start", command="sleep 4", label="slow")
        if step == "job_start":
            return Reply.call("job_wait", id=job_id(result.text), timeoutMs=60000)
        if step == "job_wait":
            return Reply.call("job_list")
        return Reply.say("done")

    return script


def test_codex_hears_an_unwatched_finish_after_its_next_tool_call_once(codex: Path, tmp_path: Path):
    """The seed's "a finished job is reported at the next turn": the quick job ends while
    the model waits on another; the PostToolUse hook puts its outcome line in the next
    request, once (the later hooks do not repeat it), and the job the model waited on,
    whose finish the wait itself returned, is not reported again. A job the person
    started in the same registry (`jobs-tui start`) ends meanwhile and reaches no request."""
    steps: list[str] = []
    with FakeModel(OpenAISpeaker(), finishes_script(steps)) as model:
        setting = Setting(tmp_path, model)
        setting.setup()
        # The person's own job, same registry, ends during the session: not this agent's.
        argv = [JOBS_TUI, "start", "--label", "person", "--", "sh", "-c", PERSON_COMMAND]
        person = run(argv, setting.env, setting.project)
        assert person.returncode == 0, person.stderr
        done = setting.exec(codex, "run quick and slow")
    log = save_log(model.log.entries, tmp_path / "requests.jsonl")
    trace = "\n".join(steps) + "\n" + done.stdout[-2000:] + done.stderr[-3000:]
    assert not model.errors, model.errors
    assert done.returncode == 0, trace
    turns = model.main_turns()
    waited = next(
        t.request.index for t in turns if any(r.name.endswith("job_wait") for r in t.results())
    )
    seen = model.log.find("last line: out-of-quick", start=waited)
    assert seen is not None, "the quick job's finish never reached the model:\n" + trace
    last = turns[-1].request
    lines = [m.group(0) for s in last.strings() for m in QUICK.finditer(s)]
    assert len(lines) == 1, (lines, trace)  # reported once, not at every later hook
    slow = [m.group(0) for s in last.strings() for m in SLOW_LINE.finditer(s)]
    assert not slow, slow  # job_wait returned it; no hook reports it again
    jobs = setting.jobs()
    assert lines[0].split()[1] == jobs["quick"]["id"], (lines, jobs["quick"])
    assert jobs["person"]["status"] == "failed" and jobs["person"]["exitCode"] == 5
    leaked = [r.index for r in model.log.entries if PERSON_LINE.search(" ".join(r.strings()))]
    assert not leaked, f"the person's job was reported to the agent in requests {leaked}"
    where = f"request #{seen.index} ({log} line {seen.index + 1})"
    print(f"\nCodex: the unwatched finish reached the model in {where}:\n  {lines[0]}")
    print("\n".join(steps))
