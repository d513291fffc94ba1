"""`jobs-tui serve` answers only to its own address: the Host header, the Origin, the page.

A DNS-rebinding page (a name of the attacker's that resolves to 127.0.0.1) reaches the
port as a same-origin page of that name: the `Host` header is the only thing that
tells. Every route refuses a Host that is not the bound address, and the page builds
its URLs from the bound address, never from the request.
"""

from __future__ import annotations

import asyncio
import signal
import socket

import pytest

from .conftest import TOKEN, Served, start_server
from .test_serve_http import get, ws_status

BEARER = {"Authorization": f"Bearer {TOKEN}"}


def port_of(served: Served) -> int:
    return int(served.base.rsplit(":", 1)[1])


FOREIGN_ORIGINS = [
    "https://127.0.0.1:{port}",  # the same host and port, another scheme
    "ws://127.0.0.1:{port}",
    "http://127.0.0.1:{other}",
    "http://127.0.0.1",
    "http://127.0.0.1:{port}/",
    "http://user@127.0.0.1:{port}",
    "http://localhost:{port}",  # ours, but not the origin of a page of 127.0.0.1
    "http://evil.example:{port}",
    "null",
]
FOREIGN_HOSTS = [
    "evil.example:{port}",  # a DNS-rebinding name for 127.0.0.1
    "EVIL.example:{port}",
    "127.0.0.1:{other}",
    "127.0.0.1",  # port 80 implied
    "127.0.0.1.evil.example:{port}",
    "localhost.:{port}",
    "127.0.0.1:{port}@evil.example",
    "127.0.0.1:{port}:{port}",
    "[::1]evil:{port}",
    "",
]


def cases(served: Served, patterns: list[str]) -> list[str]:
    port = port_of(served)
    other = port + 1 if port < 65535 else port - 1
    return [pattern.format(port=port, other=other) for pattern in patterns]


def test_a_request_from_another_origin_is_refused(served: Served) -> None:
    """One server for every case: each is a request or two, a server start is 0.5 s."""
    for origin in cases(served, FOREIGN_ORIGINS):
        headers = {**BEARER, "Origin": origin}
        assert asyncio.run(ws_status(served.ws, headers))[0] == 403, origin
        assert get(served.base + "/", headers)[0] == 403, origin  # on every route
    assert served.apps() == []


def test_a_foreign_host_gets_403_on_every_route_and_is_not_echoed(served: Served) -> None:
    for host in cases(served, FOREIGN_HOSTS):
        headers = {**BEARER, "Host": host}
        for path in ("/", f"/?token={TOKEN}", "/static/js/textual.js", "/ws"):
            code, _headers, body = get(served.base + path, headers)
            assert code == 403, (host, path, code)
            assert "evil" not in body.lower() and (not host or host not in body), body
        assert get(served.base + "/", {"Host": host})[0] == 403, host  # before the token
        assert asyncio.run(ws_status(served.ws, headers))[0] == 403, host
    assert served.apps() == []


def raw_answer(port: int, head: str) -> bytes:
    """What the server answers a request written by hand (urllib always sends one Host)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(head.encode() + b"\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def test_a_request_without_one_host_is_refused(served: Served) -> None:
    port = port_of(served)
    auth = f"Authorization: Bearer {TOKEN}\r\nConnection: close\r\n"
    none = raw_answer(port, f"GET / HTTP/1.0\r\n{auth}")
    assert none.split(b"\r\n", 1)[0].split(b" ")[1] == b"403", none
    ours, theirs = f"Host: 127.0.0.1:{port}\r\n", f"Host: evil.example:{port}\r\n"
    for hosts in (ours + theirs, theirs + ours, ours + ours):
        answer = raw_answer(port, f"GET / HTTP/1.1\r\n{hosts}{auth}")
        assert answer.split(b"\r\n", 1)[0].split(b" ")[1] in (b"400", b"403"), answer
    alone = raw_answer(port, f"GET / HTTP/1.1\r\n{ours}{auth}")
    assert alone.split(b"\r\n", 1)[0].split(b" ")[1] == b"200", alone


def test_the_page_names_the_bound_address_not_the_request(served: Served) -> None:
    port = port_of(served)
    for sent, named in [
        ("127.0.0.1", "127.0.0.1"),
        ("localhost", "localhost"),
        ("LocalHost", "localhost"),  # ours, not the request's spelling
        ("[::1]", "[::1]"),
        ("[0:0::1]", "[::1]"),
    ]:
        sent, named = f"{sent}:{port}", f"{named}:{port}"
        code, _headers, page = get(served.base + "/", {**BEARER, "Host": sent})
        assert code == 200, sent
        assert f'data-session-websocket-url="ws://{named}/ws"' in page, sent
        assert f'href="http://{named}/static/css/xterm.css"' in page, sent
        assert sent == named or sent not in page


def test_a_wildcard_bind_answers_to_this_machines_name_only(cli) -> None:
    server = start_server(cli, "--host", "0.0.0.0", "--token", TOKEN)
    try:
        printed = server.base.split("//", 1)[1]  # the URL printed names this machine
        name, port = printed.rsplit(":", 1)
        assert name == socket.gethostname()
        local = f"http://127.0.0.1:{port}/"  # the name need not resolve here
        code, _headers, page = get(local, {**BEARER, "Host": printed})
        assert code == 200 and f'"ws://{name.lower()}:{port}/ws"' in page
        assert get(local, BEARER)[0] == 200
        assert get(local, {**BEARER, "Host": f"evil.example:{port}"})[0] == 403
    finally:
        server.stop(signal.SIGTERM)


@pytest.mark.parametrize(
    ("bind", "header", "named"),
    [
        ("127.0.0.1", "127.0.0.1:8765", "127.0.0.1:8765"),
        ("127.0.0.1", "localhost:8765", "localhost:8765"),
        ("127.0.0.1", "[::1]:8765", "[::1]:8765"),
        ("::1", "[::1]:8765", "[::1]:8765"),
        ("::1", "[0000::1]:8765", "[::1]:8765"),
        ("192.0.2.7", "192.0.2.7:8765", "192.0.2.7:8765"),
        ("Devbox.Example", "devbox.example:8765", "devbox.example:8765"),
        ("127.0.0.1", "evil.example:8765", None),
        ("127.0.0.1", "127.0.0.1:8766", None),
        ("127.0.0.1", "127.0.0.1:08765", None),
        ("127.0.0.1", "127.0.0.1", None),
        ("127.0.0.1", "127.0.0.1:", None),
        ("127.0.0.1", " 127.0.0.1:8765", None),
        ("127.0.0.1", "127.0.0.1:8765/", None),
        ("127.0.0.1", "[::ffff:127.0.0.1]:8765", None),
        ("127.0.0.1", "2130706433:8765", None),  # 127.0.0.1 as one number
        ("127.0.0.1", "[fe80::1%25lo]:8765", None),
        ("192.0.2.7", "evil.example:8765", None),
        ("127.0.0.1", None, None),
        ("0.0.0.0", "0.0.0.0:8765", "0.0.0.0:8765"),
        ("0.0.0.0", "localhost:8765", "localhost:8765"),
        ("0.0.0.0", "evil.example:8765", None),
        ("::", "[::]:8765", "[::]:8765"),
        ("::", "[::1]:8765", "[::1]:8765"),
        ("::", "evil.example:8765", None),
    ],
)
def test_which_host_headers_name_the_bound_address(bind, header, named) -> None:
    from jobs_tui.app.serve.hosts import Hosts

    assert Hosts.bound(bind, 8765).match(header) == named


def test_port_80_may_be_left_out_as_browsers_do() -> None:
    from jobs_tui.app.serve.hosts import Hosts

    hosts = Hosts.bound("127.0.0.1", 80)
    assert hosts.match("127.0.0.1") == "127.0.0.1:80"
    assert hosts.origin_ok("http://localhost", "localhost:80")
    assert not hosts.origin_ok("http://localhost:80", "127.0.0.1:80")  # another origin


@pytest.mark.parametrize(
    ("origin", "ok"),
    [
        ("http://127.0.0.1:8765", True),
        ("http://127.0.0.1:8765/", False),
        ("HTTP://127.0.0.1:8765", False),
        ("https://127.0.0.1:8765", False),
        ("http://localhost:8765", False),  # ours too, but not the page's own origin
        ("http://127.0.0.1:443", False),
        ("null", False),
        ("", False),
    ],
)
def test_an_origin_must_be_the_pages_own(origin, ok) -> None:
    from jobs_tui.app.serve.hosts import Hosts

    assert Hosts.bound("127.0.0.1", 8765).origin_ok(origin, "127.0.0.1:8765") is ok


def test_a_wildcard_bind_answers_to_this_machines_name_and_addresses() -> None:
    import psutil

    from jobs_tui.app.serve.hosts import Hosts

    for wildcard in ("0.0.0.0", "::"):
        hosts = Hosts.bound(wildcard, 8765)
        name = socket.gethostname().lower()
        assert hosts.match(f"{socket.gethostname()}:8765") == f"{name}:8765"
        for entries in psutil.net_if_addrs().values():
            for entry in entries:
                if entry.family == socket.AF_INET:
                    assert hosts.match(f"{entry.address}:8765") == f"{entry.address}:8765"
        if name != "localhost":  # not bound there
            assert Hosts.bound("127.0.0.1", 8765).match(f"{name}:8765") is None
