"""Reading a job's output: tails, pages, search, follow; all read what the shim writes."""
