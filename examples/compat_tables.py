# The compatibility page: what changed from one torch release to the next.
# Every claim but the torch.compile ones is evaluated on the installed torch
# from the results the other pages computed while the book was built (nothing
# runs again); the other releases are the committed records (records/*.json),
# each measured on its own release by `nox -s "drift(torch='...')"`.
from collections import Counter

from phase25 import claims, history, record

# the installed release, measured now (torch.compile aside)
live = record.measured_in_book()
records = record.committed()  # release -> record, oldest first
# the committed record of the installed release, if any
mine = records.get(live["release"])
stale = record.differences(mine, live) if mine is not None else []
# what this build measured stands for the installed release; torch.compile,
# from its record
live = records[live["release"]] = record.completed(live, mine)
releases = history.ordered(records)

outcomes = record.outcomes(live)
print(f"torch installed: {live['torch']}; "
      f"claims that hold: {sum(o.holds for o in outcomes.values())} "
      f"of {len(outcomes)} "
      f"({sum(not o.applicable for o in outcomes.values())} not applicable)")
if stale:
    print(f"records/torch-{live['release']}.json is stale: "
          f"{', '.join(what for what, *_ in stale)} changed")

# Each thing a record keeps (message part, torch.compile field, claim), release
# by release: its value on the oldest record, then each release where it
# changed (the page's tables).
changes = history.history(records, claims.CLAIMS)
changed = [h for h in changes if h.changed]
print(f"{len(releases)} releases, torch {releases[0]} to {releases[-1]}: "
      f"{len(changed)} things changed at least once, "
      f"{len(changes) - len(changed)} never did")
for release in releases:
    here = Counter(h.thing.kind for h in changed
                   if release in {s.start for s in h.changes})
    if here:
        print(f"  changed in torch {release}: "
              + ", ".join(f"{kind}: {n}" for kind, n in here.items()))

# What the course's first draft quoted (examples/errata.py), and which records
# print it.
found = history.draft_findings(records)
print("draft quotes no recorded release prints:",
      ", ".join(f.key for f in found if not f.printed_by) or "none")
print("draft quotes some release prints:",
      ", ".join(f"{f.key} ({len(f.printed_by)})" for f in found if f.printed_by)
      or "none")


# %% hidden checks: what the page says of this example, and the values its prose quotes

import re

from execbook.checks import glue, glue_figure, glue_html, glue_number, glue_words
from phase25.tables import (NOT_APPLICABLE, RELEASES, ROW_WORDS, STATUS, compile_value, draft_table, history_table,
                            releases_text, row_words, table, timeline, unchanged_list, verdict)

from execbook import store

unnamed = sorted({name for name in [*claims.CLAIMS, *record.MESSAGE_PARTS, *record.COMPILE_FIELDS]
                  for language in ROW_WORDS if row_words(name, language) is None})
assert not unnamed, (f"no words for the row {', '.join(unnamed)}: add them to ROW_WORDS in "
                     "phase25/tables.py, in both languages")

claims.require(outcomes, live["torch"])  # a claim that no longer holds stops the build here
if store.folder() is not None:  # execbook/build.py says so when the committed record is stale
    record.write(dict(live, stale=stale and {"release": live["release"], "what": [w for w, *_ in stale]}),
                 path=store.folder() / "live-record.json")

assert releases == history.ordered(records) and live["release"] in releases
changed = [h for h in changes if h.changed]
unchanged = [h for h in changes if not h.changed]
for h in changed:  # the table says: a change is a release whose value differs from the one measured before
    measured = list(h.measured)
    for span in h.changes:
        before = records[measured[measured.index(span.start) - 1]]
        assert history.observe(before, h.thing) != history.observe(records[span.start], h.thing), h.thing

output_of = next(h for h in changes if h.thing.what == "message.output_of")
backward_node = re.compile(r"Backward\d*$")
assert backward_node.search(output_of.first.value) and not backward_node.search(output_of.spans[-1].value), \
    "the page says older releases name a backward node after 'output 0 of', recent ones the forward op"

# --- what changed, and when
glue("compat_releases", ", ".join(releases))
glue("compat_oldest", releases[0])
glue("compat_newest", releases[-1])
glue_number("compat_release_count", len(releases))
glue_number("compat_changed_count", len(changed))
glue_number("compat_unchanged_count", len(unchanged))
glue_html("compat_history", lambda language: history_table(changed, releases, language))
glue_html("compat_unchanged", lambda language: unchanged_list(unchanged, releases, language))
book = [r for r in releases if claims.supported(r)]
glue_figure("compat_timeline", lambda language: timeline(changed, releases, book, language))

# --- what the draft quoted
assert [f.key for f in found] == ["message", "producer", "node", "versions", "shape", "torch"]
glue_number("compat_draft_count", len(found))
glue_number("compat_draft_none", sum(not f.printed_by for f in found))
glue_html("compat_draft", lambda language: draft_table(found, releases, language))

# --- the book's range
record_only = [r for r in releases if r not in book]
assert claims.supported(live["release"]), "the page says this build's release is in the book's range"
glue("compat_range", claims.config.TORCH_REQUIREMENT)
glue("compat_book_releases", ", ".join(book))
glue_words("compat_record_only", {language: ", ".join(record_only) or RELEASES[language]["none"]
                                        for language in RELEASES})

# --- where inplace_doctor works
works = [r for r in releases if records[r]["claims"].get("diagnose-works", {}).get("holds")]
assert live["release"] in works, "the diagnose page runs on this build's release"
glue_words("compat_diagnose_releases", {language: releases_text(works, releases, language)
                                        for language in RELEASES})

# --- the evidence, release by release
columns = [records[r] for r in releases]
parts = [(part, [r["message"].get(part) for r in columns])
         for part in record.MESSAGE_PARTS if part not in history.FULL_MESSAGES]
glue_html("compat_parts", lambda language: table(
    language, "parts", releases, live["release"], parts, history.excerpt))
glue_html("compat_claims", lambda language: table(
    language, "claims", releases, live["release"],
    [(name, [verdict(r["claims"].get(name), language) for r in columns]) for name in claims.CLAIMS],
    history.excerpt))
backends = [h.thing.backend for h in changes if h.thing.kind == history.COMPILE and h.thing.name is None]
compile_rows = [(f"{b} · {field}", [compile_value((r.get("compile") or {}).get(b), field) for r in columns])
                for b in backends for field in record.COMPILE_FIELDS if field != "b_message"]
glue_html("compat_compile", lambda language: table(
    language, "compile", releases, live["release"],
    [(name, [NOT_APPLICABLE[language] if v == "n/a" else v for v in values]) for name, values in compile_rows],
    history.excerpt))

glue_words("compat_stale", {language: STATUS[language][bool(stale)] for language in STATUS})
glue_number("compat_claim_count", len(outcomes))
from phase25.__main__ import BROKEN, STALE  # python -m phase25 check's exit statuses

glue("drift_exit_broken", BROKEN)
glue("drift_exit_stale", STALE)
