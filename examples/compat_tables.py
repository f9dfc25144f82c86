# The compatibility page: what changed from one torch release to the next. Every claim but the
# torch.compile ones is evaluated on the installed torch from the results the other pages
# computed while the book was built (nothing runs again); the other releases are the committed
# records (records/*.json), each measured on its own release by `nox -s "drift(torch='...')"`.
from collections import Counter

from drift import claims, history, record

live = record.measured_in_book()  # the installed release, measured now (torch.compile aside)
records = record.committed()  # release -> record, oldest first
mine = records.get(live["release"])  # the committed record of the installed release, if any
stale = record.differences(mine, live) if mine is not None else []
# what this build measured stands for the installed release; torch.compile, from its record
live = records[live["release"]] = record.completed(live, mine)
releases = history.ordered(records)

outcomes = record.outcomes(live)
print(f"torch installed: {live['torch']}; claims that hold: {sum(o.holds for o in outcomes.values())} "
      f"of {len(outcomes)} ({sum(not o.applicable for o in outcomes.values())} not applicable)")
if stale:
    print(f"records/torch-{live['release']}.json is stale: {', '.join(what for what, *_ in stale)} changed")

# Each thing a record keeps (message part, torch.compile field, claim), release by release:
# its value on the oldest record, then each release where it changed (the page's tables).
changes = history.history(records, claims.CLAIMS)
changed = [h for h in changes if h.changed]
print(f"{len(releases)} releases, torch {releases[0]} to {releases[-1]}: "
      f"{len(changed)} things changed at least once, {len(changes) - len(changed)} never did")
for release in releases:
    here = Counter(h.thing.kind for h in changed if release in {s.start for s in h.changes})
    if here:
        print(f"  changed in torch {release}: " + ", ".join(f"{kind}: {n}" for kind, n in here.items()))

# What the course's first draft quoted (examples/errata.py), and which records print it.
found = history.draft_findings(records)
print("draft quotes no recorded release prints:", ", ".join(f.key for f in found if not f.printed_by) or "none")
print("draft quotes some release prints:", ", ".join(f"{f.key} ({len(f.printed_by)})" for f in found if f.printed_by)
      or "none")
