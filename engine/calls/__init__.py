"""The published schemas and their checks: one definition of what any call may say."""
