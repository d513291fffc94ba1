"""`jobs-tui config check`, `jobs-tui config import FILE` and `jobs-tui schema config`
through the real entry point (issue 26): the plan, every error of a bad file (exit 2),
the equivalent jobs-tui.toml written (never over one without --force), and the schema.
Their --json output is held to the published `schema cli` shapes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest

from jobs_tui.engine.declared import load_stack
from jobs_tui.engine.declared.schema import config_schema

from .conftest import Cli

STACK = Path(__file__).resolve().parents[2] / "examples" / "stack"
BAD = (
    '[jobs.db]\ncommand = "d"\ndepends_on = { api = "started" }\n'
    '[jobs.api]\ncommand = "a"\ndepends_on = { db = "started" }\ntty = "no"\n'
)


@pytest.fixture
def project(cli: Cli) -> Path:
    """The test's working directory made a project root, holding the example stack."""
    work = Path(cli.cwd)
    for item in STACK.iterdir():
        if item.is_file():
            shutil.copy(item, work / item.name)
    return work


@pytest.fixture(scope="module")
def shapes() -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "jobs_tui.app.cli", "schema", "cli"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def shaped(shapes: dict, out: str) -> dict:
    value = json.loads(out)
    jsonschema.validate(value, shapes["error" if "error" in value else "config"])
    return value


def test_check_prints_the_plan(cli: Cli, project: Path):
    out = cli.ok("config", "check").out.splitlines()
    assert out[:5] == [
        f"read from {project / 'jobs-tui.toml'}",
        "start order: 3 jobs in 3 levels",
        "  1. db",
        "  2. api",
        "  3. worker",
    ]
    text = "\n".join(out)
    assert "  ready    log /ready to accept connections/" in text
    assert "  ready    port 8765 every 1000 ms (timeout 1000 ms), not ready after 10000 ms" in text
    assert "  policy   restart on-failure (at most 3, 1000 ms apart)" in text
    assert "  needs    api ready" in text and "  stop     SIGINT, KILL after 10000 ms" in text


def test_check_json_carries_the_levels_and_each_jobs_spec(cli: Cli, project: Path, shapes):
    out = shaped(shapes, cli.ok("config", "check", "--json").out)
    assert out["action"] == "config check" and out["exit"] == 0
    assert out["levels"] == [["db"], ["api"], ["worker"]] and out["format"] == "jobs-tui.toml"
    stack = load_stack(project / "jobs-tui.toml")
    assert out["jobs"] == [job.to_spec() for job in stack.jobs.values()]


def test_check_from_a_subdirectory_reads_the_project_roots_file(cli: Cli, project: Path):
    (project / "sub").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "jobs_tui.app.cli", "config", "check", "--json"],
        capture_output=True,
        text=True,
        cwd=project / "sub",
        env=cli.env(),
    )
    assert json.loads(done.stdout)["source"] == str(project / "jobs-tui.toml")


def test_without_jobs_tui_toml_check_reads_process_compose_then_the_procfile(cli, project):
    (project / "jobs-tui.toml").unlink()
    first = cli.ok("config", "check").out.splitlines()[0]
    assert first == (
        f"read from {project / 'process-compose.yaml'} (no jobs-tui.toml: read as "
        "process-compose.yaml)"
    )
    (project / "process-compose.yaml").unlink()
    assert cli.ok("config", "check", "--json").json()["levels"] == [["db", "api", "worker"]]
    assert cli.ok("config", "check", "Procfile").out


def test_an_invalid_file_exits_2_with_every_error(cli: Cli, project: Path, shapes):
    (project / "jobs-tui.toml").write_text(BAD)
    done = cli("config", "check")
    assert done.code == 2 and done.out == ""
    assert done.err.splitlines() == [
        'jobs-tui: jobs-tui.toml: jobs.api.tty: must be true or false, not "no"',
        "jobs-tui: jobs-tui.toml: jobs.api.depends_on: db -> api -> db is a cycle",
    ]
    out = shaped(shapes, cli("config", "check", "--json").out)
    assert out["exit"] == 2 and out["code"] == "usage" and out["field"] == "FILE"
    assert out["errors"] == [line.removeprefix("jobs-tui: ") for line in done.err.splitlines()]
    assert out["error"].endswith("(and 1 more)")


def test_check_with_nothing_declared_says_where_it_looked(cli: Cli):
    done = cli("config", "check")
    assert done.code == 1
    assert f"no declared jobs in {cli.cwd}: none of jobs-tui.toml" in done.err


def test_import_writes_the_equivalent_jobs_tui_toml(cli: Cli, project: Path, shapes):
    (project / "jobs-tui.toml").unlink()
    done = cli.ok("config", "import", "process-compose.yaml", "--json")
    out = shaped(shapes, done.out)
    target = project / "jobs-tui.toml"
    assert out["path"] == str(target) and out["imported"] == ["db", "api", "worker"]
    written = target.read_text()
    assert written.startswith("# Written by `jobs-tui config import process-compose.yaml`")
    jsonschema.validate(tomllib.loads(written), config_schema())
    assert load_stack(target).jobs == load_stack(project / "process-compose.yaml").jobs
    assert cli.ok("config", "check").out.splitlines()[0] == f"read from {target}"


def test_import_never_overwrites_without_force(cli: Cli, project: Path):
    before = (project / "jobs-tui.toml").read_text()
    refused = cli("config", "import", "Procfile")
    assert refused.code == 1 and "exists; not overwritten (pass --force" in refused.err
    assert (project / "jobs-tui.toml").read_text() == before
    cli.ok("config", "import", "Procfile", "--force")
    assert load_stack(project / "jobs-tui.toml").levels() == [["db", "api", "worker"]]


def test_import_names_what_it_could_not_carry_over(cli: Cli, project: Path):
    (project / "mprocs.yaml").write_text(
        "procs:\n  web:\n    shell: serve\n    add_path: bin\n    env: {HOME: null}\n"
    )
    (project / "jobs-tui.toml").unlink()
    out = cli.ok("config", "import", "mprocs.yaml").out.splitlines()
    assert out == [
        f"wrote {project / 'jobs-tui.toml'}: 1 jobs from mprocs.yaml",
        "not carried over: mprocs.yaml: procs.web.env.HOME: unsetting a variable is not read; "
        "left out",
        "not carried over: mprocs.yaml: procs.web: add_path not read by jobs-tui; left out",
    ]
    written = (project / "jobs-tui.toml").read_text()
    assert "#   mprocs.yaml: procs.web: add_path not read by jobs-tui; left out" in written


def test_import_of_a_bad_file_writes_nothing(cli: Cli, project: Path):
    (project / "jobs-tui.toml").unlink()
    (project / "process-compose.yaml").write_text("services:\n  web:\n    image: nginx\n")
    done = cli("config", "import", "process-compose.yaml")
    assert done.code == 2 and "this looks like a docker-compose file" in done.err
    assert not (project / "jobs-tui.toml").exists()


def test_import_and_check_words(cli: Cli, project: Path):
    assert cli("config", "import").code == 2
    assert cli("config", "import", "jobs-tui.toml").code == 2
    assert cli("config", "show", "Procfile").code == 2
    missing = cli("config", "import", "nope/Procfile")
    assert missing.code == 2 and "nope/Procfile: cannot be read" in missing.err


def test_schema_config_is_the_files_schema(cli: Cli):
    assert json.loads(cli.ok("schema", "config").out) == config_schema()
    assert json.loads(cli.ok("schema").out)["config"] == config_schema()
    wrapped = cli.ok("schema", "config", "--json").json()
    assert wrapped["schemas"] == config_schema()


def test_check_of_a_toml_file_loads_no_yaml_parser_and_no_ui(cli: Cli, project: Path):
    wrapper = (
        "import sys\nfrom jobs_tui.app.cli import main\ncode = main(['config', 'check'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('yaml', 'textual', 'rich')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapper], capture_output=True, text=True, cwd=project, env=cli.env()
    )
    assert done.stdout.splitlines()[-1] == "[]"


def test_check_and_import_open_no_session(cli: Cli, project: Path):
    """Reading changes nothing: no session opened, so no registry directory is even made."""
    cli.ok("config", "check")
    cli.ok("config", "import", "process-compose.yaml", "--force")
    cli("config", "check", "nope.toml")
    assert not Path(cli.registry_dir).exists()
