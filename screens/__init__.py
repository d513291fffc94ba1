"""Textual screens and widgets for jobs-tui."""
