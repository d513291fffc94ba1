"""examples/agent_shell.py, driven by Pilot: a job started from the prompt, chips, F2, back."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.screens import JobsScreen
from tests.ui.fakes import screen_text, until

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(60)


def load_example():
    spec = importlib.util.spec_from_file_location(
        "agent_shell", ROOT / "examples" / "agent_shell.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def test_a_job_from_the_prompt_in_the_chips_and_on_f2(registry_dir, tmp_path) -> None:
    example = load_example()
    peer = JobManager(cwd=tmp_path, registry_dir=registry_dir)
    await peer.open()
    try:
        theirs = await peer.start("sleep 60", label="someone-elses")
        manager = JobManager(cwd=tmp_path, registry_dir=registry_dir)
        app = example.AgentShell(manager)
        async with app.run_test(size=(100, 24)) as pilot:
            chips = app.query_one("#shell-chips")
            await pilot.click("#shell-prompt")
            await pilot.press(*"sleep 30", "enter")
            assert await until(lambda: "▸ 1" in str(chips.render()))  # own jobs only
            assert await until(
                lambda: "started: sleep 30" in "\n".join(app.query_one("#shell-log").lines)
            )
            mine = next(r for r in manager.jobs(include_peers=False))
            assert mine.running and mine.command == "sleep 30"

            await pilot.press("f2")
            assert await until(lambda: isinstance(app.screen, JobsScreen))
            assert await until(lambda: "sleep 30" in screen_text(app))
            shown = screen_text(app)
            assert f"{mine.id} " in shown and "someone-elses" in shown and "peer" in shown

            await pilot.press("q")
            assert await until(lambda: not isinstance(app.screen, JobsScreen))
            assert app.focused is app.query_one("#shell-prompt")
            await pilot.press(*"exit 3", "enter")  # a failure: the chips count it
            assert await until(lambda: "✗ 1" in str(chips.render()), 15)
        # The shell closed its session: its running job ended, the peer's did not.
        gone = lambda: not any(r.running for r in peer.jobs() if r.id == mine.id)  # noqa: E731
        assert await until(gone, 10)
        assert (await peer.status(theirs.id)).running
    finally:
        await peer.close()


async def test_the_first_keystrokes_go_to_the_prompt(registry_dir, tmp_path) -> None:
    example = load_example()
    app = example.AgentShell(JobManager(cwd=tmp_path, registry_dir=registry_dir))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.press(*"echo hi")
        await pilot.pause()
        assert app.query_one("#shell-prompt").value == "echo hi"
