"""The names `jobs-tui serve` answers to: its bound address, checked on every request.

A page of another site cannot read this server's answers, but DNS rebinding makes it
the same site: `evil.example` first resolves to the attacker's server, then to
127.0.0.1, and the page's requests reach this port as same-origin ones. Only the
`Host` header still names `evil.example`. So every request (the page, the websocket,
static files) must name the bound address: the loopback names (`127.0.0.1`,
`localhost`, `[::1]`), the `--host` given, and for a wildcard bind (`0.0.0.0`, `::`)
this machine's name (what the printed URL shows) and its interfaces' addresses, each
with the bound port (which a browser leaves out only when it is 80). Anything else is
403 before the token is even looked at.

A matched Host is answered with our own spelling of it, never the request's bytes: the
page's websocket and static URLs are built from that, so no header is reflected into
the page. An `Origin`, when a browser sends one, must be exactly `http://` and the same
name and port as the Host (scheme, host and port: `https://127.0.0.1:PORT` is another
origin, and so is `http://localhost:PORT` for a page loaded from `127.0.0.1`).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")
DEFAULT_HTTP_PORT = 80
# A Host header: a name or an IPv4 literal, or [IPv6]; then an optional :PORT (no zero
# padding, no zone ids, no user info, no path). Anything else is not one of ours.
_HOST = re.compile(
    r"(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)"  # [IPv6] or a name
    r"(?::([1-9][0-9]{0,4}))?"
)
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _ip(text: str) -> IpAddress | None:
    """The address a host part spells, if it is an IP literal (dotted IPv4 or [IPv6])."""
    try:
        if text.startswith("["):
            return ipaddress.IPv6Address(text[1:-1])
        if re.fullmatch(r"[0-9]+(?:\.[0-9]+){3}", text):
            return ipaddress.IPv4Address(text)
    except ValueError:
        return None
    return None


def _spelled(host: str) -> str:
    """How a bound host or interface address is written in a URL: IPv6 in brackets."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if ":" not in host:
        return host
    try:
        return f"[{ipaddress.IPv6Address(host).compressed}]"
    except ValueError:
        return f"[{host}]"


@dataclass(frozen=True)
class Hosts:
    """The host names of one bound server, each as we spell it, and its port."""

    names: tuple[str, ...]
    port: int

    @classmethod
    def bound(cls, host: str, port: int) -> Hosts:
        """The names for `--host host` bound on `port` (the real one, after `--port 0`)."""
        names = [*LOOPBACK, _spelled(host)]  # `0.0.0.0` too: Linux browsers reach it
        if host in WILDCARDS:
            names.extend(_this_machine())
        return cls(tuple(dict.fromkeys(n for n in names if n)), port)

    def match(self, header: str | None) -> str | None:
        """`name:port` in our spelling if `header` (a Host) names this server, else None."""
        if header is None:
            return None
        parts = _HOST.fullmatch(header)
        if parts is None:
            return None
        name, port = parts.group(1).lower(), int(parts.group(2) or DEFAULT_HTTP_PORT)
        if port != self.port:
            return None
        address = _ip(name)
        for ours in self.names:
            if ours == name or (address is not None and address == _ip(ours)):
                return f"{ours}:{self.port}"
        return None

    def origin_ok(self, origin: str, authority: str) -> bool:
        """Whether `origin` is exactly the origin of a page at `authority` (`match`'s)."""
        scheme = "http://"
        return origin.startswith(scheme) and self.match(origin[len(scheme) :]) == authority


def _this_machine() -> list[str]:
    """What a browser may call a machine bound on every address: its name, its addresses."""
    import socket

    import psutil

    names = [_spelled(socket.gethostname())]
    try:
        interfaces = psutil.net_if_addrs()
    except (OSError, psutil.Error):
        interfaces = {}
    for addresses in interfaces.values():
        for entry in addresses:
            if entry.family in (socket.AF_INET, socket.AF_INET6) and "%" not in entry.address:
                names.append(_spelled(entry.address))
    return names


__all__ = ["WILDCARDS", "Hosts"]
