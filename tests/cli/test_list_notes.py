"""Issue 8, items 3/13, and issue 9, item 8 (the command line's part): `list` says when
older finished jobs were pruned, and shows the registry's problems, each once."""

from __future__ import annotations

import argparse
import asyncio
import json
import os

from jobs_tui.app.verbs import job as verbs
from jobs_tui.engine import JobManager

from .conftest import Cli


def list_in_process(registry_dir: str, pruned: int, as_json: bool, capsys) -> str:
    """`jobs-tui list` run by the verb itself on a real session whose `pruned` count is
    what the registry reports (JobManager.pruned, set here as the registry would)."""

    async def run() -> int:
        async with JobManager(registry_dir=registry_dir, session_id="cli", persistent=True) as jm:
            await jm.start("true", label="one")
            jm.registry._pruned_here = pruned  # as Registry.prune counts them
            args = argparse.Namespace(verb="list", all=False, json=as_json, session="cli")
            return await verbs.list_jobs(jm, args)

    capsys.readouterr()
    assert asyncio.run(run()) == 0
    return capsys.readouterr().out


def test_list_says_how_many_older_finished_jobs_were_pruned(registry_dir: str, capsys):
    out = list_in_process(registry_dir, 12, False, capsys)
    assert out.splitlines()[-1] == "… 12 older finished jobs were pruned (max_jobs 20)"
    one = list_in_process(registry_dir + "-1", 1, False, capsys)
    assert one.splitlines()[-1] == "… 1 older finished job was pruned (max_jobs 20)"
    none = list_in_process(registry_dir + "-0", 0, False, capsys)
    assert "pruned" not in none
    as_json = json.loads(list_in_process(registry_dir + "-j", 12, True, capsys))
    assert as_json["pruned"] == 12 and as_json["maxJobs"] == 20


def test_list_shows_each_problem_once(cli: Cli, registry_dir: str):
    os.makedirs(registry_dir, mode=0o700, exist_ok=True)
    corrupt = os.path.join(registry_dir, "registry-00000000000000aa.json")
    with open(corrupt, "w") as fh:
        fh.write("{not json \x1b[31m")
    first = cli.ok("list")
    problems = [line for line in first.err.splitlines() if line.startswith("problem: ")]
    assert len(problems) == 1 and "registry-00000000000000aa.json" in problems[0]
    assert "\x1b" not in first.err and first.out.startswith("0 jobs")  # rows stay on stdout
    again = cli.ok("list")
    assert "problem:" not in again.err  # once, not on every call
    with open(corrupt, "w") as fh:
        fh.write("[1, 2")
    as_json = cli.ok("list", "--json").json()
    assert len(as_json["problems"]) == 1 and "registry-00000000000000aa" in as_json["problems"][0]
    default = cli.ok()  # no verb, off a terminal: the same list
    assert "problem:" not in default.err


def test_config_warnings_are_problems_too(cli: Cli):
    with open(os.environ["JOBS_TUI_CONFIG"], "a") as fh:
        fh.write("max_jobs = 100000\n")
    listed = cli.ok("list")
    assert any(
        line.startswith("problem: ") and "max_jobs" in line for line in listed.err.splitlines()
    )
