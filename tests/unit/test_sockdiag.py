"""Listening sockets from sock_diag and from /proc/net agree, on real sockets of ours."""

from __future__ import annotations

import os
import socket
import sys

import pytest

from jobs_tui.engine.procs import sockdiag
from jobs_tui.engine.procs.proctable import (
    Port,
    ProcRow,
    listening_inodes,
    listening_table,
    sockets_of,
)

pytestmark = [
    pytest.mark.timeout(30),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux interfaces"),
]


@pytest.fixture
def sockets():
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    udp = socket.socket(type=socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    connected = socket.socket(type=socket.SOCK_DGRAM)  # a client, not a listener
    connected.bind(("127.0.0.1", 0))
    connected.connect(("127.0.0.1", udp.getsockname()[1]))
    bound_only = socket.socket()  # bound TCP, never listening
    bound_only.bind(("127.0.0.1", 0))
    opened = [tcp, udp, connected, bound_only]
    yield opened
    for sock in opened:
        sock.close()


def inode(sock: socket.socket) -> int:
    return os.fstat(sock.fileno()).st_ino


def test_listeners_and_only_listeners(sockets):
    tcp, udp, connected, bound_only = sockets
    try:
        via_netlink = {
            i: Port(port, proto) for i, (proto, port, _uid) in sockdiag.listening_sockets().items()
        }
    except OSError:
        pytest.skip("sock_diag is not available here")
    for found in (via_netlink, listening_table(), listening_inodes()):
        assert found[inode(tcp)] == Port(tcp.getsockname()[1], "tcp")
        assert found[inode(udp)] == Port(udp.getsockname()[1], "udp")
        assert inode(connected) not in found and inode(bound_only) not in found
    for found in (listening_table(os.geteuid()), listening_inodes(os.geteuid())):
        assert inode(tcp) in found  # ours, by the owner the kernel keeps
    for found in (listening_table(os.geteuid() + 1), listening_inodes(os.geteuid() + 1)):
        assert inode(tcp) not in found and inode(udp) not in found


def test_a_process_socket_inodes_are_read_from_its_fds(sockets):
    held = set(sockets_of(os.getpid()))
    assert {inode(s) for s in sockets} <= held


def test_socket_owners_read_fds_only_for_new_processes_and_new_listeners(sockets, monkeypatch):
    from jobs_tui.engine.procs import proctable

    reads: list[int] = []
    real = proctable.sockets_of

    def counting(pid: int):
        reads.append(pid)
        return real(pid)

    monkeypatch.setattr(proctable, "sockets_of", counting)
    tcp = sockets[0]
    me = ProcRow(os.getpid(), os.getppid(), os.getpgid(0), os.getsid(0), 1.0)
    owners = proctable.SocketOwners()
    assert (me.pid, Port(tcp.getsockname()[1])) in owners([me])
    assert len(reads) == 1
    owners([me])
    assert len(reads) == 1  # nothing new: the fds are not read again
    late = socket.socket()  # held (seen) before it listens: found without a read
    late.bind(("127.0.0.1", 0))
    owners.FULL_EVERY_S = 0.0
    owners([me])
    owners.FULL_EVERY_S = 60.0
    reads.clear()
    late.listen()
    assert (me.pid, Port(late.getsockname()[1])) in owners([me]) and reads == []
    fresh = socket.socket()  # a listener nobody was seen to hold: every process is read
    fresh.bind(("127.0.0.1", 0))
    fresh.listen()
    assert (me.pid, Port(fresh.getsockname()[1])) in owners([me]) and reads == [me.pid]
    reused = ProcRow(os.getpid(), 1, 1, 1, 2.0)  # same pid, another start: read as new
    owners([me, reused])
    assert reads == [me.pid, me.pid]
    for sock in (late, fresh):
        sock.close()
