"""What a job id is: `j<n>`, n from 1 to 999,999,999, no leading zero.

A record's own rule, so it lives with the records (whose check of a loaded entry uses it);
the registry's file names and id reservations build on it.
"""

from __future__ import annotations

import re

_JOB_ID = re.compile(r"^j([1-9][0-9]{0,8})\Z")  # \Z: "$" would accept a trailing "\n"
MAX_JOB_NUMBER = 999_999_999  # j<n> has at most nine digits


def is_job_id(text: str) -> bool:
    return bool(_JOB_ID.match(text))


def job_number(job_id: str) -> int:
    match = _JOB_ID.match(job_id)
    if not match:
        raise ValueError(f"not a job id: {job_id!r}")
    return int(match.group(1))
