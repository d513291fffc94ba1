"""How long `jobs-tui hook tool` takes when it has nothing to report (issue 23 D), beside an
interpreter start: the hook runs on every tool call of an agent, so this is its cost.

Run by hand (not part of the default test run):

    python -m pytest tests/bench/test_hook_bench.py -s -p no:cacheprovider

A fake agent client (tests/hook/fake_agent.py) spawns `jobs-tui mcp`, starts one running
job (so the session's registry file has a record to read), and runs each command as its
own child through `sh -c` with a Claude Code PostToolUse input on stdin, as the client
does: the `jobs-tui` console script `hook tool --client claude`, and `python -c pass`
(the same interpreter, spawned the same way), interleaved so the ratio compares runs made
under the same load. Also timed: a hook that has one finish to report (the report path,
imports and a locked write). Only the answers are asserted, never timing.
JOBS_TUI_BENCH_HOOK_RUNS sets the runs (default 20).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from benchlib import Table, env_int, median, p95, publish

from tests.hook.agents import FakeAgent, settled
from tests.hook.inputs import hook_input

RUNS = max(3, env_int("JOBS_TUI_BENCH_HOOK_RUNS", 20))
SCRIPT = str(Path(sys.executable).with_name("jobs-tui"))

pytestmark = pytest.mark.timeout(1800)


def test_hook_nothing_to_report(tmp_path: Path) -> None:
    agent = FakeAgent(tmp_path / "registry", tmp_path)
    try:
        agent.start("sleep 600", label="serve")
        stdin = json.dumps(hook_input("claude", "tool", str(tmp_path)))
        hook = [SCRIPT, "hook", "tool", "--client", "claude"]
        python = [sys.executable, "-c", "pass"]
        figures: dict[str, list[float]] = {"hook": [], "python": []}
        for index in range(RUNS + 1):
            order = [("hook", hook), ("python", python)]
            for name, argv in order if index % 2 else order[::-1]:
                run = agent.ask(op="hook", argv=argv, stdin=stdin)
                assert (run["code"], run["stdout"]) == (0, ""), run
                if index:  # the first round warms the file cache
                    figures[name].append(run["seconds"] * 1000)
        reported = []
        for n in range(max(3, RUNS // 4)):
            job = agent.start(f"exit {n + 1}", label=f"quick{n}")
            settled(tmp_path / "registry", job)
            run = agent.ask(op="hook", argv=hook, stdin=stdin)
            assert f"{job} quick{n}" in run["stdout"], run
            reported.append(run["seconds"] * 1000)
    finally:
        agent.close()
    base = median(figures["python"])
    table = Table(f"jobs-tui hook tool (sh -c, console script), median of {RUNS}")
    for name, values in (("nothing to report", figures["hook"]), ("one finish", reported)):
        table.add(
            f"hook, {name}",
            f"{median(values):.1f} ms (p95 {p95(values):.1f})",
            f"sh -c 'python -c pass' {base:.1f} ms",
            f"{median(values) / base:.2f}x",
        )
    publish(table)
