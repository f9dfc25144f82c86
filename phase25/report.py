"""What the build says after it executed pages ([tool.book.hooks] report), read without torch:
the build's process imports this module and nothing heavier."""

import json

from execbook import STORE


def stale_record_note() -> list[str]:
    """After a build (the report hook): when the compatibility page found this release's committed
    record stale (only the wording changed; every claim holds), what to re-record."""
    live = STORE / "live-record.json"  # examples/compat_tables.py writes it
    stale = json.loads(live.read_text("utf-8")).get("stale") if live.is_file() else None
    if not stale:
        return []
    command = f"nox -s \"drift(torch='{stale['release']}')\""
    notes = []
    if stale["what"]:
        notes.append(
            f"note: records/torch-{stale['release']}.json is stale ({', '.join(stale['what'])} changed; every "
            f"claim holds): re-record it with {command}"
        )
    if stale.get("unmeasured"):
        notes.append(
            f"note: records/torch-{stale['release']}.json has not measured claim(s) {', '.join(stale['unmeasured'])} "
            f"(a new case): record it with {command} and commit it (nox -s tests fails until then)"
        )
    return notes
