"""The log pane: one job's log read from disk, paged, followed, searched and fed."""
