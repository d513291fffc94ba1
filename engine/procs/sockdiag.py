"""Listening sockets from the kernel's sock_diag netlink interface (what `ss -l` uses).

Linux only, stdlib only. Asking for sockets in LISTEN (TCP) or unconnected (UDP) state
makes the kernel walk only those, where reading `/proc/net/tcp` walks every socket of the
namespace: measured ~0.1 ms against ~10 ms here, and the gap grows with the connections.
"""

from __future__ import annotations

import _socket as socket  # not `socket`: its enums cost a short `status` milliseconds
import contextlib
import struct

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TCP_ESTABLISHED, TCP_CLOSE, TCP_LISTEN = 1, 7, 10

_HEADER = struct.Struct("=IHHII")  # nlmsghdr: len, type, flags, seq, pid
# inet_diag_req_v2: family, protocol, ext, pad, states, then inet_diag_sockid (48 bytes)
_REQUEST = struct.Struct("=BBBxI48x")
# inet_diag_msg: family, state, timer, retrans, sockid (sport, dport big-endian, src, dst,
# if, cookie), expires, rqueue, wqueue, uid, inode
_MESSAGE = struct.Struct("=BBBBHH16s16sI8sIIIII")  # 72 bytes; the ports read apart:
_PORTS = struct.Struct(">HH")  # sport and dport are in network order


def _query(family: int, protocol: int, states: int, seq: int) -> list[tuple[int, int, int, int]]:
    """(local port, remote port, owner uid, inode) of the sockets asked for."""
    body = _REQUEST.pack(family, protocol, 0, states)
    header = _HEADER.pack(
        _HEADER.size + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, seq, 0
    )
    found: list[tuple[int, int, int, int]] = []
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG)
    with contextlib.closing(sock):
        sock.sendto(header + body, (0, 0))
        while True:
            data = sock.recv(65536)
            offset = 0
            while offset + _HEADER.size <= len(data):
                length, kind, _flags, _seq, _pid = _HEADER.unpack_from(data, offset)
                if length < _HEADER.size:
                    return found
                if kind == NLMSG_DONE:
                    return found
                if kind == NLMSG_ERROR:
                    raise OSError("sock_diag refused the request")
                start = offset + _HEADER.size
                if kind == SOCK_DIAG_BY_FAMILY and start + _MESSAGE.size <= len(data):
                    fields = _MESSAGE.unpack_from(data, start)
                    sport, dport = _PORTS.unpack_from(data, start + 4)
                    found.append((sport, dport, fields[13], fields[14]))
                offset += (length + 3) & ~3
            if not data:
                return found


def listening_sockets() -> dict[int, tuple[str, int, int]]:
    """inode -> (proto, port, owner uid) of every listening TCP and bound, unconnected
    UDP socket of this network namespace. Raises OSError where sock_diag is not there."""
    found: dict[int, tuple[str, int, int]] = {}
    seq = 0
    for family in (socket.AF_INET, socket.AF_INET6):
        for proto, protocol, state in (
            ("tcp", socket.IPPROTO_TCP, TCP_LISTEN),
            ("udp", socket.IPPROTO_UDP, TCP_CLOSE),
        ):
            seq += 1
            for sport, dport, uid, inode in _query(family, protocol, 1 << state, seq):
                if sport and not dport and inode:
                    found[inode] = (proto, sport, uid)
    return found
