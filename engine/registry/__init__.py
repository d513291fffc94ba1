"""Records on disk: files, merge, ids, adoption, peers; all of the registry directory."""
