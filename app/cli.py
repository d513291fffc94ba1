"""`jobs-tui`: the command-line entry point. Verbs import no UI module."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jobs-tui",
        description="Background jobs for people who work beside coding agents.",
    )
    parser.add_argument("--registry-dir", help="the registry directory to use")
    sub = parser.add_subparsers(dest="verb")
    listing = sub.add_parser("list", help="list the project's jobs")
    listing.add_argument("--all", action="store_true", help="include other sessions' finished jobs")
    sub.add_parser("schema", help="print the JSON Schema of the job tool")
    return parser


async def _list(args: argparse.Namespace) -> int:
    from jobs_tui.engine import JobManager
    from jobs_tui.engine.format import row, summary

    manager = JobManager(cwd=".", registry_dir=args.registry_dir, session_id="cli", persistent=True)
    await manager.open()
    try:
        jobs = await manager.list(all=args.all)
        now = time.time() * 1000
        print(summary(jobs, manager.session_id))
        for record in jobs:
            print(row(record, now, peer=not manager.is_own(record)))
    finally:
        await manager.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.verb == "schema":
        import json

        from jobs_tui.engine import job_tool_schema

        print(json.dumps(job_tool_schema(), indent=2))
        return 0
    if args.verb in (None, "list"):
        args.all = getattr(args, "all", False)
        return asyncio.run(_list(args))
    return 2


if __name__ == "__main__":
    sys.exit(main())
