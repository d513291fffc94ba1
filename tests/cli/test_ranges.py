"""Issue 9, item 11 (the command line's part): a bad registry directory is a message, every
number is checked against its range before anything runs, and messages quote at most
80 characters of what was typed."""

from __future__ import annotations

import pytest

from .conftest import Cli


@pytest.mark.parametrize("path", ["/etc/passwd", "/dev/null/sub", "{file}/sub"])
def test_a_registry_dir_that_cannot_be_one_is_a_message(cli: Cli, tmp_path, path: str):
    plain = tmp_path / "plain-file"
    plain.write_text("x")
    path = path.format(file=plain)
    for words in (("--registry-dir", path, "list"), ("list", "--registry-dir", path)):
        result = cli(*words)
        assert result.code in (1, 2), result
        assert "Traceback" not in result.err and result.err.count("\n") <= 4
        # Named, and capped at 80 characters like any typed value (a tmp path can be long).
        assert path[:70] in result.err and "--registry-dir" in result.err
    as_json = cli("--registry-dir", path, "--json", "status", "j1")
    assert as_json.code in (1, 2) and as_json.json()["field"] == "--registry-dir"
    started = cli("--registry-dir", path, "start", "--", "sleep 77")
    assert started.code in (1, 2) and "Traceback" not in started.err


def test_the_registry_dir_from_the_environment_is_named_too(cli: Cli):
    result = cli("list", env={"JOBS_TUI_REGISTRY_DIR": "/etc/passwd"})
    assert result.code == 1 and "Traceback" not in result.err and "/etc/passwd" in result.err


@pytest.mark.parametrize(
    ("words", "flag", "bounds"),
    [
        (("logs", "j1", "--offset", "-5"), "--offset", "0-"),
        (("logs", "j1", "--limit", "-5"), "--limit", "1-"),
        (("logs", "j1", "--limit", "0"), "--limit", "1-"),
        (("logs", "j1", "--lines", "2001"), "--lines", "1-2000"),
        (("exec", "--yield-ms", "10", "--", "true"), "--yield-ms", "250-30000"),
        (("exec", "--yield-ms", "30001", "--", "true"), "--yield-ms", "250-30000"),
        (("start", "--timeout-ms", "-1", "--", "true"), "--timeout-ms", "1-86400000"),
        (("wait", "j1", "--timeout-ms", "600001"), "--timeout-ms", "0-600000"),
        (("poll", "j1", "--wait-ms", "600001"), "--wait-ms", "0-600000"),
        (("start", "--tty", "--cols", "10", "--", "true"), "--cols", "20-500"),
        (("start", "--tty", "--rows", "301", "--", "true"), "--rows", "5-300"),
        (("logs", "j1", "--offset", "9" * 5000), "--offset", "out of range"),
    ],
)
def test_numbers_out_of_range_exit_2_naming_the_flag_and_range(cli: Cli, words, flag, bounds):
    cli.ok("start", "--", "echo hi")
    result = cli(*words)
    assert result.code == 2, (words, result)
    assert flag in result.err and bounds in result.err
    assert len(result.err) < 1000  # not the 5,000 digits back
    jobs = cli.ok("list", "--json").json()["jobs"]
    assert [j["id"] for j in jobs] == ["j1"]  # nothing else started


def test_messages_quote_at_most_80_characters(cli: Cli):
    long = "x" * 5000
    for words in (
        ("status", long),
        ("kill", "j1", "--signal", long),
        ("config", long),
        ("schema", long),
        ("list", long),
        (long,),
        ("start", "--cwd", "/" + long, "--", "true"),
    ):
        result = cli(*words)
        assert result.code == 2, (words[:1], result.err[:300])
        message = result.err.strip().splitlines()[-1]
        assert len(message) < 250, message
        assert "x" * 81 not in result.err
        assert "…" in message


def test_a_deleted_current_directory_is_a_message(cli: Cli, tmp_path):
    import subprocess

    from .conftest import ENTRY

    gone = tmp_path / "gone"
    gone.mkdir()
    script = f'cd {gone} && rmdir {gone} && exec "$@"'
    for words in (("start", "--", "true"), ("list",), ("exec", "--", "true")):
        done = subprocess.run(
            ["sh", "-c", script, "sh", *ENTRY, *words],
            capture_output=True,
            text=True,
            env=cli.env(),
            timeout=60,
        )
        gone.mkdir()
        assert done.returncode in (1, 2), done
        assert "Traceback" not in done.stderr and "current directory" in done.stderr


def test_argument_errors_as_json_name_the_session_given(cli: Cli):
    out = cli("--json", "--session", "agent-7", "list", "--bad").json()
    assert out["sessionId"] == "agent-7" and out["field"] == "--bad" and out["exit"] == 2
    demo = cli("--demo", "--json")
    assert demo.code == 2 and demo.json()["field"] == "--demo"
