"""A terminal job's output read as text: its emulated rows, for the verbs, MCP and hooks."""
