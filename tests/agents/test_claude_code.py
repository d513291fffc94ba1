"""Claude Code, the real client, driven by a scripted fake model (issue 23 G and D).

`claude -p` (2.1.197, from npm) runs in a throwaway HOME with `ANTHROPIC_BASE_URL` on a
fake model on 127.0.0.1 (tests/agents/fake_anthropic.py) and every proxy variable
pointing there too, so nothing reaches the network (a call meant for the outside would
show in the request log as an unknown path). `jobs-tui mcp` is registered the way README
says; root may not use `--dangerously-skip-permissions`, so the session allows the
server's tools with `--allowedTools mcp__jobs`. What the model saw is read from the
request log: the tools Claude Code offered it, each tool result, and the context its
hooks added. Run with `python -m pytest -m agents tests/agents/test_claude_code.py -s`
to see the figures (the tools listed, the request-log line where a finish arrived).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .fake_anthropic import AnthropicSpeaker
from .fakemodel import FakeModel, Reply, Request, Turn, strings_of
from .npm_cache import npm_package

pytestmark = [pytest.mark.agents, pytest.mark.timeout(600)]

PREFIX = "mcp__jobs__"
RUN_TIMEOUT_S = 240
# The jobs-tui under test: this venv's, or another build's (to see a test fail on old code).
JOBS_TUI = os.environ.get("JOBS_TUI_AGENTS_BIN") or str(Path(sys.executable).with_name("jobs-tui"))


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    prefix = npm_package("claude-code", "@anthropic-ai/claude-code", 2)
    return prefix / "node_modules" / ".bin" / "claude"


@dataclass
class Sandbox:
    """A throwaway HOME, a project directory and the environment Claude Code runs in."""

    home: Path
    project: Path
    registry: Path
    env: dict[str, str]


def system_path() -> str:
    """PATH without the folder of the jobs-tui under test: setup must write its absolute
    path, as for a user whose venv is not on the client's PATH."""
    mine = str(Path(JOBS_TUI).parent)
    return os.pathsep.join(
        p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep) if p != mine
    )


def sandbox(tmp_path: Path, model: FakeModel) -> Sandbox:
    home, project, registry = tmp_path / "home", tmp_path / "project", tmp_path / "registry"
    for d in (home, project, registry):
        d.mkdir(mode=0o700)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {
        "PATH": system_path(),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_RUNTIME_DIR": str(runtime),
        "JOBS_TUI_REGISTRY_DIR": str(registry),
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": "test",
        # Claude Code's own switches for what it would fetch or report on its own.
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_GROWTHBOOK": "1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
        # How long `claude -p` waits for an alwaysLoad server to be ready (connected, tools
        # and resources listed) before its first request: 5 s by default, which this
        # shared two-core machine (load 10-12 while other helpers run their suites) can
        # exceed; the tests check that the tools are there on the first request, not how
        # fast the machine is (test_claude_code_offers_... prints the time it took).
        "MCP_CONNECT_TIMEOUT_MS": "60000",
        # Anything that still wants the outside world goes to the fake model's log.
        "HTTPS_PROXY": model.url,
        "HTTP_PROXY": model.url,
        "https_proxy": model.url,
        "http_proxy": model.url,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    return Sandbox(home, project, registry, env)


def register(claude: Path, box: Sandbox) -> None:
    """README's `claude mcp add jobs -- jobs-tui mcp`, with `alwaysLoad` (absolute path:
    the venv's bin is not on the client's PATH here).

    `claude -p` does not wait for a server to connect before its first request unless
    the server's entry says `"alwaysLoad": true`: on this shared machine (load 7-9) the
    plain entry's first request carried none of the jobs tools, three runs out of three,
    and the model is told `'jobs' is still connecting`.
    """
    entry = {"type": "stdio", "command": JOBS_TUI, "args": ["mcp"], "alwaysLoad": True}
    done = subprocess.run(
        [str(claude), "mcp", "add-json", "jobs", json.dumps(entry)],
        cwd=box.project,
        env=box.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def run_claude(claude: Path, box: Sandbox, prompt: str, *extra: str) -> subprocess.CompletedProcess:
    debug = box.home / "claude-debug.log"
    command = [str(claude), "-p", prompt, "--allowedTools", "mcp__jobs", "--debug-file", str(debug)]
    return subprocess.run(
        [*command, *extra],
        cwd=box.project,
        env=box.env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )


def served_tools(box: Sandbox) -> list[str]:
    """The tools `jobs-tui mcp` itself lists (a plain MCP handshake), the yardstick."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "yardstick", "version": "1"},
        },
    }
    proc = subprocess.Popen(
        [JOBS_TUI, "mcp"],
        cwd=box.project,
        env=box.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin and proc.stdout
    try:
        for message in (
            init,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ):
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        for line in proc.stdout:  # ends at the answer (or at EOF, then the next fails)
            listed = json.loads(line)
            if listed.get("id") == 2:
                break
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return sorted(t["name"] for t in listed["result"]["tools"])


def job_id(text: str) -> str:
    found = re.search(r"\bj[1-9][0-9]*\b", text)
    assert found, text
    return found.group(0)


def main_requests(model: FakeModel) -> list[Request]:
    return [t.request for t in model.main_turns()]


def offered_tools(request: Request) -> list[str]:
    return [t["name"] for t in request.body.get("tools") or []]


def report(title: str, lines: list[str]) -> None:
    """A figure for the issue note (shown with -s)."""
    print(f"\n[claude-code] {title}")
    for line in lines:
        print(f"    {line}")


def diagnose(model: FakeModel, done: subprocess.CompletedProcess, box: Sandbox) -> str:
    debug = box.home / "claude-debug.log"
    tail = debug.read_text(errors="replace")[-4000:] if debug.exists() else "(no debug log)"
    return (
        f"exit {done.returncode}\nstdout: {done.stdout[-1500:]}\nstderr: {done.stderr[-1500:]}\n"
        f"script errors: {model.errors}\nlog:\n{model.log.dump()}\n"
        f"conversation:\n{conversation(model)}\ndebug tail:\n{tail}"
    )


def conversation(model: FakeModel) -> str:
    """Each main turn: the tools offered (jobs ones), the calls and results so far."""
    out = []
    for i, turn in enumerate(model.main_turns()):
        jobs = sum(1 for name in turn.tools if name.startswith(PREFIX))
        calls = [f"{c.name}({json.dumps(c.arguments)[:80]})" for c in turn.calls()]
        results = [f"{r.name} err={r.is_error} {r.text[:160]!r}" for r in turn.results()]
        out.append(f"turn {i}: {jobs} jobs tools; calls {calls}; results {results}")
    return "\n".join(out)


def readiness(box: Sandbox) -> list[str]:
    """What Claude Code's debug log says of the server's start (for the note)."""
    debug = box.home / "claude-debug.log"
    text = debug.read_text(errors="replace") if debug.exists() else ""
    keep = ("Successfully connected", "not ready after", "alwaysLoad")
    return [
        ln[:200]
        for ln in text.splitlines()
        if 'server "jobs"' in ln or "[MCP]" in ln
        if any(k in ln for k in keep)
    ]


def no_outside_calls(model: FakeModel) -> None:
    unknown = [f"{r.method} {r.path}" for r in model.log.unknown()]
    assert not unknown, f"calls the fake model does not serve (meant for the network?): {unknown}"


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
            "session results the model read", [f"{n}: {r.text[:200]!r}" for n, r in results.items()]
        )
        assert READY in results["job_wait"].text, why  # the match, not a timeout
        assert "timeout" not in results["job_wait"].text, why
        assert "booting" in results["job_logs"].text and READY in results["job_logs"].text, why
        assert "killed" in results["job_kill"].text, why
        no_outside_calls(model)


# --- c. a finish reaches the model through the hooks --------------------------------------


def install(claude: Path, box: Sandbox) -> None:
    """`jobs-tui setup claude` in the project, as README says: the server in .mcp.json,
    its approval and the three hooks in .claude/settings.local.json."""
    done = subprocess.run(
        [JOBS_TUI, "setup", "claude"],
        cwd=box.project,
        env=box.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def context_texts(request: Request) -> Iterator[tuple[str, str]]:
    """(role, text) of every part of the request's messages that is not a tool call or a
    tool result: the prompt, and what hooks put before the model."""
    for m in (request.body or {}).get("messages") or []:
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            if isinstance(block, dict) and block.get("type") not in ("tool_result", "tool_use"):
                for text in strings_of(block):
                    yield str(m.get("role")), text


def outcome_lines(request: Request, marker: str) -> list[str]:
    """The lines that carry `marker` outside every tool call and result: what a hook (not
    a tool call) put before the model."""
    return [ln for _, text in context_texts(request) for ln in text.splitlines() if marker in ln]


def hook_text(request: Request, marker: str) -> str:
    """The whole text (outside tool calls and results) that carries `marker`, for the note."""
    for role, text in context_texts(request):
        if marker in text:
            return f"{role}: {text[-400:]!r}"
    return ""


def first_seen(model: FakeModel, marker: str) -> tuple[int, Request, list[str]] | None:
    """The first main request (its position among them) whose hook context has `marker`."""
    for i, request in enumerate(main_requests(model)):
        lines = outcome_lines(request, marker)
        if lines:
            return i, request, lines
    return None


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
        # Reported once: the later requests carry that one line, not a second report.
        last = mains[-1]
        assert sum(ln.count(WAKE_LINE) for ln in outcome_lines(last, WAKE_LINE)) == 1, why
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


class StreamSession:
    """`claude -p --input-format stream-json`: one process, several user prompts, so the
    prompt hook runs between them while the MCP server (and its jobs) stays up."""

    def __init__(self, claude: Path, box: Sandbox) -> None:
        self.box = box
        debug = box.home / "claude-debug.log"
        command = [
            str(claude),
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "mcp__jobs",
            "--debug-file",
            str(debug),
        ]
        self.proc = subprocess.Popen(
            command,
            cwd=box.project,
            env=box.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.events: list[dict] = []

    def prompt(self, text: str) -> dict:
        """Send one user prompt; the turn's `result` event (read with a deadline by the
        caller's pytest timeout: Claude Code answers each prompt with one)."""
        assert self.proc.stdin and self.proc.stdout
        message = {"type": "user", "message": {"role": "user", "content": text}}
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            event = json.loads(line)
            self.events.append(event)
            if event.get("type") == "result":
                return event
        raise AssertionError(f"claude ended without a result: {self.close()}")

    def close(self) -> tuple[int, str]:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self.proc.stderr.read() if self.proc.stderr else ""
        return self.proc.returncode, err


def job_status(registry: Path, jid: str) -> str | None:
    """A job's status as its session's registry file says (read only: a poll of ours must
    not count as the agent having been told)."""
    for path in registry.glob("registry-*.json"):
        try:
            jobs = json.loads(path.read_text()).get("jobs") or []
        except (OSError, ValueError):
            continue
        for record in jobs:
            if record.get("id") == jid:
                return str(record.get("status"))
    return None


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
        no_outside_calls(model)


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


class Terminal:
    """Claude Code's interactive screen in a pseudo-terminal (channels exist only there:
    `claude -p` registers them only for plugin servers over its SDK control channel)."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become claude
            try:
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.raw = b""

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if ready:
                try:
                    self.raw += os.read(self.fd, 65536)
                except OSError:
                    return

    def text(self) -> str:
        """What it printed, escapes and all whitespace removed (the screen moves its
        cursor instead of printing spaces), for finding words."""
        plain = re.sub(rb"\x1b\[[0-9;?>=]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b.", b"", self.raw)
        return re.sub(r"\s+", "", plain.decode(errors="replace"))

    def pump_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            self.pump(0.3)
        return predicate()

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())
        self.pump(0.5)
        os.write(self.fd, b"\r")

    def close(self) -> None:
        """End the claude this test started (by its pid), then reap it."""
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            self.pump(0.2)
        else:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


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
        # README's channel recipe: the server added with --channel, claude started with
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
