"""The session's view of processes: table, usage, ports, leftovers; apart from the shim's."""
