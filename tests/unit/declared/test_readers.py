"""Reading what people already have (issue 26): process-compose.yaml, mprocs.yaml and a
Procfile into the same Stack a jobs-tui.toml makes; the documented subset carried over,
everything else named in a warning, docker-compose syntax an error that says so; and
the jobs-tui.toml `config import` writes reads back as the same Stack."""

from __future__ import annotations

import pytest

from jobs_tui.engine.declared import DeclaredFileError, DeclaredJob, Probe, Stack, parse_stack
from jobs_tui.engine.declared.export import to_toml


def read(text: str, format: str) -> Stack:
    return parse_stack(text, f"/p/{format}", format)


def refused(text: str, format: str) -> list[str]:
    with pytest.raises(DeclaredFileError) as caught:
        read(text, format)
    return caught.value.errors


def round_trips(stack: Stack) -> None:
    back = parse_stack(to_toml(stack, ["a header"]), "/p/jobs-tui.toml", "jobs-tui.toml")
    assert back.jobs == stack.jobs and back.warnings == []


PC = "process-compose.yaml"
FULL_PC = """
version: "0.5"
log_level: debug
processes:
  migrate:
    command: ./migrate
  db:
    command: postgres -D .data
    working_dir: ./data
    environment: ["PGPORT=5433", "EMPTY="]
    readiness_probe:
      exec:
        command: pg_isready -p 5433
      period_seconds: 2
      timeout_seconds: 0.5
      initial_delay_seconds: 1
    availability:
      restart: always
      max_restarts: 0
    shutdown:
      signal: 2
      timeout_seconds: 30
  api:
    command: uvicorn app:app
    description: the API
    is_tty: true
    disabled: true
    environment:
      PORT: 8000
    depends_on:
      db: {condition: process_healthy}
      migrate: {condition: process_completed_successfully}
      logs: {condition: process_started}
    readiness_probe:
      http_get: {host: localhost, port: 8000, path: health, scheme: https}
    availability: {restart: on_failure, backoff_seconds: 2, max_restarts: 5}
    namespace: web
  logs:
    command: tail -f log
    ready_log_line: "listening (on :80)"
  cache:
    command: redis-server
    depends_on:
      logs: {condition: process_log_ready}
"""


def test_process_compose_reads_the_documented_subset():
    stack = read(FULL_PC, PC)
    assert stack.format == PC and stack.source == "/p/process-compose.yaml"
    assert stack.jobs["migrate"] == DeclaredJob("migrate", "./migrate")
    assert stack.jobs["db"] == DeclaredJob(
        "db",
        "postgres -D .data",
        cwd="./data",
        env={"PGPORT": "5433", "EMPTY": ""},
        ready=Probe("exec", "pg_isready -p 5433", 2000, 500, None),
        restart="always",
        max_restarts=None,  # process-compose's 0: no limit
        stop_signal="SIGINT",
        kill_grace_ms=30000,
    )
    assert stack.jobs["api"] == DeclaredJob(
        "api",
        "uvicorn app:app",
        env={"PORT": "8000"},
        ready=Probe("http", "https://localhost:8000/health"),
        restart="on-failure",
        max_restarts=5,
        backoff_ms=2000,
        depends_on={"db": "ready", "migrate": "succeeded", "logs": "started"},
        tty=True,
        autostart=False,
        description="the API",
    )
    # process-compose looks for the text itself: the regular expression matches only it
    assert stack.jobs["logs"].ready == Probe("log", r"listening \(on :80\)")
    assert stack.jobs["cache"].depends_on == {"logs": "ready"}
    assert stack.levels() == [["migrate", "db", "logs"], ["api", "cache"]]
    round_trips(stack)


def test_process_compose_fields_outside_the_subset_are_named_in_warnings():
    assert read(FULL_PC, PC).warnings == [
        "process-compose.yaml: (top level): log_level are not read; left out",
        "process-compose.yaml: processes.db.readiness_probe: initial_delay_seconds not read "
        "by jobs-tui; left out",
        "process-compose.yaml: processes.api: namespace not read by jobs-tui; left out",
    ]
    odd = read(
        "processes:\n  a:\n    command: x\n    availability: {restart: exit_on_failure}\n"
        "  b:\n    command: y\n    depends_on: {a: {condition: process_completed}}\n",
        PC,
    )
    assert odd.jobs["a"].restart == "no" and odd.jobs["b"].depends_on == {"a": "succeeded"}
    assert [w.split(": ", 2)[1] for w in odd.warnings] == [
        "processes.a.availability.restart",
        "processes.b.depends_on.a.condition",
    ]


def test_docker_compose_syntax_is_an_error_that_says_what_the_file_looks_like():
    services = refused("services:\n  web:\n    image: nginx\n    ports: ['80:80']\n", PC)
    assert len(services) == 1 and services[0].startswith(
        "process-compose.yaml: services: this looks like a docker-compose file"
    )
    (in_processes,) = refused(
        "processes:\n  web:\n    image: nginx\n    ports: ['80:80']\n  ok:\n    command: x\n", PC
    )
    assert in_processes == (
        "process-compose.yaml: processes.web: image, ports are docker-compose keys: this looks "
        "like a docker-compose file, which runs containers; jobs-tui runs commands (a process "
        "needs a command)"
    )
    (build,) = refused("procs:\n  web:\n    build: .\n", "mprocs.yaml")
    assert "build is a docker-compose key: this looks like a docker-compose file" in build


def test_process_compose_errors_name_their_own_keys():
    found = refused(
        "processes:\n"
        "  a:\n    working_dir: 5\n"
        "  b:\n    command: y\n    depends_on: {a: {condition: process_healthy}}\n"
        "    availability: {restart: sometimes, backoff_seconds: soon, max_restarts: -1}\n"
        "    shutdown: {signal: 99}\n"
        "    readiness_probe: {http_get: {path: /}}\n"
        "  c:\n    command: z\n    ready_log_line: x\n    readiness_probe: {exec: {command: t}}\n",
        PC,
    )
    assert found == [
        "process-compose.yaml: processes.b.readiness_probe.http_get.port: missing: an "
        "http_get probe needs a port",
        "process-compose.yaml: processes.b.availability.restart: must be no, always or "
        'on_failure, not "sometimes"',
        "process-compose.yaml: processes.b.availability.backoff_seconds: must be a number of "
        'seconds, not "soon"',
        "process-compose.yaml: processes.b.shutdown.signal: must be one of 1 (SIGHUP), 2 "
        "(SIGINT), 3 (SIGQUIT), 9 (SIGKILL), 10 (SIGUSR1), 12 (SIGUSR2), 15 (SIGTERM), not 99",
        "process-compose.yaml: processes.c: ready_log_line and readiness_probe cannot be used "
        "together",
        "process-compose.yaml: processes.a.working_dir: must be a string, not 5",
        "process-compose.yaml: processes.a.command: missing: every job needs a command",
        "process-compose.yaml: processes.b.availability.max_restarts: must be 1-100000, not -1",
        'process-compose.yaml: processes.b.depends_on.a.condition: "ready" needs a ready '
        "probe on a; it has none",
    ]


def test_process_compose_cycles_and_unknown_dependencies_name_its_keys():
    found = refused(
        "processes:\n  a:\n    command: x\n    depends_on: {b: {condition: process_started}}\n"
        "  b:\n    command: y\n    depends_on: {a: {}, nope: {}}\n",
        PC,
    )
    assert found == [
        "process-compose.yaml: processes.b.depends_on.nope.condition: no job named nope in "
        "this file",
        "process-compose.yaml: processes.b.depends_on: a -> b -> a is a cycle",
    ]


def test_not_yaml_or_not_a_process_compose_file():
    assert refused("processes: [a\n", PC)[0].startswith("process-compose.yaml: not valid YAML: ")
    assert refused("- a\n", PC) == [
        "process-compose.yaml: processes: missing: process-compose.yaml lists its processes "
        "under processes"
    ]


MPROCS = """
hide_keymap_window: true
procs:
  server:
    shell: npm run dev
    cwd: web
    env: {PORT: 3000, DEBUG: "1", HOME: null}
    autostart: false
  watcher:
    cwd: <CONFIG_DIR>/crates
    cmd: ["cargo", "watch", "-x", "run it"]
    autorestart: true
    stop: SIGINT
    add_path: bin
"""


def test_mprocs_reads_shell_or_cmd_cwd_env_and_autostart():
    stack = read(MPROCS, "mprocs.yaml")
    assert stack.jobs == {
        "server": DeclaredJob(
            "server",
            "npm run dev",
            cwd="web",
            env={"PORT": "3000", "DEBUG": "1"},
            autostart=False,
        ),
        "watcher": DeclaredJob(
            "watcher",
            "cargo watch -x 'run it'",
            cwd="./crates",
            restart="always",
            stop_signal="SIGINT",
        ),
    }
    assert stack.warnings == [
        "mprocs.yaml: (top level): hide_keymap_window are mprocs settings; left out",
        "mprocs.yaml: procs.server.env.HOME: unsetting a variable is not read; left out",
        "mprocs.yaml: procs.watcher: add_path not read by jobs-tui; left out",
    ]
    round_trips(stack)


def test_mprocs_errors():
    assert refused(
        "procs:\n  a: {}\n  b: {shell: x, cmd: [y]}\n  c: {cmd: 5}\n", "mprocs.yaml"
    ) == [
        "mprocs.yaml: procs.a: missing: a process needs shell or cmd",
        "mprocs.yaml: procs.b: takes shell or cmd, not both",
        "mprocs.yaml: procs.c.cmd: must be a list of strings, not 5",
        "mprocs.yaml: procs.a.command: missing: every job needs a command",
        "mprocs.yaml: procs.b.command: missing: every job needs a command",
        "mprocs.yaml: procs.c.command: missing: every job needs a command",
    ]
    assert refused("{}", "mprocs.yaml") == [
        "mprocs.yaml: procs: missing: an mprocs.yaml lists its processes under procs"
    ]


def test_a_procfile_is_name_colon_command_lines():
    stack = read(
        "# the stack\n\nweb: bundle exec rails s -p $PORT\nworker:bin/worker --queue=a:b\n",
        "Procfile",
    )
    assert stack.jobs == {
        "web": DeclaredJob("web", "bundle exec rails s -p $PORT"),
        "worker": DeclaredJob("worker", "bin/worker --queue=a:b"),
    }
    assert stack.levels() == [["web", "worker"]] and stack.warnings == []
    round_trips(stack)


def test_procfile_errors_name_the_line():
    assert refused("web: a\nnot a line\nweb: b\nempty:\n", "Procfile") == [
        "Procfile: line 2: is not `name: command`",
        "Procfile: line 3: web is declared twice",
        "Procfile: line 4 (empty): must not be blank",
    ]


def test_the_written_file_reads_back_whatever_the_names_and_commands_hold():
    stack = read(
        "processes:\n"
        "  api.v2:\n"
        "    command: |\n      echo \"it's\" \\\n        && printf 'a\\tb' # ünï\n"
        "    environment: ['A_B=1', 'Q=\"x\"']\n"
        "    description: 'tabs\tand \"quotes\"'\n"
        "  web-1:\n    command: x\n    depends_on: {api.v2: {condition: process_started}}\n",
        PC,
    )
    assert list(stack.jobs) == ["api.v2", "web-1"]
    text = to_toml(stack)
    assert '[jobs."api.v2"]' in text and 'depends_on = { "api.v2" = "started" }' in text
    round_trips(stack)
