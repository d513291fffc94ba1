"""What a job is and how it reads (records, results, bounds, text): pure, so the floor."""
