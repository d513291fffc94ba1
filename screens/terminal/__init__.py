"""The terminal pane: a PTY job's emulated screen and scrollback, and typing into it."""
