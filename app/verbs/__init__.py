"""The command line's verbs (start, list, logs, wait, exec, ...) and what they print."""
