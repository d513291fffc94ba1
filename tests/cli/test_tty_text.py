"""A terminal job's output read as text is what its terminal shows (issue 23, item F):
`logs` renders it through the terminal pane's emulator, `--raw` gives the bytes, and the
last line is a real screen row, not the escape soup of a full-screen program."""

from __future__ import annotations

import json

from .conftest import Cli

# A vim-like session on a real PTY: the alternate screen, vim's width probe (a `▽`
# drawn, its cursor position asked for, then cleared), `~` rows, a status line.
VIM_LIKE = (
    "printf '$ vim notes.txt\\r\\n'; "
    "printf '\\033[?1049h\\033[>4;2m\\033[?1h\\033=\\033[H\\033[2J'; "
    "printf '\\342\\226\\275\\033[6n\\033[H\\033[2J'; "
    "for r in $(seq 2 23); do printf '\\033[%d;1H~\\033[K' $r; done; "
    'printf \'\\033[1;1Hhello notes\\033[24;1H"notes.txt" [New]'
    "\\033[24;63H0,0-1\\033[24;76HAll\\033[1;1H'"
)
STATUS = '"notes.txt" [New] 0,0-1 All'


def _vim_job(cli: Cli) -> None:
    cli.ok("start", "--tty", "--label", "vim", "--", VIM_LIKE)
    assert cli("wait", "j1", "--timeout-ms", "60000").code == 0


def test_logs_of_a_terminal_job_are_its_screen_and_raw_is_its_bytes(cli: Cli):
    _vim_job(cli)
    out = cli.ok("logs", "j1").out
    rows = out.rstrip("\n").split("\n")
    assert "\x1b" not in out and "▽" not in out, out
    assert rows[0] == "hello notes", rows
    assert rows[1:-1] == ["~"] * 22, rows  # one `~` a row, never `~      ~`
    assert " ".join(rows[-1].split()) == STATUS
    last = cli.ok("logs", "j1", "--lines", "1").out.splitlines()
    assert last[0] == "… 23 earlier lines" and last[1].split() == STATUS.split()
    page = cli.ok("logs", "j1", "--offset", "1", "--limit", "2", "--json").json()
    assert page["logs"] == "~\n~\n" and page["rendered"] is True and page["totalLines"] == 24

    raw = cli.ok("logs", "j1", "--raw").out
    assert "\x1b[?1049h" in raw and "▽" in raw and "~\x1b[K" in raw
    as_json = cli.ok("logs", "j1", "--raw", "--json").json()
    assert as_json["raw"] is True and "\x1b[6n" in as_json["logs"]


def test_the_last_line_of_a_terminal_job_is_a_row_of_its_screen(cli: Cli):
    _vim_job(cli)
    job = cli.ok("status", "j1", "--json").json()["job"]
    assert job["lastLine"] == STATUS
    listed = cli.ok("list", "--json").json()["jobs"]
    assert [j["lastLine"] for j in listed] == [STATUS]


def test_raw_refuses_what_it_cannot_go_with(cli: Cli):
    _vim_job(cli)
    for flag in (["--grep", "x"], ["--follow"], ["--offset", "1"]):
        result = cli("logs", "j1", "--raw", *flag)
        assert result.code == 2 and "--raw cannot be combined with" in result.err, result


def test_a_plain_job_is_read_as_before_and_raw_gives_its_bytes(cli: Cli):
    cli.ok("start", "--", "printf 'a\\033[31mred\\033[0m\\nb\\n'")
    assert cli("wait", "j1").code == 0
    assert cli.ok("logs", "j1").out == "ared\nb\n"
    assert cli.ok("logs", "j1", "--raw").out == "a\x1b[31mred\x1b[0m\nb\n"


def test_follow_of_a_terminal_job_prints_rows_as_they_become_final(cli: Cli):
    # a line-oriented part (rows that scroll and stay), then a vim-like screen at the end
    script = (
        "for i in 1 2 3; do printf 'step %s\\r\\n' $i; sleep 0.3; done; "
        "printf '50%%\\r80%%\\r100%%\\r\\n'; sleep 0.3; " + VIM_LIKE
    )
    cli.ok("start", "--tty", "--label", "mixed", "--", script)
    out = cli.ok("logs", "j1", "--follow", timeout=60).out
    assert "\x1b" not in out and "▽" not in out and "~ ~" not in out, out
    rows = out.rstrip("\n").split("\n")
    # each step once, in order; the progress bar as its terminal shows it
    assert [r for r in rows if r.startswith("step")] == ["step 1", "step 2", "step 3"], rows
    assert "100%" in rows and "50%" not in " ".join(rows)
    # the screen at the end: vim's, then the outcome
    assert rows[-25] == "hello notes" and rows[-24:-2] == ["~"] * 22, rows
    assert " ".join(rows[-2].split()) == STATUS and rows[-1].startswith("✓ j1 mixed · exit 0")


def test_wait_until_matches_a_terminal_jobs_rows_not_its_bytes(cli: Cli):
    # `error: fail` is overwritten in place (cursor to column 1, erase the line): the
    # screen shows `ok: fine`; the bytes' line is `error: failok: fine`
    cli.ok("start", "--tty", "--", "printf 'error: fail\\033[1G\\033[Kok: fine\\r\\n'; sleep 0.5")
    found = cli("wait", "j1", "--until", "^ok: fine$", "--from-start", "--timeout-ms", "30000")
    assert found.code == 0 and found.out == "ok: fine\n", found
    missed = cli(
        "wait", "j1", "--until", "error", "--from-start", "--json", "--timeout-ms", "30000"
    )
    assert missed.json()["reason"] != "match", missed.out
    cli.ok("start", "--tty", "--label", "vim", "--", VIM_LIKE)
    status = cli("wait", "j2", "--until", r"notes\.txt.*All$", "--from-start", "--json")
    assert status.json()["match"]["line"].split() == STATUS.split(), status.out


def test_status_of_a_terminal_job_renders_without_an_event_loop(cli: Cli):
    import subprocess
    import sys

    _vim_job(cli)
    code = (
        "import sys\n"
        "from jobs_tui.app.cli import main\n"
        "code = main(['status', 'j1', '--json'])\n"
        "print('LOADED', 'asyncio' in sys.modules, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=cli.env(), timeout=60
    )
    assert done.returncode == 0 and "LOADED False" in done.stderr, done
    assert json.loads(done.stdout)["job"]["lastLine"] == STATUS


def test_the_json_of_a_terminal_jobs_logs_is_of_the_published_shape(cli: Cli):
    from .test_json_shape import checked, schemas  # noqa: F401 (the fixture's function)

    _vim_job(cli)
    published = json.loads(cli.ok("schema", "cli").out)
    for words in (
        ("logs", "j1", "--json"),
        ("logs", "j1", "--raw", "--json"),
        ("logs", "j1", "--offset", "0", "--limit", "3", "--json"),
        ("logs", "j1", "--follow", "--json"),
        ("logs", "j1", "--grep", "notes", "--context", "1", "--json"),
        ("logs", "j1", "--timestamps", "--json"),
        ("logs", "j1", "--since", "1h", "--lines", "3", "--json"),
    ):
        checked(published, "logs", cli.ok(*words))


def test_poll_and_exec_of_a_terminal_job_print_its_rows(cli: Cli):
    script = (
        "printf 'error: fail\\033[1G\\033[Kok: fine\\r\\nPassword: '; sleep 1; printf 'x\\r\\n'"
    )
    ran = cli("exec", "--tty", "--yield-ms", "500", "--", script)
    assert ran.out == "ok: fine\nPassword:\n", ran
    assert cli("wait", "j1", "--timeout-ms", "30000").code == 0
    polled = cli.ok("poll", "j1")
    assert polled.out == "Password: x\n", polled


def test_raw_to_a_terminal_spells_the_escapes_out(cli: Cli):
    """`--raw` on a terminal: a hostile job's bytes never act on the reader's screen (its
    controls spelled out as `\\x1b`); the same call piped gives the bytes themselves."""
    import os
    import pty
    import subprocess

    from .conftest import ENTRY

    _vim_job(cli)
    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            [*ENTRY, "logs", "j1", "--raw"],
            stdout=slave,
            stderr=subprocess.PIPE,
            env=cli.env(),
            cwd=cli.cwd,
            timeout=60,
        )
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the writer is gone and all was read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
    assert done.returncode == 0, done.stderr
    assert b"\x1b" not in shown and b"\x9b" not in shown, shown[:200]
    assert b"\\x1b[?1049h" in shown and "▽".encode() in shown
