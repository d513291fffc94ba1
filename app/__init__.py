"""The jobs-tui application, command-line entry points and agent adapters."""
