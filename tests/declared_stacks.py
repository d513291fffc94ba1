"""Declared stacks more than one door's tests bring up (the tools' and MCP's)."""

# db ready on a log line after 0.2 s; api needs db ready; worker needs api started and
# crash-loops (exit 3, one restart 50 ms later): every kind of end a door tells of.
DB_API_WORKER = """
[jobs.db]
command = "sleep 0.2; echo db is ready; exec sleep 60"
ready = { log = "db is ready", period_ms = 50 }

[jobs.api]
command = "echo api up; exec sleep 60"
depends_on = { db = "ready" }

[jobs.worker]
command = "echo working; exit 3"
depends_on = { api = "started" }
restart = "on-failure"
max_restarts = 1
backoff_ms = 50
"""
