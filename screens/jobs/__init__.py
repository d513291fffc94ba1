"""The job list: rows, detail pane, live tail, summary, start and quit; it opens the panes."""
