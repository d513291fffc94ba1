"""The session-side facade: `JobManager` and the parts it composes, over every room."""
