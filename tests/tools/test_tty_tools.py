"""The vocabularies given a renderer read a terminal job as its screen (issue 23, F)."""

from __future__ import annotations

from jobs_tui.app.ttytext import render_lines
from jobs_tui.engine import JobManager
from jobs_tui.engine.tools import JobTools, ProcessTools
from tests.cli.test_tty_text import STATUS, VIM_LIKE


async def test_process_log_and_list_of_a_terminal_job_are_its_screen(jm: JobManager):
    pt = ProcessTools(jm, render=render_lines)
    started = await pt.exec(command=VIM_LIKE, pty=True, yieldMs=10)
    sid = started["sessionId"]
    done = await pt.process(action="poll", sessionId=sid, timeout=20000)
    assert done["status"] == "completed", done
    log = await pt.process(action="log", sessionId=sid)
    rows = log["output"].split("\n")
    assert rows[0] == "hello notes" and rows[1:-1] == ["~"] * 22, rows
    assert " ".join(rows[-1].split()) == STATUS and log["totalLines"] == 24
    page = await pt.process(action="log", sessionId=sid, offset=1, limit=2)
    assert page["output"] == "~\n~"
    listed = await pt.process(action="list")
    assert [s["tail"] for s in listed["sessions"]] == [STATUS]


async def test_job_tools_without_a_renderer_read_the_bytes_as_before(jm: JobManager):
    record = await jm.start(VIM_LIKE, label="vim", tty=True)
    await jm.wait(record.id, 20_000)
    plain = await JobTools(jm).call({"action": "logs", "id": record.id})
    assert "rendered" not in plain and "▽" in plain["logs"]
    rendered = await JobTools(jm, render=render_lines).call({"action": "logs", "id": record.id})
    assert rendered["rendered"] is True and "▽" not in rendered["logs"]
    assert rendered["job"]["lastLine"] == STATUS
