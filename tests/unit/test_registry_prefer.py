"""The merge rule for one id seen in two registry files (registry-format.md, "Rules")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.registry.table import prefer

ME = "session-me"
PEER = "session-peer"


def rec(status="running", session=PEER, started=1000, finished=None, label="x") -> JobRecord:
    return JobRecord(
        id="j1",
        label=label,
        command="make",
        cwd="/src",
        pid=10,
        status=JobStatus(status),
        exit_code=None,
        signal=None,
        started_at=started,
        finished_at=finished,
        log_path="/reg/j1.log",
        detached=False,
        wake=False,
        session_id=session,
    )


SETTLED = ["exited", "killed", "failed", "unknown"]


@pytest.mark.parametrize("status", SETTLED)
def test_settled_beats_running(status):
    running = rec("running", session=ME, started=9999)  # own and later: still loses
    settled = rec(status, session=PEER, started=1, finished=2)
    assert prefer(running, settled, ME) is settled
    assert prefer(settled, running, ME) is settled


def test_own_beats_peer_when_both_running():
    own = rec("running", session=ME, started=1)
    peer = rec("running", session=PEER, started=5000)
    assert prefer(own, peer, ME) is own
    assert prefer(peer, own, ME) is own


def test_own_beats_peer_when_both_settled():
    own = rec("exited", session=ME, started=1, finished=2)
    peer = rec("failed", session=PEER, started=1, finished=9000)
    assert prefer(own, peer, ME) is own
    assert prefer(peer, own, ME) is own


def test_later_wins_between_peers():
    early = rec("exited", session="p1", started=1, finished=100)
    late = rec("exited", session="p2", started=1, finished=200)
    assert prefer(early, late, ME) is late
    assert prefer(late, early, ME) is late


def test_later_uses_finished_at_before_started_at():
    # Started later but finished earlier: finishedAt is what counts.
    a = rec("killed", session="p1", started=500, finished=600)
    b = rec("killed", session="p2", started=100, finished=700)
    assert prefer(a, b, ME) is b
    assert prefer(b, a, ME) is b


def test_later_falls_back_to_started_at_when_not_finished():
    a = rec("running", session="p1", started=100)
    b = rec("running", session="p2", started=300)
    assert prefer(a, b, ME) is b
    assert prefer(b, a, ME) is b


def test_finished_at_compared_with_the_other_ones_started_at():
    a = rec("unknown", session="p1", started=100, finished=None)  # ended_at 100
    b = rec("unknown", session="p2", started=50, finished=80)  # ended_at 80
    assert prefer(a, b, ME) is a
    assert prefer(b, a, ME) is a


def test_both_own_later_wins():
    a = rec("exited", session=ME, started=1, finished=10)
    b = rec("exited", session=ME, started=1, finished=20)
    assert prefer(a, b, ME) is b
    assert prefer(b, a, ME) is b


def test_ownership_is_relative_to_the_reading_session():
    a = rec("exited", session="s-a", started=1, finished=10)
    b = rec("exited", session="s-b", started=1, finished=20)
    assert prefer(a, b, "s-a") is a
    assert prefer(a, b, "s-b") is b
    assert prefer(a, b, "s-c") is b  # neither is ours: the later one


_records = st.builds(
    rec,
    status=st.sampled_from(["running", *SETTLED]),
    session=st.sampled_from([ME, PEER, "other"]),
    started=st.integers(min_value=0, max_value=10**6),
    finished=st.one_of(st.none(), st.integers(min_value=0, max_value=10**6)),
)


def _rank(r: JobRecord) -> tuple:
    return (not r.running, r.session_id == ME, r.ended_at())


@given(_records, _records)
def test_prefer_picks_the_higher_ranked_record_whatever_the_order(a, b):
    winner = prefer(a, b, ME)
    assert winner is a or winner is b
    assert _rank(winner) == max(_rank(a), _rank(b))
    if _rank(a) != _rank(b):
        assert prefer(b, a, ME) is winner


@given(_records, _records, _records)
def test_merging_three_records_is_order_independent(a, b, c):
    winners = {
        _rank(prefer(prefer(x, y, ME), z, ME))
        for x, y, z in [(a, b, c), (a, c, b), (b, c, a), (c, b, a)]
    }
    assert len(winners) == 1
