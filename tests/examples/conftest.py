"""The command-line runner of tests/cli (`cli`: the real entry point, one registry per test),
for the examples that run through it."""

from tests.cli.conftest import cli  # noqa: F401  (the fixture)
