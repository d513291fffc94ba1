"""The published JSON Schema of jobs-tui.toml (`jobs-tui schema config`): valid draft
2020-12, built from the key table the validator uses, and it accepts every example the
docs and examples/stack show, and rejects what the validator rejects (where a schema can
say it: keys, types, ranges)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import jsonschema
import pytest

from jobs_tui.engine.declared import DeclaredFileError, load_stack, parse_stack
from jobs_tui.engine.declared.export import to_toml
from jobs_tui.engine.declared.keys import JOB_KEYS, PROBE_KEYS
from jobs_tui.engine.declared.schema import config_schema

ROOT = Path(__file__).resolve().parents[3]
STACK = ROOT / "examples" / "stack"
VALIDATOR = jsonschema.Draft202012Validator(config_schema())


def test_the_schema_is_draft_2020_12_and_names_every_key():
    schema = config_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    job = schema["properties"]["jobs"]["additionalProperties"]
    assert list(job["properties"]) == list(JOB_KEYS) and job["required"] == ["command"]
    assert list(job["properties"]["ready"]["properties"]) == list(PROBE_KEYS)
    assert job["properties"]["restart"]["default"] == "no"
    assert job["properties"]["kill_grace_ms"]["default"] == 10000


def docs_examples() -> list[tuple[str, str]]:
    """Every ```toml block of the docs and README that declares jobs."""
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        blocks = re.findall(r"```toml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        found += [(f"{page.name} block {n}", b) for n, b in enumerate(blocks, 1) if "[jobs." in b]
    return found


def test_the_docs_show_examples():
    assert len(docs_examples()) >= 5


@pytest.mark.parametrize("text", [pytest.param(text, id=where) for where, text in docs_examples()])
def test_every_example_of_the_docs_is_valid_against_the_schema_and_the_validator(text):
    data = tomllib.loads(text)
    VALIDATOR.validate(data)
    parse_stack(text, "/p/jobs-tui.toml", "jobs-tui.toml")


def test_the_docs_show_the_sample_project_as_it_is():
    (shown,) = [text for where, text in docs_examples() if "python3 worker.py" in text]
    sample = parse_stack(shown, "/p/jobs-tui.toml", "jobs-tui.toml")
    assert sample.jobs == load_stack(STACK / "jobs-tui.toml").jobs


@pytest.mark.parametrize("name", ["jobs-tui.toml", "process-compose.yaml", "Procfile"])
def test_the_example_stack_and_its_imports_are_valid_against_the_schema(name):
    stack = load_stack(STACK / name)
    VALIDATOR.validate(tomllib.loads(to_toml(stack)))
    if name == "jobs-tui.toml":
        VALIDATOR.validate(tomllib.loads((STACK / name).read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    "body",
    [
        'comand = "x"',
        'command = "x"\nbackoff_ms = "1s"',
        'command = "x"\nbackoff_ms = -1',
        'command = "x"\nrestart = "on_failure"',
        'command = "x"\nready = {}',
        'command = "x"\nready = { port = 1, log = "x" }',
        'command = "x"\nready = { port = 70000 }',
        'command = "x"\nready = { http = "localhost:80" }',
        'command = "x"\nenv = { PORT = 8000 }',
        'command = "x"\ndepends_on = { db = "healthy" }',
        'command = "x"\ntty = "yes"',
        'command = "  "',
        'command = "x"\ndescription = "a\\nb"',
    ],
)
def test_what_the_validator_refuses_the_schema_refuses_too(body):
    text = f"[jobs.api]\n{body}\n"
    with pytest.raises(DeclaredFileError):
        parse_stack(text, "/p/jobs-tui.toml", "jobs-tui.toml")
    assert not VALIDATOR.is_valid(tomllib.loads(text))


@pytest.mark.parametrize("text", ['[jobs.j3]\ncommand = "x"\n', "[jobs]\n", "jobs = 1\nx = 2\n"])
def test_names_and_the_files_shape_too(text):
    assert not VALIDATOR.is_valid(tomllib.loads(text))


def test_the_docs_list_every_key_with_its_range_and_default():
    text = (ROOT / "docs" / "declared.md").read_text(encoding="utf-8")
    rows = {m[0]: m[1] for m in re.findall(r"^\| `(\w+)` \|(.*)$", text, re.M)}
    for name, key in {**JOB_KEYS, **PROBE_KEYS}.items():
        assert name in rows, name
        if key.kind == "int":
            assert f"{key.low}-{key.high}" in rows[name], name
        if isinstance(key.default, int) and not isinstance(key.default, bool):
            assert f"| {key.default} |" in rows[name], name
        for choice in key.choices:
            assert f'`"{choice}"`' in rows[name], (name, choice)
