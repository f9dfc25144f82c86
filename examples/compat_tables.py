import json
from pathlib import Path

import torch


# en: records/torch-2.13.0.json -> (2, 13, 0)
# es: records/torch-2.13.0.json -> (2, 13, 0)
def release(path):
    return tuple(int(n) for n in path.stem.split("-")[1].split("."))


paths = [p for p in Path("records").glob("torch-*.json")
         # en: only the CPU's records (not torch-<release>-cuda.json)
         # es: solo los registros de la CPU (no torch-<versión>-cuda.json)
         if p.stem.count("-") == 1]
print(f"torch.__version__: {torch.__version__}; len(paths): {len(paths)}")
for path in sorted(paths, key=release):
    claims = json.loads(path.read_text())["claims"].values()
    holding = sum(claim["holds"] for claim in claims)
    # en: "not applicable": the release lacks what the check needs
    # es: "not applicable": a la versión le falta lo que se comprueba
    lacking = sum(claim.get("seen", "").startswith("not applicable")
                  for claim in claims)
    print(f"  torch {path.stem.removeprefix('torch-'):7} ✓ {holding:2}/"
          f"{len(claims)}, {lacking = :2}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from phase25 import claims, history, record

# the installed release, measured in this build
live = record.measure()
records = record.committed()  # release -> record, oldest first
assert [p.stem.removeprefix("torch-") for p in sorted(paths, key=release)] == list(records), \
    "the cell lists the records phase25.record reads, oldest first"
# the committed record of the installed release, if any
mine = records.get(live["release"])
stale = record.differences(mine, live) if mine is not None else []
# claims the committed record has not measured yet (a new safe case): the build names them
unmeasured = sorted(set(live["claims"]) - set(mine["claims"])) if mine is not None else []
# what this build measured stands for the installed release
live = records[live["release"]] = record.completed(live, mine)
releases = history.ordered(records)

outcomes = record.outcomes(live)
# Each thing a record keeps (message part, torch.compile field, claim), release by release: its value on
# the oldest record, then each release where it changed (the page's tables).
changes = history.history(records, claims.CLAIMS)
# What the course's first draft quoted (examples/errata.py), and which records print it.
found = history.draft_findings(records)

import re

from execbook import glue, glue_figure, glue_html, glue_number, glue_words
from phase25.tables import (NOT_APPLICABLE, RELEASES, ROW_WORDS, STATUS, compile_value, draft_table, history_table,
                            releases_text, row_words, table, timeline, unchanged_list, verdict)

from execbook import store_folder
from phase25.releases import TORCH_REQUIREMENT

unnamed = sorted({name for name in [*claims.CLAIMS, *record.MESSAGE_PARTS, *record.COMPILE_FIELDS]
                  for language in ROW_WORDS if row_words(name, language) is None})
assert not unnamed, (f"no words for the row {', '.join(unnamed)}: add them to ROW_WORDS in "
                     "phase25/tables.py, in both languages")

claims.require(outcomes, live["torch"])  # a claim that no longer holds stops the build here
if store_folder() is not None:  # phase25.report.stale_record_note says so after the build
    record.write(dict(live, stale=(stale or unmeasured) and {"release": live["release"], "what": [w for w, *_ in stale],
                                                              "unmeasured": unmeasured}),
                 path=store_folder() / "live-record.json")

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
assert len(releases) == len(records), "the page says there are records of that many releases"
assert len(changed) + len(unchanged) == len(changes), \
    "the page says each thing recorded either changed at least once (one table) or never (the other)"
glue_number("compat_release_count", len(releases))
glue_number("compat_changed_count", len(changed))
glue_number("compat_unchanged_count", len(unchanged))
glue_html("compat_history", lambda language: history_table(changed, releases, language))
glue_html("compat_unchanged", lambda language: unchanged_list(unchanged, releases, language))
book = [r for r in releases if claims.supported(r)]
glue_figure("compat_timeline", lambda language: timeline(changed, releases, book, language))

# --- what the draft quoted
assert [f.key for f in found] == ["message", "producer", "node", "versions", "shape", "torch"]
assert len(found) == len({f.key for f in found}), "the page counts the draft's quotes, each once"
assert sum(not f.printed_by for f in found) <= len(found), "the page says: of the quotes, this many are printed by none"
glue_number("compat_draft_count", len(found))
glue_number("compat_draft_none", sum(not f.printed_by for f in found))
glue_html("compat_draft", lambda language: draft_table(found, releases, language))

# --- the book's range
record_only = [r for r in releases if r not in book]
assert claims.supported(live["release"]), "the page says this build's release is in the book's range"
glue("compat_range", TORCH_REQUIREMENT)
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
    language, "parts", releases, live["release"], parts))
glue_html("compat_claims", lambda language: table(
    language, "claims", releases, live["release"],
    [(name, [verdict(r["claims"].get(name), language) for r in columns]) for name in claims.CLAIMS]))
backends = [h.thing.backend for h in changes if h.thing.kind == history.COMPILE and h.thing.name is None]
compile_rows = [(f"{b} · {field}", [compile_value((r.get("compile") or {}).get(b), field) for r in columns])
                for b in backends for field in record.COMPILE_FIELDS if field != "b_message"]
glue_html("compat_compile", lambda language: table(
    language, "compile", releases, live["release"],
    [(name, [NOT_APPLICABLE[language] if v == "n/a" else v for v in values]) for name, values in compile_rows]))

glue_words("compat_stale", {language: STATUS[language][bool(stale)] for language in STATUS})
assert len(outcomes) == len(claims.CLAIMS), "the page says the table has a row for each claim"
glue_number("compat_claim_count", len(outcomes))
from phase25.__main__ import BROKEN, STALE  # python -m phase25 check's exit statuses

glue("drift_exit_broken", BROKEN)
glue("drift_exit_stale", STALE)

# The range section: only the diagnoser's claims are not required, and no required claim fails on
# a recorded release of the range.
optional = [name for name, c in claims.CLAIMS.items() if not c.required]
assert optional and all(name.startswith("diagnose") for name in optional), \
    f"the page says the claims that are not required are the diagnoser's: {optional}"
broken = [(r["release"], o.name) for r in records.values() for o in record.outcomes(r).values() if o.broken]
assert not broken, f"the page says the required claims hold on every recorded release of the range: {broken}"
