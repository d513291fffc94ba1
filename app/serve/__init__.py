"""`jobs-tui serve`: the jobs app in a browser, one app process per tab, behind a token."""
