"""The jobs-tui application: its front doors, one room each, and what they share.

`cli` (the `jobs-tui` console script) dispatches to the doors: `verbs/` (the command
line), `serve/` (the browser), `mcp/` (the MCP server), `setup/` (an agent's client
configured); no door imports another. `hook/` (the agents' hooks) sits below the MCP
server, which registers itself for them, and `tty/` (a terminal job read as text) below
all. What every door shares is here at the top: the parser (`argv`, `argcheck`, `since`),
exit codes and errors, output (`printing`, `jsonout`), the command line's session, and the
screen's app (`tui`, `demo`). pyproject's contracts hold the direction.
"""
