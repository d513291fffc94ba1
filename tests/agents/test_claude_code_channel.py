"""Claude Code and `jobs-tui mcp --channel`: a finish as a channel message (issue 23 D).

Channels exist only in Claude Code's interactive screen (for a server that is not a
plugin's), behind its `tengu_harbor` feature flag and the development-channels dialog;
this test drives that screen in a pseudo-terminal against the fake model and reads the
finish from the request log. `python -m pytest -m agents tests/agents -k channel -s`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .claude_box import (
    JOBS_TUI,
    PREFIX,
    claude_bin,
    context_texts,
    conversation,
    first_seen,
    hook_text,
    report,
    sandbox,
)
from .claude_drivers import Terminal
from .fake_anthropic import AnthropicSpeaker
from .fakemodel import FakeModel, Reply, Turn

pytestmark = [pytest.mark.agents, pytest.mark.timeout(600)]
__all__ = ["claude_bin"]  # a fixture, used by name


# --- d. the finish as a channel message (jobs-tui mcp --channel) ---------------------------

CHANNEL_MARK = "channel-job-46"
KEY = "sk-ant-api03-" + "t" * 80  # an API key of the real shape, approved in the config


def channel_script(turn: Turn) -> Reply:
    """Start a job and end the turn; a channel message about it later starts a new one."""
    if any(CHANNEL_MARK in text for _, text in context_texts(turn.request)):
        return Reply.say("the channel said it finished")
    if not turn.results():
        command = "sleep 3; echo channel-job-$((40+6)); exit 3"
        return Reply.call(PREFIX + "job_start", command=command, label="chan")
    return Reply.say("started; I will hear when it ends")


def test_a_finish_reaches_the_model_as_a_channel_message(claude_bin: Path, tmp_path: Path):
    with FakeModel(AnthropicSpeaker(), channel_script) as model:
        box = sandbox(tmp_path, model)
        # Channels are behind Claude Code's `tengu_harbor` feature flag, which it reads from
        # its cached flags while its flag service is on: so here telemetry is not switched
        # off (its calls go to the fake model's proxy log, never to the network), the flag
        # is seeded as cached, and onboarding, the API key and the folder are pre-approved.
        for name in (
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
            "DISABLE_TELEMETRY",
            "DISABLE_GROWTHBOOK",
        ):
            box.env.pop(name)
        box.env.update(ANTHROPIC_API_KEY=KEY, TERM="xterm-256color")
        config = {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
            "projects": {str(box.project): {"hasTrustDialogAccepted": True}},
            "cachedGrowthBookFeatures": {"tengu_harbor": True},
        }
        (box.home / ".claude.json").write_text(json.dumps(config))
        # docs/mcp.md's channel recipe: the server added with --channel, claude started with
        # --dangerously-load-development-channels server:jobs. No hooks: only the channel
        # can bring the finish.
        added = subprocess.run(
            [str(claude_bin), "mcp", "add", "jobs", "--", JOBS_TUI, "mcp", "--channel"],
            cwd=box.project,
            env=box.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert added.returncode == 0, added.stdout + added.stderr
        debug = box.home / "claude-debug.log"
        argv = [
            str(claude_bin),
            "--allowedTools",
            "mcp__jobs",
            "--dangerously-load-development-channels",
            "server:jobs",
            "--debug-file",
            str(debug),
        ]
        term = Terminal(argv, box.project, box.env)
        try:
            # Its warning about development channels: "1. I am using this for local
            # development" is preselected.
            assert term.pump_until(lambda: "forlocaldevelopment" in term.text(), 90), term.text()[
                -2000:
            ]
            term.type("")

            def registered() -> bool:
                text = debug.read_text(errors="replace") if debug.exists() else ""
                return "Channel notifications registered" in text

            # A notification sent before Claude Code registers its handler is dropped, so
            # the prompt (and the job) waits for it.
            assert term.pump_until(registered, 90), debug.read_text(errors="replace")[-3000:]
            term.type("start the chan job")

            def seen() -> bool:
                return first_seen(model, CHANNEL_MARK) is not None

            assert term.pump_until(seen, 120), (
                f"{model.log.dump()}\n{conversation(model)}\n{term.text()[-2000:]}"
            )
        finally:
            term.close()
        position, request, lines = first_seen(model, CHANNEL_MARK)
        report(
            f"finish seen as a channel message in main request #{position} (log #{request.index})",
            [*lines, hook_text(request, CHANNEL_MARK)],
        )
        assert any(ln.startswith("✗ j1 chan · exit 3 · ") for ln in lines), lines
        assert "<channel source=" in hook_text(request, CHANNEL_MARK)
        assert not model.errors, model.errors
        # Nothing reached the network: every call the fake does not serve was a CONNECT
        # to its proxy, answered 404 here.
        outside = model.log.unknown()
        assert all(r.method == "CONNECT" for r in outside), [r.path for r in outside]
        hosts = sorted({r.path for r in outside})
        report("calls for the outside world, caught by the proxy", [f"{len(outside)}: {hosts}"])
