"""The start order (issue 26): levels, dependencies first, file order within a level; the
closure of named jobs (what `up NAME` starts) and of the autostart ones (a bare `up`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobs_tui.engine.declared import DeclaredFileError, Stack, UnknownDeclared, parse_stack


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


# -- any graph: levels and closures hold their definitions; a cycle is found iff there is one


def graph_file(edges: dict[int, set[int]]) -> str:
    text = ""
    for node, deps in edges.items():
        needs = ", ".join(f'n{d} = "started"' for d in sorted(deps))
        text += f'[jobs.n{node}]\ncommand = "x"\ndepends_on = {{ {needs} }}\n'
    return text


@st.composite
def graphs(draw: st.DrawFn) -> dict[int, set[int]]:
    size = draw(st.integers(1, 12))
    order = draw(st.permutations(range(size)))
    return {
        node: draw(st.sets(st.sampled_from(range(size)), max_size=3)) - {node}
        if draw(st.booleans())
        else draw(st.sets(st.sampled_from(range(size)), max_size=3))
        for node in order
    }


@settings(max_examples=200, deadline=None)
@given(graphs())
def test_levels_and_closures_of_any_graph(edges: dict[int, set[int]]):
    from graphlib import CycleError, TopologicalSorter

    try:
        tuple(TopologicalSorter(edges).static_order())
        cyclic = False
    except CycleError:
        cyclic = True
    try:
        built = parse_stack(graph_file(edges), "/p/jobs-tui.toml", "jobs-tui.toml")
    except DeclaredFileError as exc:
        assert cyclic and all(e.endswith(" is a cycle") for e in exc.errors)
        return
    assert not cyclic
    level = {name: at for at, names in enumerate(built.levels()) for name in names}
    for name, job in built.jobs.items():
        below = [level[d] for d in job.depends_on]
        assert level[name] == (1 + max(below) if below else 0)
    some = sorted(built.jobs)[: len(built.jobs) // 2 + 1]
    closed = built.closure(some)
    assert set(some) <= set(closed) and len(closed) == len(set(closed))
    needed = {d for name in closed for d in built.jobs[name].depends_on}
    assert set(closed) == set(some) | needed  # nothing more than asked and needed
    for name in closed:
        assert set(built.jobs[name].depends_on) <= set(closed)
        assert all(closed.index(d) < closed.index(name) for d in built.jobs[name].depends_on)
