"""Issue 8, item 15: one JSON shape for every verb's `--json` output, one for errors, the
exit status in both, argument errors as JSON, and `jobs-tui schema cli` describing them.

Real outputs of every verb are validated against the published schemas.
"""

from __future__ import annotations

import functools
import json
import os
import re
from typing import Any

import jsonschema
import pytest

from .conftest import Cli, Result

VERBS = (
    "start",
    "list",
    "status",
    "logs",
    "send",
    "kill",
    "clear",
    "wait",
    "restart",
    "exec",
    "poll",
    "up",
    "down",
    "config",
    "schema",
    "setup",
    "strays",  # issue 27
)
REGISTRY_FIELDS = {
    "id",
    "label",
    "command",
    "cwd",
    "pid",
    "status",
    "exitCode",
    "signal",
    "startedAt",
    "finishedAt",
    "logPath",
    "detached",
    "wake",
    "sessionId",
    "seen",
    "lastLine",
    "statusPath",
    "startToken",
}


@pytest.fixture
def schemas(cli: Cli) -> dict[str, Any]:
    text = cli.ok("schema", "cli").out
    published = json.loads(text)
    assert set(published) == {*VERBS, "error"}
    _check_schemas(text)
    return published


@functools.cache
def _check_schemas(text: str) -> None:
    """Each published schema is valid draft 2020-12 (checked once per distinct output:
    checking takes most of a second)."""
    for schema in json.loads(text).values():
        jsonschema.Draft202012Validator.check_schema(schema)


def checked(schemas: dict[str, Any], verb: str, result: Result, session: str = "cli") -> Any:
    """Every line of `result`'s stdout is one object of `verb`'s shape (or the error shape)."""
    lines = [json.loads(line) for line in result.out.splitlines()]
    assert lines, result
    for out in lines:
        shape = "error" if "error" in out else verb
        jsonschema.validate(out, schemas[shape])
        assert out["sessionId"] in (session, None)
        assert_camel_case(out)
    last = lines[-1]
    assert last["exit"] == result.code, (last, result.code)
    for out in lines:
        for record in [out.get("job"), *out.get("jobs", [])]:
            if record is not None:
                assert set(record) >= REGISTRY_FIELDS, sorted(REGISTRY_FIELDS - set(record))
    return last if len(lines) == 1 else lines


def assert_camel_case(value: Any, path: str = "") -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            if path.endswith(("config", "schemas")):
                continue  # the config file's own keys and the schemas' text are data
            assert "_" not in key, f"{path}.{key}"
            assert_camel_case(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for inner in value:
            assert_camel_case(inner, path)


def test_every_verb_prints_one_shape_with_its_exit_status(cli: Cli, schemas, tmp_path):
    start = checked(schemas, "start", cli("start", "--json", "--stdin", "--", "cat"))
    assert start["action"] == "start" and start["job"]["id"] == "j1" and start["exit"] == 0
    sent = checked(schemas, "send", cli("send", "j1", "hello", "--json"))
    assert sent["sent"] == 5 and sent["job"]["id"] == "j1"
    checked(schemas, "send", cli("send", "j1", "--eof", "--json"))
    waited = checked(schemas, "wait", cli("wait", "j1", "--json"))
    assert waited["exit"] == 0 and waited["timedOut"] is False
    status = checked(schemas, "status", cli("status", "j1", "--json"))
    assert status["sessionId"] == "cli" and status["job"]["sessionId"] == "cli"
    checked(schemas, "logs", cli("logs", "j1", "--json"))
    page = checked(schemas, "logs", cli("logs", "j1", "--offset", "0", "--limit", "1", "--json"))
    assert page["logs"] == "hello\n" and page["totalLines"] == 1
    listed = checked(schemas, "list", cli("list", "--json"))
    assert [j["id"] for j in listed["jobs"]] == ["j1"] and listed["pruned"] == 0
    assert listed["problems"] == []

    cli.ok("start", "--", "exit 7")
    failed = checked(schemas, "wait", cli("wait", "j2", "--json"))
    assert failed["exit"] == 7 and failed["job"]["exitCode"] == 7
    cli.ok("start", "--", "sleep 30")
    timed = checked(schemas, "wait", cli("wait", "j3", "--timeout-ms", "100", "--json"))
    assert timed["exit"] == 124 and timed["timedOut"] is True
    killed = checked(schemas, "kill", cli("kill", "j3", "--json"))
    assert killed["signalled"] is True and killed["job"]["status"] == "killed"
    assert checked(schemas, "wait", cli("wait", "j3", "--json"))["exit"] == 143

    ran = checked(schemas, "exec", cli("exec", "--json", "--", "echo out; exit 5"))
    assert ran["exit"] == 5 and ran["output"] == "out\n" and ran["job"]["exitCode"] == 5
    assert ran["sessionId"] == "cli" and ran["supervision"]["state"] == "failed"
    slow = checked(schemas, "exec", cli("exec", "--json", "--yield-ms", "250", "--", "sleep 1"))
    assert slow["exit"] == 124 and slow["running"] is True
    polled = checked(schemas, "poll", cli("poll", "j5", "--json", "--wait-ms", "5000"))
    assert polled["exit"] == 0 and polled["running"] is False

    cleared = checked(schemas, "clear", cli("clear", "--json"))
    assert cleared["cleared"] == len(cleared["jobs"]) >= 3

    path = str(tmp_path / "conf.toml")
    init = checked(schemas, "config", cli("config", "init", "--path", path, "--json"))
    assert init["path"] == path
    shown = checked(schemas, "config", cli("config", "show", "--json"))
    assert shown["registryDir"] == cli.registry_dir
    wrapped = checked(schemas, "schema", cli("schema", "job", "--json"))
    assert wrapped["schemas"]["job"]["title"] == "job"
    home = {"HOME": str(tmp_path)}
    wrote = checked(schemas, "setup", cli("setup", "cursor", "--user", "--json", env=home))
    assert wrote["files"][0]["change"] == "wrote" and wrote["changed"] is True
    gone = checked(
        schemas, "setup", cli("setup", "cursor", "--user", "--remove", "--json", env=home)
    )
    assert gone["files"][0]["change"] == "deleted"


def test_follow_prints_json_lines_the_last_with_the_exit(cli: Cli, schemas):
    cli.ok("start", "--", "echo one; sleep 0.6; echo two")
    lines = checked(schemas, "logs", cli("logs", "j1", "--follow", "--json"))
    assert all(line["exit"] is None for line in lines[:-1]) and lines[-1]["exit"] == 0
    assert "".join(line["logs"] for line in lines) == "one\ntwo\n"


def test_errors_have_one_shape_with_field_and_code(cli: Cli, schemas):
    cli.ok("start", "--", "sleep 30")
    cases = [
        (("status", "j9", "--json"), 3, "unknown-id", "ID"),
        (("status", "a/b", "--json"), 2, "usage", "ID"),  # "nope" is a name
        (("send", "j1", "x", "--json"), 4, "refused", "ID"),
        (("clear", "j1", "--json"), 4, "refused", "ID"),
        (("start", "--json", "--timeout-ms", "abc", "--", "true"), 2, "usage", "--timeout-ms"),
        (("list", "--json", "--bogus"), 2, "usage", "--bogus"),
        (("--json", "frob"), 2, "usage", "VERB"),
        (("wait", "--json"), 2, "usage", "ID"),
        (("start", "--json"), 2, "usage", "COMMAND"),
        (("logs", "j1", "--lines", "0", "--json"), 2, "usage", "--lines"),
        (("schema", "nope", "--json"), 2, "usage", "NAME"),
        (("strays", "--kill", "1", "--json"), 2, "usage", "--kill"),  # init: no stray
    ]
    for words, code, kind, field in cases:
        result = cli(*words)
        assert result.code == code, (words, result)
        out = checked(schemas, words[0] if words[0] in VERBS else "error", result)
        assert "error" in out and out["code"] == kind and out["field"] == field, (words, out)
        assert out["exit"] == code and result.err.strip()  # a message on stderr too
    cli.ok("kill", "j1")
    again = checked(schemas, "kill", cli("kill", "j1", "--json"))
    assert again["code"] == "refused" and again["job"]["id"] == "j1"


def test_exec_and_poll_speak_our_words_not_the_facades(cli: Cli, schemas):
    ran = checked(schemas, "exec", cli("exec", "--json", "--", "printf 'a\\tb'"))
    text = json.dumps(ran)
    for facade_word in ("session_id", "exit_code", "job_id", "log_path", "stop_reason"):
        assert facade_word not in text
    assert ran["output"] == "a\tb" and ran["job"]["exitCode"] == 0
    assert ran["supervision"]["stopReason"] == "exit"


def test_schema_cli_is_listed_with_the_tool_vocabularies(cli: Cli):
    everything = json.loads(cli.ok("schema").out)
    assert set(everything) == {"job", "exec_command", "process", "cli", "config"}
    one = json.loads(cli.ok("schema", "cli.wait").out)
    assert one["properties"]["action"]["const"] == "wait"


def test_json_of_a_long_wait_carries_the_code_it_exits_with(cli: Cli, schemas):
    cli.ok("start", "--", "sleep 0.3; kill -KILL $$")
    out = checked(schemas, "wait", cli("wait", "j1", "--json"))
    assert out["exit"] == 137 and out["job"]["signal"] == "SIGKILL"


def test_the_docs_document_the_shapes():
    """The command line's page (README's "Command line" section before the docs site)."""
    page = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "cli.md")
    with open(page, encoding="utf-8") as fh:
        text = fh.read()
    section = text[text.index("## JSON output") :]
    for word in ('"exit"', '"sessionId"', '"error"', '"field"', '"code"', "schema cli"):
        assert word in section, word
    assert re.search(r"unknown-id", section)  # the codes are listed


def test_the_issue_11_outputs_keep_the_published_shapes(cli: Cli, schemas):
    """wait --until / several ids, restart, logs --grep / --timestamps, usage in list/status."""
    cli.ok("start", "--", "echo ready; sleep 30")
    matched = checked(
        schemas, "wait", cli("wait", "j1", "--until", "ready", "--from-start", "--json")
    )
    assert matched["reason"] == "match" and matched["match"]["line"] == "ready"
    cli.ok("start", "--", "exit 3")
    both = checked(schemas, "wait", cli("wait", "j1", "j2", "--any", "--json"))
    assert both["exit"] == 3 and [j["id"] for j in both["jobs"]] == ["j1", "j2"]
    restarted = checked(schemas, "restart", cli("restart", "j2", "--json"))
    assert restarted["restartOf"] == "j2" and restarted["job"]["restartOf"] == "j2"
    found = checked(schemas, "logs", cli("logs", "j1", "--grep", "re", "--json"))
    assert found["matches"] == 1 and found["lines"][0]["text"] == "ready"
    timed = checked(schemas, "logs", cli("logs", "j1", "--timestamps", "--json"))
    assert len(timed["times"]) == 1
    status = checked(schemas, "status", cli("status", "j1", "--json"))
    assert status["job"]["processCount"] >= 1
    listed = checked(schemas, "list", cli("list", "--json", "--running"))
    assert all("cpuPercent" in j for j in listed["jobs"])
