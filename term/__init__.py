"""A terminal emulator for a PTY job's output, over pyte: bytes in, cells or text out.

Its own package, apart from `screens` (Textual) and `engine` (which never imports pyte),
so that every door that shows a terminal job's output as text (the terminal pane, the
command line's `logs`, the MCP server) renders it through the one emulator, and the
command line does not load Textual to do so. It imports neither the engine nor a UI.
"""
