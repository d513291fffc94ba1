"""Who ended a job (issue 27, feature 3): the pure rule from facts to `endedBy` and words."""

from __future__ import annotations

import pytest

from jobs_tui.engine.records.endedby import EndedBy, EndFacts, ended_by


@pytest.mark.parametrize(
    ("facts", "by", "words"),
    [
        (EndFacts(exit_code=0, reason="exit"), "self", "exit 0"),
        (EndFacts(exit_code=3, reason="exit"), "self", "exit 3"),
        (
            EndFacts(signal="SIGKILL", reason="exit", oom_source="cgroup"),
            "kernel-oom",
            "killed · SIGKILL · by the kernel: out of memory",
        ),
        (
            EndFacts(signal="SIGKILL", reason="exit", oom_source="machine"),
            "kernel-oom",
            "killed · SIGKILL · by the kernel: out of memory (likely)",
        ),
        (
            EndFacts(signal="SIGTERM", reason="kill", door="screen", session="ab12cd34ef"),
            "request",
            "killed · SIGTERM · by the screen (session ab12cd34)",
        ),
        (
            EndFacts(signal="SIGKILL", reason="kill", door="mcp", requested_signal="SIGKILL"),
            "request",
            "killed · SIGKILL · by an agent (MCP)",
        ),
        (
            # asked for TERM, but the kernel's OOM killer (its own cgroup) got there first
            EndFacts(
                signal="SIGKILL",
                reason="kill",
                door="cli",
                requested_signal="SIGTERM",
                oom_source="cgroup",
            ),
            "kernel-oom",
            "killed · SIGKILL · by the kernel: out of memory",
        ),
        (
            # the machine's counter is not enough to overrule a request
            EndFacts(
                signal="SIGKILL",
                reason="kill",
                door="cli",
                requested_signal="SIGTERM",
                oom_source="machine",
            ),
            "request",
            "killed · SIGKILL · by the command line",
        ),
        (
            EndFacts(signal="SIGTERM", reason="deadline"),
            "deadline",
            "killed · SIGTERM · by its deadline",
        ),
        (
            EndFacts(signal="SIGTERM", reason="owner-gone"),
            "owner-gone",
            "killed · SIGTERM · its session ended",
        ),
        (
            EndFacts(signal="SIGKILL", reason="shim-gone"),
            "shim-gone",
            "killed · SIGKILL · its supervisor died",
        ),
        (
            EndFacts(signal="SIGKILL", reason="output-limit"),
            "output-limit",
            "killed · SIGKILL · its output reached the limit",
        ),
        (
            EndFacts(signal="SIGSEGV", reason="exit"),
            "self",
            "killed · SIGSEGV · by itself (it crashed)",
        ),
        (
            EndFacts(signal="SIGKILL", reason="exit"),
            "outside",
            "killed · SIGKILL · from outside (sender unknown)",
        ),
        (
            EndFacts(signal="SIGTERM", reason="exit", sender_pid=4242, sender_command="pkill"),
            "outside",
            "killed · SIGTERM · from outside: pid 4242 pkill",
        ),
        (EndFacts(exit_code=1, reason="dependency"), "dependency", "ended · a dependency failed"),
        (EndFacts(), "unknown", "ended · cause unknown"),
    ],
)
def test_facts_to_who_and_words(facts: EndFacts, by: str, words: str):
    got = ended_by(facts)
    assert got.by == by
    assert got.words() == words


def test_the_json_round_trips_and_keeps_only_what_says_something():
    got = ended_by(EndFacts(signal="SIGKILL", reason="exit", oom_source="machine"))
    assert got.to_json() == {"by": "kernel-oom", "signal": "SIGKILL", "certain": False}
    assert EndedBy.from_json(got.to_json()) == got
    request = ended_by(EndFacts(signal="SIGTERM", reason="kill", door="cli", session="s1"))
    assert request.to_json() == {
        "by": "request",
        "signal": "SIGTERM",
        "door": "cli",
        "session": "s1",
    }
    assert EndedBy.from_json(request.to_json()) == request


@pytest.mark.parametrize(
    "raw",
    [None, [], {"by": 3}, {}, "request"],
)
def test_a_malformed_value_reads_as_none(raw):
    assert EndedBy.from_json(raw) is None


def test_unknown_keys_and_wrong_types_are_passed_over():
    got = EndedBy.from_json({"by": "outside", "pid": "12", "signal": "SIGTERM", "later": 1})
    assert got == EndedBy("outside", "SIGTERM", pid=None)
