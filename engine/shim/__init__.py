"""The job's own supervisor process: stdlib only (it starts `python -I -S`), so no other room."""
