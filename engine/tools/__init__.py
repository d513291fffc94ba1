"""The tool vocabularies agents speak, as thin facades over `JobManager`."""
