"""MCP `job_logs` of a terminal job is what its terminal shows (issue 23, item F): a model
never reads vim's `~` soup or its width probe; `raw: true` gives the bytes."""

from __future__ import annotations

import json
import os
import subprocess

from tests.cli.test_tty_text import STATUS, VIM_LIKE

from .conftest import ENTRY, serve


def _cli(registry: str, cwd: str, *words: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, JOBS_TUI_REGISTRY_DIR=registry)
    done = subprocess.run(
        [*ENTRY, *words], capture_output=True, text=True, env=env, cwd=cwd, timeout=60
    )
    assert done.returncode == 0, done
    return done


async def test_job_logs_of_a_terminal_job_are_its_screen(project):
    cwd, registry = project
    _cli(registry, cwd, "start", "--tty", "--label", "vim", "--", VIM_LIKE)
    _cli(registry, cwd, "wait", "j1", "--timeout-ms", "60000")
    async with serve(cwd, registry) as s:
        result = await s.call("job_logs", id="j1")
        assert not result.is_error, result.content
        text, logs = s.text(result), result.structured_content["logs"]
        for seen in (text, logs):
            assert "\x1b" not in seen and "▽" not in seen and "~ ~" not in seen, seen
        rows = logs.rstrip("\n").split("\n")
        assert rows[0] == "hello notes" and rows[1:-1] == ["~"] * 22, rows
        assert " ".join(rows[-1].split()) == STATUS

        raw = await s.call("job_logs", id="j1", raw=True)
        assert not raw.is_error, raw.content
        assert "\\x1b[?1049h" in raw.structured_content["logs"] and "▽" in s.text(raw)

        both = await s.call("job_logs", id="j1", raw=True, grep="x")
        assert both.is_error and "raw cannot be combined with grep" in s.text(both)


async def test_a_terminal_jobs_last_line_for_a_model_is_a_row_of_its_screen(project):
    cwd, registry = project
    _cli(registry, cwd, "start", "--tty", "--label", "vim", "--", VIM_LIKE)
    _cli(registry, cwd, "wait", "j1", "--timeout-ms", "60000")
    async with serve(cwd, registry) as s:
        status = await s.ok("job_status", id="j1")
        listed = await s.ok("job_list")
        for job in (status["job"], *listed["jobs"]):
            if "lastLine" in job:
                assert job["lastLine"] == STATUS, job
        for result in (await s.call("job_status", id="j1"), await s.call("job_list")):
            assert "▽" not in s.text(result) and "~ ~" not in s.text(result), s.text(result)


async def test_the_log_resource_of_a_terminal_job_is_its_screen(project):
    cwd, registry = project
    _cli(registry, cwd, "start", "--tty", "--label", "vim", "--", VIM_LIKE)
    _cli(registry, cwd, "wait", "j1", "--timeout-ms", "60000")
    async with serve(cwd, registry) as s:
        read = await s.session.read_resource("jobs://job/j1/log")
        text = read.contents[0].text
        assert "▽" not in text and "~ ~" not in text and "\x1b" not in text, text
        assert "\nhello notes\n" + "~\n" * 22 in text and STATUS in " ".join(text.split())
        job = await s.session.read_resource("jobs://job/j1")
        assert json.loads(job.contents[0].text)["job"]["lastLine"] == STATUS


async def test_job_wait_until_matches_a_terminal_jobs_rows(project):
    cwd, registry = project
    script = "printf 'error: fail\\033[1G\\033[Kok: fine\\r\\n'; sleep 0.5"
    _cli(registry, cwd, "start", "--tty", "--", script)
    async with serve(cwd, registry) as s:
        found = await s.ok("job_wait", id="j1", until="^ok: fine$", fromStart=True)
        assert found["match"]["line"] == "ok: fine", found
        missed = await s.ok("job_wait", id="j1", until="error", fromStart=True)
        assert "match" not in missed, missed


async def test_job_logs_grep_and_since_of_a_terminal_job_read_its_rows(project):
    from datetime import datetime, timedelta

    cwd, registry = project
    script = (
        "printf 'row %s\\n' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; "
        "printf 'error: fail\\033[1G\\033[Kok: fine\\n'; sleep 0.5; "
        "printf 'late\\033[1G\\033[Klater\\n'; " + VIM_LIKE
    )
    _cli(registry, cwd, "start", "--tty", "--", script)
    _cli(registry, cwd, "wait", "j1", "--timeout-ms", "60000")
    async with serve(cwd, registry) as s:
        for hidden in ("error", "▽", "1049", "~ +~"):
            result = await s.ok("job_logs", id="j1", grep=hidden)
            assert result["logs"] == "" and result.get("matches") == 0, (hidden, result)
        found = await s.ok("job_logs", id="j1", grep="^(row 1|ok: fine)$", context=1)
        assert found["logs"].split("\n") == ["row 1", "row 2", "--", "row 25", "ok: fine", "later"]
        timed = await s.ok("job_logs", id="j1", grep="later", timestamps=True)
        stamp, text = timed["logs"].split(" ", 1)
        assert text == "later" and stamp.endswith("Z"), timed
        written = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        since = (written - timedelta(milliseconds=200)).isoformat()
        recent = await s.ok("job_logs", id="j1", since=since)
        rows = recent["logs"].rstrip("\n").split("\n")
        # the screen since then: vim's (the main screen's `later` is behind it)
        assert rows[0] == "hello notes" and rows[1:-1] == ["~"] * 22, rows
        assert all("\x1b" not in r and "▽" not in r for r in rows), rows
