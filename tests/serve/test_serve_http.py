"""`jobs-tui serve` without a browser: the token on every request, the flags, stopping."""

from __future__ import annotations

import asyncio
import signal
import socket
import urllib.error
import urllib.request

import aiohttp
import pytest

from .conftest import TOKEN, Served, start_server, until


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


async def ws_status(url: str, headers: dict[str, str]) -> tuple[int, bytes]:
    """The handshake's status (101: upgraded), and the first bytes the app sent."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers) as ws:
                message = await asyncio.wait_for(ws.receive(), 30)
                return 101, message.data if isinstance(message.data, bytes) else b""
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status, b""


def test_every_request_without_the_token_is_refused(served: Served) -> None:
    assert get(served.base + "/")[0] == 401
    assert "?token=" in get(served.base + "/")[2]  # says how to get in
    assert get(served.base + "/static/js/textual.js")[0] == 401
    assert get(served.base + "/?token=wrong-token-0123456789")[0] == 403
    assert get(served.base + "/", {"Authorization": "Bearer nope"})[0] == 403
    assert asyncio.run(ws_status(served.ws, {}))[0] == 401
    assert asyncio.run(ws_status(served.ws, {"Cookie": "jobs-tui-token-1=x"}))[0] == 401
    port = served.base.rsplit(":", 1)[1]
    wrong = {"Cookie": f"jobs-tui-token-{port}=wrong-token-0123456789"}
    assert asyncio.run(ws_status(served.ws, wrong))[0] == 403
    right = {"Cookie": f"jobs-tui-token-{port}={TOKEN}"}
    elsewhere = {**right, "Origin": "http://evil.example"}
    assert asyncio.run(ws_status(served.ws, elsewhere))[0] == 403  # another site's page
    assert served.apps() == []  # nothing refused started an app


def test_the_token_becomes_a_cookie_and_opens_the_page_and_the_websocket(served: Served) -> None:
    code, headers, _ = get(served.url + "&fontsize=14")
    port = served.base.rsplit(":", 1)[1]
    assert code == 303 and headers["Location"] == "/?fontsize=14"  # the token leaves the URL
    cookie = headers["Set-Cookie"]
    assert cookie.startswith(f"jobs-tui-token-{port}={TOKEN};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    code, headers, page = get(served.base + "/", {"Cookie": f"jobs-tui-token-{port}={TOKEN}"})
    assert code == 200 and f'data-session-websocket-url="{served.ws}"' in page
    assert "googleapis" not in page  # nothing fetched from a third party
    assert headers["X-Frame-Options"] == "DENY"
    code, first = asyncio.run(
        ws_status(served.ws, {"Authorization": f"Bearer {TOKEN}", "Origin": served.base})
    )
    assert code == 101 and first  # the app started and painted
    assert until(lambda: served.apps() == [], 20)  # the socket closed: its app quit


def test_a_generated_token_is_printed_when_none_is_given(cli) -> None:
    server = start_server(cli)
    try:
        assert len(server.token) >= 32 and server.token != TOKEN
        assert get(server.base + "/")[0] == 401
        assert get(server.url)[0] == 303
    finally:
        code, err = server.stop(signal.SIGTERM)
    assert code == 0 and "Traceback" not in err and "stopped" in err


@pytest.mark.parametrize(
    ("flags", "field"),
    [
        (["--token", "short"], "--token"),
        (["--token", "has space 0123456789abc"], "--token"),
        (["--port", "70000"], "--port"),
        (["--port", "http"], "--port"),
        (["--host", "203.0.113.7"], "--host"),  # TEST-NET-3: not an address of this machine
        (["--host", "no-such-host.invalid"], "--host"),
        (["--session", "x"], "--session"),
        (["--json"], "--json"),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(cli, flags: list[str], field: str) -> None:
    result = cli("serve", *flags)
    assert result.code == 2, result
    assert field in result.err and "Traceback" not in result.err


def test_a_port_in_use_is_one_line(cli) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli("serve", "--port", str(port), "--token", TOKEN)
    assert result.code == 2, result
    assert f"--port {port}: cannot listen on 127.0.0.1:{port}: address already in use" in result.err
    assert "Traceback" not in result.err


def test_ctrl_c_closes_every_tab_and_exits_130(served: Served, cli) -> None:
    cli.ok("start", "--label", "theirs", "--", "sleep 300")

    async def hold_a_tab() -> None:
        async with aiohttp.ClientSession() as session:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with session.ws_connect(served.ws, headers=headers) as ws:
                await asyncio.wait_for(ws.receive(), 30)
                assert len(served.apps()) == 1
                apps = served.apps()
                code, err = await asyncio.to_thread(served.stop, signal.SIGINT)
                assert code == 130, err
                assert "Traceback" not in err and "stopped (1 browser session(s) closed)" in err
                assert not any(app.is_running() for app in apps)

    asyncio.run(hold_a_tab())
    assert "running" in cli.ok("status", "j1").out  # a tab closing kills nothing of others


async def screen_until(url: str, words: str, timeout: float = 30) -> str:
    """What a tab's app painted (escapes removed) once it shows `words`."""
    from .browser import ESCAPE

    seen = ""
    async with aiohttp.ClientSession() as session:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with session.ws_connect(url, headers=headers) as ws:
            await ws.send_json(["resize", {"width": 120, "height": 30}])
            async with asyncio.timeout(timeout):
                while words not in seen:
                    message = await ws.receive()
                    if isinstance(message.data, bytes):
                        seen += ESCAPE.sub("", message.data.decode("utf-8", "replace"))
    return seen


def test_the_tabs_use_the_servers_registry_directory(cli, tmp_path) -> None:
    other = str(tmp_path / "flagged-registry")
    cli.ok("--registry-dir", other, "start", "--label", "in-the-flagged-one", "--", "sleep 60")
    cli.ok("start", "--label", "in-the-env-one", "--", "sleep 60")
    server = start_server(cli, "--registry-dir", other, "--token", TOKEN)
    try:
        seen = asyncio.run(screen_until(server.ws, "in-the-flagged-one"))
        assert "in-the-env-one" not in seen
    finally:
        code, err = server.stop(signal.SIGTERM)
        cli("--registry-dir", other, "clear", "--all")
    assert code == 0, err


def test_a_tabs_app_dies_with_a_killed_server(served: Served, cli) -> None:
    cli.ok("start", "--label", "survivor", "--", "sleep 300")

    async def hold_a_tab() -> list:
        async with aiohttp.ClientSession() as session:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with session.ws_connect(served.ws, headers=headers) as ws:
                await asyncio.wait_for(ws.receive(), 30)
                apps = served.apps()
                assert len(apps) == 1
                served.proc.kill()  # SIGKILL: no chance to close anything
                served.proc.wait()
                return apps

    apps = asyncio.run(hold_a_tab())
    assert until(lambda: not any(app.is_running() for app in apps), 20)
    assert "running" in cli.ok("status", "j1").out
