"""The vocabularies given a renderer read a terminal job as its screen (issue 23, F)."""

from __future__ import annotations

from jobs_tui.app.tty.text import render_lines
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


async def test_unread_output_of_a_terminal_job_is_its_screens_rows(jm: JobManager):
    from jobs_tui.app.tty.text import screen_delta
    from jobs_tui.engine.tools import ExecCommandTools

    script = (
        "printf 'error: fail\\033[1G\\033[Kok: fine\\r\\nPassword: '; sleep 1.5; "
        "printf 'x\\r\\ndone\\r\\n'"
    )
    pt = ProcessTools(jm, render=render_lines, screen_delta=screen_delta)
    first = await pt.exec(command=script, pty=True, yieldMs=700)
    assert first["output"] == "ok: fine\nPassword:\n", first  # the open prompt row too
    done = await pt.process(action="poll", sessionId=first["sessionId"], timeout=20000)
    assert done["output"] == "Password: x\ndone\n", done  # each byte read once, as rows
    ec = ExecCommandTools(jm, screen_delta=screen_delta)
    ran = await ec.exec_command(cmd=VIM_LIKE, tty=True, yield_time_ms=5000)
    assert "▽" not in ran["output"] and "~ ~" not in ran["output"], ran
    rows = ran["output"].rstrip("\n").split("\n")
    # the shell's row, hidden since by vim's screen but final before it, then vim's
    assert rows[:2] == ["$ vim notes.txt", "hello notes"] and rows[2:24] == ["~"] * 22, rows
    assert " ".join(rows[24].split()) == STATUS


async def test_job_tools_grep_a_terminal_jobs_rows_within_a_bound(jm: JobManager, monkeypatch):
    import jobs_tui.engine.tools.ttylogs as ttylogs

    script = "for i in $(seq 1 400); do printf 'n=%03d\\033[K\\n' $i; done"
    record = await jm.start(script, label="count", tty=True)
    await jm.wait(record.id, 20_000)
    tools = JobTools(jm, render=render_lines)
    found = await tools.call({"action": "logs", "id": record.id, "grep": "^n=00[1-3]$"})
    assert found["logs"] == "n=001\nn=002\nn=003" and found["rendered"] is True, found
    assert found["truncated"] is False and "earlierBytes" not in found
    plain = await JobTools(jm).call({"action": "logs", "id": record.id, "grep": "K"})
    assert plain["matches"] == 0 and "rendered" not in plain  # bytes' lines, sanitized
    monkeypatch.setattr(ttylogs, "SEARCH_BYTES", 1000)  # 1000 bytes: the last ~100 lines
    bounded = await tools.call({"action": "logs", "id": record.id, "grep": "^n=(001|400)$"})
    assert bounded["logs"] == "n=400" and bounded["truncated"] is True, bounded
    assert (
        bounded["earlierBytes"] == 400 * 10 - 1000
    )  # 10 bytes a line with CR LF and "not searched" in bounded["note"]
