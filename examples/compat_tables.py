# The compatibility tables. Every claim is evaluated on the installed torch from the results the
# other pages computed while the book was built (nothing runs again); the columns of the other
# releases are the committed records (records/*.json), each measured on its own release by
# `nox -s "drift(torch='...')"`.
from drift import claims, record

live = record.measure(claims.evaluate_all())  # the installed release, measured now
records = record.committed()  # release -> record, oldest first
mine = records.get(live["release"])  # the committed record of the installed release, if any
stale = record.differences(mine, live) if mine is not None else []
records[live["release"]] = live  # its column shows what this build measured
releases = sorted(records, key=record.release_key)

outcomes = record.outcomes(live)
print(f"torch installed: {live['torch']}; claims that hold: {sum(o.holds for o in outcomes.values())} "
      f"of {len(outcomes)} ({sum(not o.applicable for o in outcomes.values())} not applicable)")
if stale:
    print(f"records/torch-{live['release']}.json is stale: {', '.join(what for what, *_ in stale)} changed")
for old, new in zip(releases, releases[1:]):
    changed = [what for what, *_ in record.differences(records[old], records[new])]
    print(f"torch {old} -> {new}: {', '.join(changed) or 'no difference'}")
