"""Textual stylesheets (.tcss), loaded into screens with importlib.resources."""
