"""jobs-tui.toml validated whole (issue 26): every kind of error names the file, the job
and the key, every error is reported (not just the first), and a good file reads into
typed records with the defaults written once in model.DEFAULTS."""

from __future__ import annotations

import pytest

from jobs_tui.engine.declared import (
    DEFAULTS,
    DeclaredFileError,
    DeclaredJob,
    Probe,
    parse_stack,
)


def errors(text: str) -> list[str]:
    with pytest.raises(DeclaredFileError) as caught:
        parse_stack(text, "/p/jobs-tui.toml", "jobs-tui.toml")
    assert str(caught.value) == "\n".join(caught.value.errors)
    return caught.value.errors


def one_error(text: str) -> str:
    found = errors(text)
    assert len(found) == 1, found
    return found[0]


def test_the_issues_cycle_is_worded_as_the_issue_words_it():
    text = '[jobs.db]\ncommand = "d"\ndepends_on = { api = "started" }\n'
    text += '[jobs.api]\ncommand = "a"\ndepends_on = { db = "started" }\n'
    assert one_error(text) == "jobs-tui.toml: jobs.api.depends_on: db -> api -> db is a cycle"


def test_a_job_that_depends_on_itself_and_a_longer_cycle():
    assert one_error('[jobs.a]\ncommand = "x"\ndepends_on = { a = "started" }\n') == (
        "jobs-tui.toml: jobs.a.depends_on: a -> a is a cycle"
    )
    text = "".join(
        f'[jobs.{n}]\ncommand = "x"\ndepends_on = {{ {d} = "started" }}\n'
        for n, d in (("a", "b"), ("b", "c"), ("c", "a"))
    )
    assert one_error(text) == "jobs-tui.toml: jobs.c.depends_on: a -> b -> c -> a is a cycle"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('comand = "x"', "jobs.api.comand: unknown key; did you mean command?"),
        ("zzz = 1", "jobs.api.zzz: unknown key; the keys here are command, description"),
        ("backoff_ms = '1s'", 'jobs.api.backoff_ms: must be a whole number, not "1s"'),
        ("backoff_ms = 1.5", "jobs.api.backoff_ms: must be a whole number, not 1.5"),
        ("backoff_ms = true", "jobs.api.backoff_ms: must be a whole number, not true"),
        ("backoff_ms = -1", "jobs.api.backoff_ms: must be 0-3600000, not -1"),
        ("max_restarts = 0\nrestart = 'always'", "jobs.api.max_restarts: must be 1-100000, not 0"),
        ("kill_grace_ms = 600001", "jobs.api.kill_grace_ms: must be 0-600000, not 600001"),
        ("tty = 'yes'", 'jobs.api.tty: must be true or false, not "yes"'),
        ("autostart = 1", "jobs.api.autostart: must be true or false, not 1"),
        ("cwd = 5", "jobs.api.cwd: must be a string, not 5"),
        ("cwd = '  '", "jobs.api.cwd: must not be blank"),
        ('description = "a\\nb"', "jobs.api.description: must be one line"),
        (
            "restart = 'on_failure'",
            'jobs.api.restart: must be "no", "on-failure" or "always", not "on_failure"',
        ),
        (
            "stop_signal = 'TERM'",
            'jobs.api.stop_signal: must be "SIGTERM", "SIGKILL", "SIGINT", "SIGHUP", "SIGQUIT", '
            '"SIGUSR1" or "SIGUSR2", not "TERM"',
        ),
        ("env = ['A=1']", "jobs.api.env: must be a table such as"),
        ("env = { 1A = 'x' }", "jobs.api.env.1A: is not an environment variable name"),
        ("env = { PORT = 8000 }", "jobs.api.env.PORT: must be a string, not 8000 (quote it)"),
        ("depends_on = ['db']", "jobs.api.depends_on: must be a table such as"),
        (
            "depends_on = { db = 'healthy' }",
            'jobs.api.depends_on.db: must be "started", "ready" or "succeeded", not "healthy"',
        ),
        (
            "depends_on = { dbb = 'started' }",
            "jobs.api.depends_on.dbb: no job named dbb in this file; did you mean db?",
        ),
        (
            "depends_on = { db = 'ready' }",
            'jobs.api.depends_on.db: "ready" needs a ready probe on db; it has none',
        ),
        ("ready = 8000", "jobs.api.ready: must be a table such as { port = 8000 }, not 8000"),
        ("ready = {}", "jobs.api.ready: needs one of log, port, http or exec"),
        (
            "ready = { port = 1, log = 'x' }",
            "jobs.api.ready: takes one of log, port, http or exec, not log and port",
        ),
        ("ready = { port = 1, prot = 1 }", "jobs.api.ready.prot: unknown key; did you mean port?"),
        ("ready = { port = 0 }", "jobs.api.ready.port: must be 1-65535, not 0"),
        ("ready = { port = '80' }", 'jobs.api.ready.port: must be a whole number, not "80"'),
        ("ready = { log = '(' }", "jobs.api.ready.log: is not a regular expression:"),
        (
            "ready = { http = 'localhost:80' }",
            'jobs.api.ready.http: must be an http:// or https:// URL, not "localhost:80"',
        ),
        ("ready = { exec = '' }", "jobs.api.ready.exec: must not be blank"),
        ("ready = { port = 1, period_ms = 5 }", "jobs.api.ready.period_ms: must be 10-3600000"),
        ("ready = { port = 1, limit_ms = 0 }", "jobs.api.ready.limit_ms: must be 1-86400000"),
    ],
)
def test_each_kind_of_error_names_the_file_the_job_and_the_key(body: str, message: str):
    text = f'[jobs.db]\ncommand = "d"\n[jobs.api]\ncommand = "a"\n{body}\n'
    assert one_error(text).startswith(f"jobs-tui.toml: {message}")


def test_a_command_missing_blank_too_long_or_with_a_nul():
    assert one_error("[jobs.api]\ncwd = 'x'\n") == (
        "jobs-tui.toml: jobs.api.command: missing: every job needs a command"
    )
    assert one_error("[jobs.api]\ncommand = ''\n").endswith("api.command: must not be blank")
    long = "x" * 4001
    assert one_error(f"[jobs.api]\ncommand = '{long}'\n").endswith(
        "4001 characters long; at most 4000"
    )
    assert "NUL" in one_error('[jobs.api]\ncommand = "a\\u0000b"\n')


def test_names_and_the_shape_of_the_file():
    assert one_error('[jobs.j3]\ncommand = "x"\n') == (
        "jobs-tui.toml: jobs.j3: j3 reads as a job id; a declared name must not"
    )
    assert one_error('[jobs.12]\ncommand = "x"\n').endswith(
        "12 reads as a job id; a declared name must not"
    )
    assert 'jobs."my api": a job\'s name is 1-64' in one_error('[jobs."my api"]\ncommand = "x"\n')
    assert errors('[job.api]\ncommand = "x"\n') == [
        "jobs-tui.toml: job: unknown key; did you mean jobs?",
        "jobs-tui.toml: jobs: missing: the file declares its jobs as [jobs.NAME] tables",
    ]
    assert one_error("") == (
        "jobs-tui.toml: jobs: missing: the file declares its jobs as [jobs.NAME] tables"
    )
    assert one_error("jobs = 3") == "jobs-tui.toml: jobs: must be a table of jobs, not 3"
    assert one_error("[jobs]") == "jobs-tui.toml: jobs: declares no job"
    assert one_error("[jobs]\napi = 'run it'") == (
        'jobs-tui.toml: jobs.api: must be a table ([jobs.api]), not "run it"'
    )


def test_not_toml_is_an_error_naming_the_file():
    assert one_error("[jobs.api\n").startswith("jobs-tui.toml: not valid TOML: ")


def test_every_error_is_reported_not_just_the_first():
    text = (
        '[jobs.db]\ncommand = "d"\nrestrat = "always"\n'
        '[jobs.api]\ncommand = ""\nbackoff_ms = "1s"\ndepends_on = { cache = "started" }\n'
        '[jobs.worker]\ncommand = "w"\nready = { port = 70000 }\n'
    )
    found = errors(text)
    assert [line.split(": ")[1] for line in found] == [
        "jobs.db.restrat",
        "jobs.api.command",
        "jobs.api.backoff_ms",
        "jobs.worker.ready.port",
        "jobs.api.depends_on.cache",
    ]


def test_a_key_without_effect_is_a_warning():
    stack = parse_stack(
        '[jobs.a]\ncommand = "x"\nmax_restarts = 3\n', "/p/jobs-tui.toml", "jobs-tui.toml"
    )
    assert stack.warnings == [
        'jobs-tui.toml: jobs.a.max_restarts: has no effect with restart = "no"'
    ]


def test_a_minimal_job_takes_every_default_and_a_full_one_every_key():
    stack = parse_stack('[jobs.a]\ncommand = "x"\n', "/p/jobs-tui.toml", "jobs-tui.toml")
    assert stack.jobs == {"a": DeclaredJob("a", "x")}
    job = stack.jobs["a"]
    assert {k: getattr(job, k) for k in DEFAULTS} == DEFAULTS
    assert (job.restart, job.backoff_ms, job.kill_grace_ms, job.stop_signal, job.autostart) == (
        "no",
        1000,
        10000,
        "SIGTERM",
        True,
    )
    full = parse_stack(ISSUE_FILE, "/p/jobs-tui.toml", "jobs-tui.toml")
    assert full.jobs["db"].ready == Probe("log", "ready to accept connections", 1000, 1000, None)
    assert full.jobs["db"].max_restarts == 5 and full.jobs["db"].restart == "on-failure"
    api = full.jobs["api"]
    assert (api.depends_on, api.cwd, api.env, api.env_file) == (
        {"db": "ready"},
        "backend",
        {"DEBUG": "1"},
        ".env",
    )
    assert (api.stop_signal, api.kill_grace_ms, api.tty, api.autostart, api.description) == (
        "SIGINT",
        10000,
        False,
        True,
        "the API",
    )


def test_to_spec_is_plain_json_with_paths_resolved_against_the_root():
    import json

    api = parse_stack(ISSUE_FILE, "/p/jobs-tui.toml", "jobs-tui.toml").jobs["api"]
    spec = api.to_spec()
    assert json.loads(json.dumps(spec)) == spec
    assert spec["cwd"] == "backend" and spec["dependsOn"] == {"db": "ready"}
    assert set(spec) == {
        "name",
        "command",
        "cwd",
        "env",
        "envFile",
        "ready",
        "restart",
        "maxRestarts",
        "backoffMs",
        "dependsOn",
        "stopSignal",
        "killGraceMs",
        "tty",
        "autostart",
        "description",
    }
    rooted = api.to_spec("/p")
    assert rooted["cwd"] == "/p/backend" and rooted["envFile"] == "/p/.env"
    probe = parse_stack(ISSUE_FILE, "/p/jobs-tui.toml", "jobs-tui.toml").jobs["db"].to_spec()
    assert probe["ready"] == {
        "kind": "log",
        "target": "ready to accept connections",
        "periodMs": 1000,
        "timeoutMs": 1000,
        "limitMs": None,
    }


# The issue's own example file, whole.
ISSUE_FILE = """
[jobs.db]
command = "postgres -D .data"
ready = { log = "ready to accept connections" }
restart = "on-failure"
max_restarts = 5
backoff_ms = 1000
[jobs.api]
command = "uvicorn app:app --port 8000"
depends_on = { db = "ready" }
cwd = "backend"
env = { DEBUG = "1" }
env_file = ".env"
stop_signal = "SIGINT"
kill_grace_ms = 10000
tty = false
autostart = true
description = "the API"
"""
