"""Claude Code, the real client, driven by a scripted fake model (issue 23 G and D).

`claude -p` (2.1.197, from npm) runs in a throwaway HOME with `ANTHROPIC_BASE_URL` on a
fake model on 127.0.0.1 (tests/agents/fake_anthropic.py) and every proxy variable
pointing there too, so nothing reaches the network (a call meant for the outside would
show in the request log as an unknown path). `jobs-tui mcp` is registered the way docs/agents.md
says; root may not use `--dangerously-skip-permissions`, so the session allows the
server's tools with `--allowedTools mcp__jobs`. What the model saw is read from the
request log: the tools Claude Code offered it, each tool result, and the context its
hooks added. Run with `python -m pytest -m agents tests/agents/test_claude_code.py -s`
to see the figures (the tools listed, the request-log line where a finish arrived).
The sandbox and the readers of the log are claude_box.py; the stream-json session is in
claude_drivers.py; the channel (interactive screen) test is test_claude_code_channel.py.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from .claude_box import (
    JOBS_TUI,
    PREFIX,
    claude_bin,
    conversation,
    diagnose,
    first_seen,
    hook_text,
    install,
    job_id,
    job_status,
    main_requests,
    no_outside_calls,
    offered_tools,
    outcome_lines,
    readiness,
    report,
    run_claude,
    sandbox,
    served_tools,
)
from .claude_drivers import StreamSession
from .fake_anthropic import AnthropicSpeaker
from .fakemodel import FakeModel, Reply, Turn

pytestmark = [pytest.mark.agents, pytest.mark.timeout(600)]
__all__ = ["claude_bin"]  # a fixture, used by name


# --- a. the tools Claude Code offers the model --------------------------------------------


def test_claude_code_offers_the_model_every_jobs_tool(claude_bin: Path, tmp_path: Path):
    def script(turn: Turn) -> Reply:
        return Reply.say("nothing to do")

    with FakeModel(AnthropicSpeaker(), script) as model:
        box = sandbox(tmp_path, model)
        install(claude_bin, box)
        done = run_claude(claude_bin, box, "list your tools")
        assert done.returncode == 0, diagnose(model, done, box)
        served = served_tools(box)
        assert len(served) >= 9, served  # job_start ... job_restart
        mains = main_requests(model)
        assert mains, diagnose(model, done, box)
        offered = sorted(n[len(PREFIX) :] for n in offered_tools(mains[0]) if n.startswith(PREFIX))
        report(
            "tools offered to the model",
            [f"{len(offered)}: {', '.join(offered)}", *readiness(box)],
        )
        assert offered == served, diagnose(model, done, box)
        debug = (box.home / "claude-debug.log").read_text(errors="replace")
        assert "Skipping tool" not in debug, [ln for ln in debug.splitlines() if "Skipping" in ln]
        no_outside_calls(model)
        assert not model.errors, model.errors


# --- b. a scripted session: start, wait until ready, logs, kill ---------------------------

READY = "READY-ON-7311"
SERVER_COMMAND = f"sleep 1; echo booting; sleep 1; echo {READY}; exec sleep 300"


def session_script(turn: Turn) -> Reply:
    """start -> wait until the ready line -> logs -> kill -> done, from the results seen."""
    done = [r.name.removeprefix(PREFIX) for r in turn.results()]
    if not done:
        return Reply.call(PREFIX + "job_start", command=SERVER_COMMAND, label="web")
    jid = job_id(turn.results()[0].text)
    step = done[-1]
    if step == "job_start":
        return Reply.call(PREFIX + "job_wait", id=jid, until=READY, timeoutMs=60000)
    if step == "job_wait":
        return Reply.call(PREFIX + "job_logs", id=jid)
    if step == "job_logs":
        return Reply.call(PREFIX + "job_kill", id=jid)
    return Reply.say("all done")


def test_a_scripted_session_sees_each_result(claude_bin: Path, tmp_path: Path):
    with FakeModel(AnthropicSpeaker(), session_script) as model:
        box = sandbox(tmp_path, model)
        install(claude_bin, box)
        done = run_claude(claude_bin, box, "start the web server, wait until ready, then stop it")
        why = diagnose(model, done, box)
        assert done.returncode == 0, why
        assert not model.errors, why
        last = model.main_turns()[-1]
        results = {r.name.removeprefix(PREFIX): r for r in last.results()}
        assert list(results) == ["job_start", "job_wait", "job_logs", "job_kill"], why
        assert not any(r.is_error for r in results.values()), why
        report(
            "session results the model read (characters)",
            [f"{n} ({len(r.text)}): {r.text[:200]!r}" for n, r in results.items()],
        )
        assert READY in results["job_wait"].text, why  # the match, not a timeout
        assert "timeout" not in results["job_wait"].text, why
        assert "booting" in results["job_logs"].text and READY in results["job_logs"].text, why
        assert "killed" in results["job_kill"].text, why
        no_outside_calls(model)


# A success's outcome line has no last line: it is found by its own words, outside every
# tool call and result (outcome_lines), so only a hook can have brought it.
WAKE_LINE = "✓ j1 build · exit 0"


def wake_script(turn: Turn) -> Reply:
    """Start a wake job, end the turn; when the finish arrives, say so and end again."""
    if outcome_lines(turn.request, WAKE_LINE):
        return Reply.say("the build finished, as the hook said")
    if not turn.results():
        command = "sleep 3; echo built; exit 0"
        return Reply.call(PREFIX + "job_start", command=command, label="build", wake=True)
    return Reply.say("build started in the background; I am done for now")


def test_a_wake_jobs_finish_reaches_the_model_through_the_stop_hook(
    claude_bin: Path, tmp_path: Path
):
    with FakeModel(AnthropicSpeaker(), wake_script) as model:
        box = sandbox(tmp_path, model)
        install(claude_bin, box)
        done = run_claude(claude_bin, box, "build it in the background")
        why = diagnose(model, done, box)
        assert done.returncode == 0, why
        assert not model.errors, why
        seen = first_seen(model, WAKE_LINE)
        assert seen, why
        position, request, lines = seen
        report(
            f"wake finish seen in main request #{position} (log #{request.index})",
            [*lines, hook_text(request, WAKE_LINE)],
        )
        mains = main_requests(model)
        # The model had ended its turn (the request before carried only the start's result).
        assert position >= 2, why
        assert mains[position - 1].has("j1") and not mains[position - 1].has(WAKE_LINE), why
        # The stop hook held: the model made no call in between, and the finish came with
        # the job's end, ~3 s after its start.
        assert mains[position].at - mains[position - 1].at > 2.0, why
        # Reported once, and no loop: after the model's answer to it the agent stopped.
        assert len(mains) == position + 1, why
        assert len(outcome_lines(mains[-1], WAKE_LINE)) == 1, why
        no_outside_calls(model)


# A failure's outcome line ends with its last line, printed by arithmetic so that the
# command the model sent does not hold it.
QUICK_MARK = "quick-job-43"
PERSON_MARK = "person-job-45"
PERSON_COMMAND = "sleep 2; echo person-job-$((40+5)); exit 5"


def tool_script(turn: Turn) -> Reply:
    """Start a short job and a longer one, wait for the longer one: the short one's
    finish should come with the next request, from the tool hook."""
    names = [r.name.removeprefix(PREFIX) for r in turn.results()]
    if not names:
        command = "sleep 2; echo quick-job-$((40+3)); exit 2"
        return Reply.call(PREFIX + "job_start", command=command, label="quick")
    if names == ["job_start"]:
        return Reply.call(PREFIX + "job_start", command="sleep 5; echo slow-done", label="slow")
    if names == ["job_start", "job_start"]:
        jid = job_id(turn.results()[-1].text)
        return Reply.call(PREFIX + "job_wait", id=jid, timeoutMs=60000)
    return Reply.say("done")


def test_a_jobs_finish_reaches_the_model_after_the_next_tool_call(claude_bin: Path, tmp_path: Path):
    with FakeModel(AnthropicSpeaker(), tool_script) as model:
        box = sandbox(tmp_path, model)
        install(claude_bin, box)
        # The person's own job, in the same registry, ends during the session: no hook of
        # this agent may report it.
        person = subprocess.run(
            [JOBS_TUI, "start", "--label", "person", "--", "sh", "-c", PERSON_COMMAND],
            cwd=box.project,
            env=box.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert person.returncode == 0, person.stderr
        person_id = job_id(person.stdout)
        done = run_claude(claude_bin, box, "run quick and slow")
        ended = time.time()
        why = diagnose(model, done, box)
        assert done.returncode == 0, why
        assert not model.errors, why
        seen = first_seen(model, QUICK_MARK)
        assert seen, why
        position, request, lines = seen
        report(
            f"finish seen after a tool call in main request #{position} (log #{request.index})",
            [*lines, hook_text(request, QUICK_MARK)],
        )
        # It came with the first tool result after j1 ended: the second start's (when j1
        # was already done by then) or the wait's, never with j1's own start.
        names = [r.name.removeprefix(PREFIX) for r in model.main_turns()[position].results()]
        assert names in (["job_start", "job_start"], ["job_start", "job_start", "job_wait"]), why
        quick_id = job_id(model.main_turns()[-1].results()[0].text)
        assert any(ln.startswith(f"✗ {quick_id} quick · exit 2 · ") for ln in lines), lines
        # No tool result ever showed quick's end: the hook did, once.
        last = model.main_turns()[-1]
        assert not any(QUICK_MARK in r.text for r in last.results()), why
        assert len(outcome_lines(last.request, QUICK_MARK)) == 1, why
        # The person's job ended (exit 5) during the session and reached no request.
        # (the command line's session is settled by its next verb; this one, after the run)
        status = subprocess.run(
            [JOBS_TUI, "--json", "status", person_id],
            cwd=box.project,
            env=box.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        record = json.loads(status.stdout)["job"]
        assert record["exitCode"] == 5 and record["finishedAt"] / 1000 < ended, status.stdout
        assert not model.log.find(PERSON_MARK), why
        no_outside_calls(model)


PROMPT_LINE = "✓ j1 between · exit 0"


def prompt_script(turn: Turn) -> Reply:
    """First prompt: start a job that outlives the turn, end the turn. Second prompt: read."""
    prompts = [t for t in turn.user_texts() if "please" in t]
    if len(prompts) <= 1 and not turn.results():
        command = "sleep 3; echo between; exit 0"
        return Reply.call(PREFIX + "job_start", command=command, label="between")
    return Reply.say("noted")


def test_a_jobs_finish_reaches_the_model_with_the_next_prompt(claude_bin: Path, tmp_path: Path):
    with FakeModel(AnthropicSpeaker(), prompt_script) as model:
        box = sandbox(tmp_path, model)
        install(claude_bin, box)
        session = StreamSession(claude_bin, box)
        try:
            first = session.prompt("please start the job")
            assert not first.get("is_error"), first
            before = len(main_requests(model))
            deadline = time.monotonic() + 60
            while job_status(box.registry, "j1") in (None, "running", "starting"):
                status = job_status(box.registry, "j1")
                assert time.monotonic() < deadline, f"j1 still {status}: {model.log.dump()}"
                time.sleep(0.2)
            second = session.prompt("please tell me what happened")
            assert not second.get("is_error"), second
            third = session.prompt("please say if anything else ended")
            assert not third.get("is_error"), third
        finally:
            code, err = session.close()
        why = f"exit {code} {err[-1500:]}\n{model.log.dump()}\nscript errors: {model.errors}"
        assert not model.errors, why
        seen = first_seen(model, PROMPT_LINE)
        assert seen, why
        position, request, lines = seen
        report(
            f"finish seen with the next prompt in main request #{position} (log #{request.index})",
            [*lines, hook_text(request, PROMPT_LINE)],
        )
        assert position == before, why  # the second prompt's own first request
        # Reported once: the third prompt's request has it only in the history.
        assert len(outcome_lines(main_requests(model)[-1], PROMPT_LINE)) == 1, why
        no_outside_calls(model)


AGENT_A_MARK = "agent-a-47"


def agent_a_script(turn: Turn) -> Reply:
    """A: a long job, a short one, then a wait on the long one: A's next hook after the
    short one's start runs only at the end of that wait, well after the short one ended
    (and after B's hook ran)."""
    results = turn.results()
    if not results:
        return Reply.call(PREFIX + "job_start", command="sleep 14", label="a-long")
    if len(results) == 1:
        command = "sleep 3; echo agent-a-$((40+7)); exit 4"
        return Reply.call(PREFIX + "job_start", command=command, label="a-short")
    if len(results) == 2:
        return Reply.call(PREFIX + "job_wait", id=job_id(results[0].text), timeoutMs=60000)
    return Reply.say("a done")


def agent_b_script(turn: Turn) -> Reply:
    """B, at the same time in the same project: a wait that ends after A's short job did,
    and before A's wait does, so B's tool hook runs while A's finish is still unreported."""
    results = turn.results()
    if not results:
        return Reply.call(PREFIX + "job_start", command="sleep 8", label="b-long")
    if len(results) == 1:
        return Reply.call(PREFIX + "job_wait", id=job_id(results[0].text), timeoutMs=60000)
    return Reply.say("b done")


def test_two_agents_in_one_project_each_hear_only_of_their_own_jobs(
    claude_bin: Path, tmp_path: Path
):
    with (
        FakeModel(AnthropicSpeaker(), agent_a_script) as model_a,
        FakeModel(AnthropicSpeaker(), agent_b_script) as model_b,
    ):
        box = sandbox(tmp_path, model_a)
        install(claude_bin, box)
        # Same user, HOME, state folder, project and registry; only the model differs.
        env_b = dict(box.env)
        for name in (
            "ANTHROPIC_BASE_URL",
            "HTTPS_PROXY",
            "HTTP_PROXY",
            "https_proxy",
            "http_proxy",
        ):
            env_b[name] = model_b.url
        runs = []
        for name, env in (("a", box.env), ("b", env_b)):
            debug = box.home / f"claude-debug-{name}.log"
            command = [str(claude_bin), "-p", f"agent {name}", "--allowedTools", "mcp__jobs"]
            runs.append(
                subprocess.Popen(
                    [*command, "--debug-file", str(debug)],
                    cwd=box.project,
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        outputs = [run.communicate(timeout=240) for run in runs]
        why = (
            f"{[r.returncode for r in runs]} {outputs}\nA:\n{conversation(model_a)}\n"
            f"B:\n{conversation(model_b)}\nerrors: {model_a.errors} {model_b.errors}"
        )
        assert [r.returncode for r in runs] == [0, 0], why
        assert not model_a.errors and not model_b.errors, why
        assert len(model_b.main_turns()[-1].results()) == 2, why  # B did wait, past A's end
        seen = first_seen(model_a, AGENT_A_MARK)
        assert seen, why  # A heard of its own job, through its tool hook
        position, request, lines = seen
        report(
            f"agent A's finish in A's main request #{position}; B's requests: none",
            [*lines, hook_text(request, AGENT_A_MARK)],
        )
        assert not model_b.log.find(AGENT_A_MARK), why  # B never did
        # And B's hook had its chance: it ran after A's short job ended, before A was told
        # (the request after B's wait came between the two).
        status = subprocess.run(
            [JOBS_TUI, "--json", "status", job_id(model_a.main_turns()[-1].results()[1].text)],
            cwd=box.project,
            env=box.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        ended = json.loads(status.stdout)["job"]["finishedAt"] / 1000
        b_after_wait = model_b.main_turns()[-1].request.wall
        assert ended < b_after_wait < request.wall, (ended, b_after_wait, request.wall, why)
        no_outside_calls(model_a)
        no_outside_calls(model_b)
