"""`jobs-tui serve`: the jobs app in a browser, one app process per tab (textual-serve).

The screen can kill jobs and type into them, so nobody gets in by knowing the port:
every request needs the server's token (always set: see `serve.token` for where it
comes from, and why a file or the environment rather than argv), even on loopback,
where every local user and every web page in the browser can reach the port. The URL
printed carries it as `?token=`; the first page load moves it into a cookie (HttpOnly,
SameSite=Strict, this port's own name) and redirects to the bare URL, so the token
leaves the address bar; the page's websocket then carries the cookie. Scripts may send
`Authorization: Bearer TOKEN`. Before the token, every request must name the bound
address in its Host, and carry no Origin but its own (`serve.hosts`: DNS rebinding):
403. Then no token: 401; a wrong one: 403.

Each tab runs `python -m jobs_tui.app.serve.tab --app` (the `jobs-tui` app on textual's
web driver) in its own process session, with this process's cwd, environment and
registry directory: a viewing session of the same registry, which on close kills only
the jobs started from that tab. Ctrl-C (or SIGTERM/SIGHUP) closes every tab's app the
way closing the tab does, then the server; a tab's app dies with the server even if
the server is SIGKILLed (PR_SET_PDEATHSIG on Linux, a parent poll elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import os
import re
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError, VerbError
from .hosts import WILDCARDS, Hosts
from .tab import dimension
from .token import ENV as TOKEN_ENV
from .token import TOKEN_MAX, TOKEN_MIN, choose, token_problem

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765
THIRD_PARTY_LINK = re.compile(r"<link[^>]*https://fonts\.googleapis\.com[^>]*>")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The `serve` verb's own options (`--registry-dir` is global)."""
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"0-65535 (default {DEFAULT_PORT}; 0: any)"
    )
    p.add_argument(
        "--token-file",
        metavar="PATH",
        help=f"read the secret every request needs from PATH, a file of yours that only you "
        f"can read (chmod 600); or set {TOKEN_ENV}; default: a generated one, printed in "
        f"the URL. A token is {TOKEN_MIN}-{TOKEN_MAX} of A-Z a-z 0-9 - _ . ~",
    )
    p.add_argument(
        "--token",
        type=_token,
        help="the secret, on the command line: every local user sees it in ps (warned)",
    )


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:80]!r} is not a whole number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is outside 0-65535")
    return port


def _token(text: str) -> str:
    problem = token_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


@dataclass(frozen=True)
class Options:
    host: str
    port: int
    token: str
    registry_dir: str
    cwd: str

    def app_command(self) -> list[str]:
        """What one tab runs: this interpreter, so the same install and the same registry."""
        return [sys.executable, "-m", "jobs_tui.app.serve.tab", "--app", self.registry_dir]


def run_verb(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (130) or SIGTERM/SIGHUP (0); a bad registry or port is one line."""
    from jobs_tui.engine import Config, ConfigError
    from jobs_tui.engine.config import resolve_registry_dir
    from jobs_tui.engine.registry.paths import ensure_private_dir

    from ..session import unusable_registry

    for flag, given in (("--session", args.session), ("--json", args.json)):
        if given:
            why = "each tab is a session of its own" if flag == "--session" else "it prints a URL"
            raise UsageError(f"serve takes no {flag}: {why}", flag)
    token = choose(args.token, args.token_file).value
    cwd = os.getcwd()
    try:
        directory = resolve_registry_dir(cwd, None, Config.load(), args.registry_dir)
    except ConfigError as exc:
        raise VerbError(str(exc), EXIT_ERROR) from exc
    try:
        ensure_private_dir(directory)
    except OSError as exc:
        raise unusable_registry(exc, str(directory), args.registry_dir) from exc
    options = Options(args.host, args.port, token, str(directory), cwd)
    return asyncio.run(serve(options))


def page_url(host: str, port: int, token: str) -> str:
    """The URL to open: a wildcard address is shown as this machine's name."""
    import socket

    shown = socket.gethostname() if host in WILDCARDS else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/?token={token}"


async def serve(options: Options) -> int:
    """Bind, print the URL, serve until a signal; then close every tab's app, then exit."""
    from aiohttp import web

    from ..printing import err, line

    server = JobsServer(options)
    runner = web.AppRunner(await server.make_app(), handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, options.host, options.port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise listen_error(options, exc) from exc
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]  # --port 0
    server.cookie = f"jobs-tui-token-{port}"  # cookies are shared across a host's ports
    server.hosts = Hosts.bound(options.host, port)
    stopped = asyncio.Event()
    how = {"code": EXIT_OK}
    loop = asyncio.get_running_loop()
    for signum, code in ((signal.SIGINT, EXIT_INTERRUPTED), (signal.SIGTERM, EXIT_OK)):
        loop.add_signal_handler(signum, lambda c=code: (how.update(code=c), stopped.set()))
    loop.add_signal_handler(signal.SIGHUP, stopped.set)
    line(f"jobs-tui serve: {page_url(options.host, port, options.token)}")
    err("Open that URL in a browser (it carries the token). Ctrl-C stops the server.")
    try:
        await stopped.wait()
    finally:
        closed = await server.close_all()
        await runner.cleanup()
    err(f"jobs-tui serve: stopped ({closed} browser session(s) closed)")
    return how["code"]


def listen_error(options: Options, exc: OSError) -> VerbError:
    """One line naming the flag: a port in use, an address not of this machine, a bad name."""
    import errno
    import socket

    why = (exc.strerror or str(exc)).rsplit("): ", 1)[-1]
    in_use = exc.errno == errno.EADDRINUSE
    ours = in_use or exc.errno == errno.EADDRNOTAVAIL or isinstance(exc, socket.gaierror)
    flag, value = ("--port", options.port) if in_use else ("--host", options.host)
    return VerbError(
        f"{flag} {value}: cannot listen on {options.host}:{options.port}: {why}",
        EXIT_USAGE if ours else EXIT_ERROR,
        field=flag,
    )


class JobsServer:
    """textual-serve's Server, with the token, our command line and no third-party fonts."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.cookie = "jobs-tui-token"
        self.hosts = Hosts((), 0)  # no name at all until `serve` knows the bound port
        self.services: set[Any] = set()

    async def make_app(self) -> Any:
        import aiohttp_jinja2
        import jinja2
        import textual_serve
        from aiohttp import web
        from textual_serve.download_manager import DownloadManager

        from .tab import tab_app_class  # textual-serve loads only when serving

        base = Path(textual_serve.__file__).parent
        template = (base / "templates" / "app_index.html").read_text("utf-8")
        # The page would fetch a font from Google: offline it only delays the first paint.
        template = THIRD_PARTY_LINK.sub("", template)
        self.downloads = DownloadManager()
        self.tab_app = tab_app_class()
        app = web.Application(middlewares=[self._guard])
        aiohttp_jinja2.setup(app, loader=jinja2.DictLoader({"app_index.html": template}))
        app.add_routes(
            [
                web.get("/", self._index, name="index"),
                web.get("/ws", self._websocket, name="websocket"),
                web.static("/static", base / "static", name="static"),
            ]
        )
        return app

    # -- the token ---------------------------------------------------------------------
    def _presented(self, request: Any) -> str | None:
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return auth[7:].strip()
        return request.query.get("token") or request.cookies.get(self.cookie)

    def allowed(self, presented: str | None) -> bool:
        return presented is not None and hmac.compare_digest(
            presented.encode("utf-8", "replace"), self.options.token.encode()
        )

    @property
    def _guard(self) -> Any:
        from aiohttp import web

        @web.middleware
        async def guard(request: Any, handler: Any) -> Any:
            named = request.headers.getall("Host", [])  # not request.host: it has a default
            authority = self.hosts.match(named[0]) if len(named) == 1 else None
            if authority is None:
                raise web.HTTPForbidden(text=REFUSED_HOST)
            origins = request.headers.getall("Origin", [])
            if origins and (len(origins) > 1 or not self.hosts.origin_ok(origins[0], authority)):
                raise web.HTTPForbidden(text="jobs-tui serve: a request from another origin.\n")
            request["authority"] = authority  # our spelling of the Host: the page's URLs
            presented = self._presented(request)
            if presented is None:
                raise web.HTTPUnauthorized(text=REFUSED_NO_TOKEN)
            if not self.allowed(presented):
                raise web.HTTPForbidden(text="jobs-tui serve: wrong token.\n")
            if "token" in request.query and request.method == "GET" and request.path == "/":
                query = {k: v for k, v in request.query.items() if k != "token"}
                target = request.rel_url.with_query(query)
                response = web.HTTPSeeOther(location=str(target))
                response.set_cookie(
                    self.cookie, self.options.token, httponly=True, samesite="Strict", path="/"
                )
                raise response
            response = await handler(request)
            response.headers.setdefault("Referrer-Policy", "no-referrer")
            response.headers.setdefault("X-Frame-Options", "DENY")
            return response

        return guard

    # -- the page and one tab's app -------------------------------------------------------
    async def _index(self, request: Any) -> Any:
        import aiohttp_jinja2

        try:
            font_size = int(request.query.get("fontsize", "16"))
        except ValueError:
            font_size = 16
        authority = request["authority"]  # the bound address as we spell it, not the Host
        context = {
            "font_size": max(6, min(font_size, 64)),
            "app_websocket_url": f"ws://{authority}/ws",
            "config": {"static": {"url": f"http://{authority}/static/"}},
            "application": {"name": "jobs-tui"},
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def _websocket(self, request: Any) -> Any:
        from aiohttp import WSMsgType, web

        websocket = web.WebSocketResponse(heartbeat=15)
        width = dimension(request.query.get("width"), 80)
        height = dimension(request.query.get("height"), 24)
        await websocket.prepare(request)
        service = self.tab_app(
            self.options,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.downloads,
        )
        self.services.add(service)
        try:
            await service.start(width, height)
            async for message in websocket:
                if message.type == WSMsgType.TEXT:
                    await service.handle(message.json(), websocket)
        except asyncio.CancelledError:
            pass
        finally:
            await service.close()
            self.services.discard(service)
            with contextlib.suppress(Exception):
                await websocket.close()
        return websocket

    async def close_all(self) -> int:
        services = list(self.services)
        await asyncio.gather(*(s.close() for s in services), return_exceptions=True)
        return len(services)


REFUSED_HOST = (
    "jobs-tui serve: this server answers only to the address it is bound to (the Host "
    "header named another). Open the URL `jobs-tui serve` printed.\n"
)
REFUSED_NO_TOKEN = (
    "jobs-tui serve: this server needs its token. Open the URL `jobs-tui serve` printed "
    "(it ends in ?token=...), or send `Authorization: Bearer TOKEN`.\n"
)


__all__ = ["Options", "add_arguments", "page_url", "run_verb", "serve"]
