"""Finding the declared jobs at the project root (the directory the registry is keyed by),
in the order the issue gives (jobs-tui.toml, process-compose.yaml, mprocs.yaml, Procfile),
and reading them: what a file alone cannot know is a warning, a bad file an error naming
it, and the example stack reads the same from each of its three files."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobs_tui.engine.declared import (
    DeclaredFileError,
    DeclaredJob,
    NoDeclaredFile,
    Probe,
    find_declared,
    format_of,
    load_stack,
)

ROOT = Path(__file__).resolve().parents[3]
STACK = ROOT / "examples" / "stack"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "backend" / "deep").mkdir(parents=True)
    return tmp_path


def test_the_file_is_found_at_the_project_root_from_any_subdirectory(project: Path):
    (project / "Procfile").write_text("web: serve\n")
    assert find_declared(project / "backend" / "deep") == (project / "Procfile", "Procfile")
    (project / "mprocs.yaml").write_text("procs: {web: {shell: serve}}\n")
    assert find_declared(project / "backend")[1] == "mprocs.yaml"
    (project / "process-compose.yml").write_text("processes: {web: {command: serve}}\n")
    assert find_declared(project)[1] == "process-compose.yaml"
    (project / "process-compose.yaml").write_text("processes: {web: {command: serve}}\n")
    assert find_declared(project)[0].name == "process-compose.yaml"
    (project / "jobs-tui.toml").write_text('[jobs.web]\ncommand = "serve"\n')
    assert find_declared(project / "backend" / "deep") == (
        project / "jobs-tui.toml",
        "jobs-tui.toml",
    )
    stack = load_stack(cwd=project / "backend")
    assert stack.source == str(project / "jobs-tui.toml") and stack.root == str(project)


def test_a_file_in_a_subdirectory_is_not_the_projects(project: Path):
    (project / "backend" / "jobs-tui.toml").write_text('[jobs.web]\ncommand = "serve"\n')
    with pytest.raises(NoDeclaredFile) as caught:
        find_declared(project / "backend")
    assert str(caught.value).startswith(f"no declared jobs in {project}: none of jobs-tui.toml,")
    assert str(caught.value).endswith(
        f"({project / 'backend' / 'jobs-tui.toml'} is not at the project root: a .jobs-tui "
        "file beside it makes its folder a project of its own)"
    )
    (project / "backend" / ".jobs-tui").write_text("")
    assert find_declared(project / "backend")[0] == project / "backend" / "jobs-tui.toml"


def test_formats_by_name():
    assert format_of("a/jobs-tui.toml") == "jobs-tui.toml"
    assert format_of("stack.toml") == "jobs-tui.toml"
    assert format_of("process-compose.override.yaml") == "process-compose.yaml"
    assert format_of("dev.mprocs.yml") == "mprocs.yaml"
    assert format_of("Procfile.dev") == "Procfile"
    with pytest.raises(DeclaredFileError, match=r"compose\.json: not a file jobs-tui reads"):
        format_of("compose.json")


def test_a_missing_cwd_or_env_file_is_a_warning_not_an_error(project: Path, monkeypatch):
    monkeypatch.chdir(project)
    (project / "jobs-tui.toml").write_text(
        '[jobs.api]\ncommand = "serve"\ncwd = "backend"\nenv_file = ".env"\n'
        '[jobs.web]\ncommand = "serve"\ncwd = "frontend"\n'
    )
    assert load_stack().warnings == [
        "jobs-tui.toml: jobs.api.env_file: .env is not a file yet",
        "jobs-tui.toml: jobs.web.cwd: frontend is not a directory yet",
    ]
    (project / ".env").write_text("A=1\n")
    (project / "frontend").mkdir()
    assert load_stack().warnings == []


def test_errors_name_the_file_as_the_cwd_sees_it(project: Path, monkeypatch):
    (project / "jobs-tui.toml").write_text('[jobs.api]\ncommand = "serve"\ntty = 1\n')
    monkeypatch.chdir(project)
    with pytest.raises(DeclaredFileError) as caught:
        load_stack()
    assert caught.value.errors == ["jobs-tui.toml: jobs.api.tty: must be true or false, not 1"]
    monkeypatch.chdir(project / "backend")
    with pytest.raises(DeclaredFileError) as caught:
        load_stack()
    assert caught.value.errors[0].startswith(f"{project / 'jobs-tui.toml'}: jobs.api.tty:")


def test_unreadable_not_utf8_and_too_big(project: Path, monkeypatch):
    monkeypatch.chdir(project)
    path = project / "jobs-tui.toml"
    path.write_bytes(b'[jobs.a]\ncommand = "\xff"\n')
    with pytest.raises(DeclaredFileError, match=r"^jobs-tui\.toml: not UTF-8 text"):
        load_stack()
    path.write_text("# " + "x" * (1024 * 1024) + "\n")
    with pytest.raises(DeclaredFileError, match=r"^jobs-tui\.toml: larger than 1048576 bytes"):
        load_stack()
    path.unlink()
    path.mkdir()  # found by nobody (not a file), read when named: an error, not a traceback
    with pytest.raises(DeclaredFileError, match=r"^jobs-tui\.toml: cannot be read: "):
        load_stack(path)


# -- the sample project: examples/stack ---------------------------------------------------

DB = DeclaredJob(
    "db",
    "python3 db.py",
    ready=Probe("log", "ready to accept connections"),
    stop_signal="SIGINT",
    description="a database stand-in, ready on a log line",
)
WORKER = DeclaredJob(
    "worker",
    "python3 worker.py",
    restart="on-failure",
    max_restarts=3,
    depends_on={"api": "ready"},
    description="a worker that crash-loops",
)


def api(ready: Probe, description: str) -> DeclaredJob:
    return DeclaredJob(
        "api",
        "python3 api.py",
        env={"PORT": "8765"},
        ready=ready,
        restart="on-failure",
        max_restarts=5,
        depends_on={"db": "ready"},
        description=description,
    )


def test_the_example_stack_is_its_own_project():
    assert find_declared(STACK) == (STACK / "jobs-tui.toml", "jobs-tui.toml")


def test_the_example_jobs_tui_toml():
    stack = load_stack(STACK / "jobs-tui.toml")
    ready = Probe("port", 8765, limit_ms=10000)
    assert stack.jobs == {
        "db": DB,
        "api": api(ready, "an HTTP API, ready when it listens"),
        "worker": WORKER,
    }
    assert stack.levels() == [["db"], ["api"], ["worker"]] and stack.warnings == []


def test_the_example_process_compose_yaml_is_the_same_stack():
    stack = load_stack(STACK / "process-compose.yaml")
    ready = Probe("http", "http://127.0.0.1:8765/health")
    assert stack.jobs == {
        "db": DB,
        "api": api(ready, "an HTTP API, ready when it answers"),
        "worker": WORKER,
    }
    assert stack.levels() == [["db"], ["api"], ["worker"]] and stack.warnings == []


def test_the_example_procfile_is_the_same_jobs_without_probes_or_order():
    stack = load_stack(STACK / "Procfile")
    assert stack.jobs == {
        "db": DeclaredJob("db", "python3 db.py"),
        "api": DeclaredJob("api", "python3 api.py"),
        "worker": DeclaredJob("worker", "python3 worker.py"),
    }
    assert stack.levels() == [["db", "api", "worker"]]


def test_the_example_scripts_are_the_standard_library_only():
    import ast
    import sys

    for script in sorted(STACK.glob("*.py")):
        for node in ast.walk(ast.parse(script.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = (
                    [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                )
                assert all(n.split(".")[0] in sys.stdlib_module_names for n in names), script
