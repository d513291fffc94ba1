"""A declared job's end reaches the agent's hooks like any finish (issue 26, "Agents"): a
crash loop (restarted `max_restarts` times, then failed again) and a job that never ran
because its dependency failed, each told once, in the outcome line's words. A fake agent
client runs its own `jobs-tui mcp` in the project and brings the stack up with `job_up`;
the jobs' own supervisors restart the worker and end it, with no call in between."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .agents import FakeAgent, records, settled
from .inputs import hook_input
from .test_hook_agents import context_of

STACK = """
[jobs.worker]
command = "echo lost the queue; exit 3"
restart = "on-failure"
max_restarts = 2
backoff_ms = 50

[jobs.migrate]
command = "exit 5"

[jobs.api]
command = "echo never printed"
depends_on = { migrate = "succeeded" }
"""
LOOP = re.compile(
    r"✗ j\d worker · exit 3 · crash loop after 2 restarts · \d+(\.\d+)?s"
    r" · last line: lost the queue"
)
NEVER = re.compile(r"✗ j\d api · never ran: migrate did not succeed \(exit 5\)")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".jobs-tui").touch()  # its own project root
    (root / "jobs-tui.toml").write_text(STACK)
    return root


@pytest.fixture
def agent(tmp_path: Path, project: Path) -> Iterator[FakeAgent]:
    one = FakeAgent(tmp_path / "registry", tmp_path, "a", cwd=project)
    try:
        yield one
    finally:
        one.close()


def test_a_crash_loop_and_a_job_that_never_ran_reach_the_hook_once(
    agent: FakeAgent, tmp_path: Path, project: Path
) -> None:
    up = agent.call("job_up")
    started = {j["name"]: j["id"] for j in up["structuredContent"]["started"]}
    assert set(started) == {"worker", "migrate", "api"}
    jobs = settled(tmp_path / "registry", *started.values())
    assert jobs[started["worker"]]["endReason"] == "crash-loop"
    assert jobs[started["api"]]["endReason"] == "dependency"
    prompt = agent.hook("prompt", "claude", hook_input("claude", "prompt", str(project)))
    text = context_of("claude", "prompt", prompt)
    assert len(LOOP.findall(text)) == 1, text
    assert len(NEVER.findall(text)) == 1, text
    assert re.search(r"✗ j\d migrate · exit 5 · ", text), text
    again = agent.hook("tool", "claude", hook_input("claude", "tool", str(project)))
    assert (again.code, again.stdout) == (0, ""), again  # each told once
    assert all(job["seen"] for job in records(tmp_path / "registry").values())
