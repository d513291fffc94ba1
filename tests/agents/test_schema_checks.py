"""The checks the client tests hold each offered tool schema to can fail (default run).

`schema_faults` and `kept_parameters` (tests/agents/clients.py) judge what a client did to
a served input schema before its model saw it. Here they meet what Codex 0.171 once
did to `job_send`'s `{"const": true}` (issue 23: `{"type": "string", "enum": [true]}`)
and the other ways a conversion can go wrong, so a green agents run means something.
"""

from __future__ import annotations

from .clients import added_parameters, kept_parameters, schema_faults

SERVED = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": "^j[1-9][0-9]*$"},
        "eof": {"type": "boolean"},
        "signal": {"type": "string", "enum": ["SIGTERM", "SIGKILL"]},
    },
    "required": ["id"],
    "additionalProperties": False,
}


def test_codex_s_old_const_rewrite_is_a_fault():
    rewritten = {"type": "string", "enum": [True]}
    faults = schema_faults({"type": "object", "properties": {"eof": rewritten}})
    assert faults == ["/properties/eof: enum value True is not of type ['string']"]


def test_a_const_anywhere_and_a_bad_type_are_faults():
    nested = {
        "type": "object",
        "properties": {"a": {"allOf": [{"const": 1}]}, "b": {"type": "str"}},
    }
    faults = schema_faults(nested)
    assert "/properties/a/allOf/0: const 1" in faults
    assert "/properties/b: unknown type 'str'" in faults


def test_what_codex_does_today_is_no_fault():
    """Value constraints dropped, `allOf: [{pattern}]` left as `allOf: [{}]`: still sane."""
    given = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "allOf": [{}]},
            "eof": {"type": "boolean"},
            "signal": {"type": "string", "enum": ["SIGTERM", "SIGKILL"]},
        },
        "required": ["id"],
    }
    assert schema_faults(given) == []
    assert kept_parameters(SERVED, given) == []


def test_a_lost_property_type_enum_or_required_is_a_fault():
    given = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "signal": {"type": "string", "enum": ["SIGTERM"]},
            "wait_for_previous": {"type": "boolean"},
        },
        "required": [],
    }
    faults = kept_parameters(SERVED, given)
    assert "properties ['eof'] are gone" in faults
    assert "id: type 'string' became 'integer'" in faults
    assert "signal: enum ['SIGTERM', 'SIGKILL'] became ['SIGTERM']" in faults
    assert "required ['id'] became []" in faults
    assert added_parameters(SERVED, given) == ["wait_for_previous"]  # Gemini's own: no fault
