"""The start order (issue 26): levels, dependencies first, file order within a level; the
closure of named jobs (what `up NAME` starts) and of the autostart ones (a bare `up`)."""

from __future__ import annotations

import pytest

from jobs_tui.engine.declared import Stack, UnknownDeclared, parse_stack


def stack(*jobs: tuple[str, dict[str, str], bool]) -> Stack:
    text = ""
    for name, needs, autostart in jobs:
        deps = ", ".join(f'{d} = "{c}"' for d, c in needs.items())
        text += f'[jobs.{name}]\ncommand = "run {name}"\nready = {{ port = 1 }}\n'
        text += f"depends_on = {{ {deps} }}\nautostart = {str(autostart).lower()}\n"
    return parse_stack(text, "/p/jobs-tui.toml", "jobs-tui.toml")


DIAMOND = stack(
    ("web", {"api": "ready", "assets": "succeeded"}, True),
    ("api", {"db": "ready", "migrate": "succeeded"}, True),
    ("migrate", {"db": "ready"}, True),
    ("db", {}, True),
    ("assets", {}, True),
    ("docs", {}, False),
    ("mail", {}, False),
    ("cron", {"mail": "started"}, True),
)


def test_levels_put_dependencies_first_and_keep_the_files_order_in_a_level():
    assert DIAMOND.levels() == [
        ["db", "assets", "docs", "mail"],
        ["migrate", "cron"],
        ["api"],
        ["web"],
    ]


def test_every_job_comes_after_all_it_depends_on():
    order = [name for level in DIAMOND.levels() for name in level]
    assert sorted(order) == sorted(DIAMOND.jobs)
    for name, job in DIAMOND.jobs.items():
        assert all(order.index(dep) < order.index(name) for dep in job.depends_on)


def test_the_closure_of_named_jobs_is_them_and_what_they_depend_on_in_start_order():
    assert DIAMOND.closure(["api"]) == ["db", "migrate", "api"]
    assert DIAMOND.closure(["web", "docs"]) == ["db", "assets", "docs", "migrate", "api", "web"]
    assert DIAMOND.closure(["db"]) == ["db"]
    assert DIAMOND.closure([]) == []


def test_a_bare_up_starts_the_autostart_jobs_and_what_they_need_even_if_not_autostart():
    # docs is autostart = false and nothing needs it; mail is, but cron needs it
    assert DIAMOND.closure() == ["db", "assets", "mail", "migrate", "cron", "api", "web"]


def test_an_unknown_name_is_refused_naming_the_declared_ones():
    with pytest.raises(UnknownDeclared) as caught:
        DIAMOND.closure(["ap"])
    assert str(caught.value).startswith("no declared job named 'ap' (declared: web, api,")


def test_dependents_are_what_down_stops_first():
    assert DIAMOND.dependents("db") == ["web", "api", "migrate"]
    assert DIAMOND.dependents("mail") == ["cron"]
    assert DIAMOND.dependents("web") == []


def test_a_stack_of_independent_jobs_is_one_level():
    flat = stack(("a", {}, True), ("b", {}, True))
    assert flat.levels() == [["a", "b"]] and flat.closure() == ["a", "b"]
