"""What the list and the panes share: job source, styles, chips, bars, dialogs, keys."""
