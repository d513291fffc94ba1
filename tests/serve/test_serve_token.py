"""Where `jobs-tui serve` takes its token from: a private file, the environment, or argv.

A token on the command line is in `ps` for every local user (issue 22: a second user
read it and typed into a terminal job as the first). `--token-file` is refused unless
it is a regular file of ours that nobody else can read or write; `JOBS_TUI_SERVE_TOKEN`
is read and then kept from the tabs' apps (and so from their jobs).
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import aiohttp
import psutil
import pytest

from .conftest import TOKEN, start_server, until
from .test_serve_http import get

ENV = "JOBS_TUI_SERVE_TOKEN"
WARNING = (
    "jobs-tui: warning: --token is visible to every local user in ps; "
    "use --token-file or JOBS_TUI_SERVE_TOKEN"
)


def private_file(cli, text: str = TOKEN + "\n", name: str = "token") -> Path:
    """A 0600 file in the server's cwd: named to `serve` by its short relative path."""
    path = Path(cli.cwd, name)
    path.write_text(text)
    path.chmod(0o600)
    return path


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def refused(cli, *flags: str, env: dict[str, str] | None = None):
    """`serve FLAGS` must end by itself (a refusal), not serve: 20 s is far more than it takes."""
    result = cli("serve", "--port", "0", *flags, env=env, timeout=20)
    assert result.code == 2, result
    assert "Traceback" not in result.err and "http://" not in result.out, result
    return result


def test_a_private_token_file_is_the_token_and_nothing_is_warned(cli) -> None:
    path = private_file(cli)
    server = start_server(cli, "--token-file", path.name)
    try:
        assert server.token == TOKEN  # one trailing newline stripped
        assert get(server.base + "/", bearer(TOKEN))[0] == 200
        assert get(server.base + "/", bearer(TOKEN + "x"))[0] == 403
    finally:
        code, err = server.stop(signal.SIGTERM)
    assert code == 0 and "warning" not in err, err


@pytest.mark.parametrize("shown", ["0640", "0604"])
def test_a_token_file_others_can_read_or_write_is_refused(cli, shown) -> None:
    mode = int(shown, 8)
    path = private_file(cli)
    path.chmod(mode)
    result = refused(cli, "--token-file", path.name)
    assert f"--token-file {path.name!r}: is open to group or others" in result.err
    assert f"(mode {shown})" in result.err and "chmod 600" in result.err
    assert path.stat().st_mode & 0o777 == mode  # bad input changes nothing


def test_every_permission_bit_for_group_or_others_is_refused(tmp_path) -> None:
    """Each of the six bits alone (the command line's answer is the same function's)."""
    from jobs_tui.app.errors import UsageError
    from jobs_tui.app.serve.token import read_token_file

    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    for bit in (0o040, 0o020, 0o010, 0o004, 0o002, 0o001):
        path.chmod(0o600 | bit)
        with pytest.raises(
            UsageError, match=f"is open to group or others \\(mode {0o600 | bit:04o}\\)"
        ):
            read_token_file(str(path))
    path.chmod(0o400)  # read-only for us is private too
    assert read_token_file(str(path)) == TOKEN


@pytest.mark.parametrize("swap", ["symlink", "file"])
def test_a_token_file_swapped_after_its_check_is_not_read(tmp_path, monkeypatch, swap) -> None:
    """Between the lstat and the open, another file takes the name: it is refused, unread."""
    from jobs_tui.app.errors import UsageError
    from jobs_tui.app.serve.token import read_token_file

    monkeypatch.chdir(tmp_path)
    private = Path("token")
    private.write_text(TOKEN + "\n")
    private.chmod(0o600)
    planted = Path("planted")
    planted.write_text("planted-token-0123456789abcdef\n")
    planted.chmod(0o600)
    real_open = os.open

    def swapping_open(name, flags, *rest):
        if name == "token":
            os.unlink("token")
            if swap == "symlink":
                os.symlink("planted", "token")
            else:
                os.rename("planted", "token")
        return real_open(name, flags, *rest)

    monkeypatch.setattr(os, "open", swapping_open)
    with pytest.raises(UsageError) as refusal:
        read_token_file("token")
    says = "is a symlink" if swap == "symlink" else "was replaced while it was being opened"
    assert str(refusal.value).startswith(f"--token-file 'token': {says}"), refusal.value


def test_a_token_file_that_is_a_symlink_is_refused(cli) -> None:
    target = private_file(cli, name="real-token")
    link = Path(cli.cwd, "token")
    link.symlink_to(target)
    result = refused(cli, "--token-file", link.name)
    assert f"--token-file {link.name!r}: is a symlink" in result.err


def test_a_token_file_owned_by_another_user_is_refused(cli) -> None:
    if os.geteuid() == 0:
        given = private_file(cli).name
        os.chown(Path(cli.cwd, given), 65534, 65534)
        owner = 65534
    else:  # not root: a file of root's stands in for another user's
        given, owner = "/etc/passwd", 0
    result = refused(cli, "--token-file", given)
    mine = os.geteuid()
    expected = f"--token-file {given!r}: is owned by uid {owner}, not by you (uid {mine})"
    assert expected in result.err


NO_TOKEN = {
    "directory": "is not a regular file",
    "fifo": "is not a regular file",  # refused without opening it: no hang
    "missing": "No such file or directory",
    "empty": "is empty",
    "newline": "is empty",
    "two-lines": "must be 16-256 characters",
    "short": "must be 16-256 characters",
    "spaces": "must be 16-256 characters",
    "crlf": "must be 16-256 characters",
    "binary": "must be 16-256 characters",
    "huge": "must be 16-256 characters",
}


def no_token_file(path: Path, make: str) -> None:
    if make == "directory":
        path.mkdir(mode=0o700)
    elif make == "fifo":
        os.mkfifo(path, 0o600)
    elif make != "missing":
        path.write_bytes(
            {
                "empty": b"",
                "newline": b"\n",
                "two-lines": TOKEN.encode() + b"\n\n",
                "short": b"abc\n",
                "spaces": b"has space 0123456789abc\n",
                "crlf": TOKEN.encode() + b"\r\n",
                "binary": b"\xff" * 20,
                "huge": b"a" * 100_000,
            }[make]
        )
        path.chmod(0o600)


@pytest.mark.parametrize("make", ["fifo", "empty"])
def test_a_token_file_that_holds_no_token_is_refused(cli, make) -> None:
    path = Path(cli.cwd, "token")
    no_token_file(path, make)
    result = refused(cli, "--token-file", path.name)
    assert f"--token-file {path.name!r}: {NO_TOKEN[make]}" in result.err, result.err


def test_what_is_no_token_is_said_without_echoing_it(tmp_path, monkeypatch) -> None:
    from jobs_tui.app.errors import UsageError
    from jobs_tui.app.serve.token import read_token_file

    monkeypatch.chdir(tmp_path)  # short names: a message quotes at most 80 characters
    for make, says in NO_TOKEN.items():
        no_token_file(tmp_path / make, make)
        with pytest.raises(UsageError) as refusal:
            read_token_file(make)
        message = str(refusal.value)
        assert message.startswith(f"--token-file {make!r}: {says}"), message
        assert TOKEN not in message and refusal.value.field == "--token-file"
        if make == "huge":
            assert message.endswith("(got 100000 bytes)"), message


def test_token_and_token_file_together_are_refused_naming_both(cli) -> None:
    path = private_file(cli)
    result = refused(cli, "--token", TOKEN, "--token-file", path.name)
    assert "--token and --token-file: give one, not both" in result.err


def test_the_environment_supplies_the_token_and_no_tab_inherits_it(cli) -> None:
    server = start_server(cli, env={ENV: TOKEN})
    try:
        assert server.token == TOKEN

        async def one_tab() -> dict[str, str]:
            async with (
                aiohttp.ClientSession() as session,
                session.ws_connect(server.ws, headers=bearer(TOKEN)) as ws,
            ):
                await asyncio.wait_for(ws.receive(), 30)  # the app painted
                (app,) = server.apps()
                return app.environ()

        environ = asyncio.run(one_tab())
        assert ENV not in environ  # nor in any job started from that tab
        assert environ.get("JOBS_TUI_REGISTRY_DIR") == cli.registry_dir  # the rest is passed
        assert until(lambda: server.apps() == [], 20)
    finally:
        code, err = server.stop(signal.SIGTERM)
    assert code == 0 and "warning" not in err, err


def test_a_token_flag_wins_over_the_environment(cli) -> None:
    other = "from-the-environment-0123456789"
    server = start_server(cli, "--token-file", str(private_file(cli)), env={ENV: other})
    try:
        assert server.token == TOKEN
        assert get(server.base + "/", bearer(other))[0] == 403
        assert get(server.base + "/", bearer(TOKEN))[0] == 200
    finally:
        server.stop(signal.SIGTERM)


@pytest.mark.parametrize(("value", "says"), [("", "is empty"), ("short", "must be 16-256")])
def test_a_bad_environment_token_is_refused_naming_it(cli, value, says) -> None:
    result = refused(cli, env={ENV: value})
    assert f"{ENV}: {says}" in result.err


def test_a_token_on_the_command_line_warns_that_ps_shows_it(cli) -> None:
    server = start_server(cli, "--token", TOKEN)
    try:
        assert get(server.base + "/", bearer(TOKEN))[0] == 200  # it still works
    finally:
        code, err = server.stop(signal.SIGTERM)
    assert code == 0 and WARNING in err.splitlines(), err


def test_no_process_of_the_server_shows_a_file_or_environment_token(cli) -> None:
    server = start_server(cli, "--token-file", str(private_file(cli)))
    try:
        words = psutil.Process(server.proc.pid).cmdline()
        assert not any(TOKEN in word for word in words)
    finally:
        server.stop(signal.SIGTERM)
