# The compatibility tables. Every claim is checked on the installed torch while the book is built:
# one that no longer holds fails the build, naming the claim and the release. The other columns
# are the committed records (records/*.json), each measured by `nox -s "drift(torch='...')"` on
# that release; the installed release's record must still match what this build measured.
import html
import os
from pathlib import Path

from IPython import get_ipython
from IPython.display import HTML
from myst_nb import glue

from drift import claims, record

measured_by_build = os.environ.get("BOOK_LIVE_RECORD")  # docs/build.py checked the claims already
if measured_by_build and Path(measured_by_build).is_file():
    live = record.load(measured_by_build)
else:
    live = record.measure(claims.evaluate_all())
outcomes = record.outcomes(live)
claims.require(outcomes, live["torch"])
records = record.committed()
mine = records.get(live["release"])
if mine is not None and record.differences(mine, live):
    raise AssertionError(f"{record.path_for(live['release'])} is stale: re-record it with "
                         f"nox -s \"drift(torch='{live['release']}')\"\n"
                         + record.format_differences(mine, live))
records[live["release"]] = live  # same decisions as the committed one, or a release not yet recorded
releases = sorted(records, key=record.release_key)
columns = [records[r] for r in releases]


def table(rows):
    """rows: [(row name, [value per release])] -> HTML; a value that changed from the previous
    release is marked."""
    head = "".join(f"<th>torch {html.escape(r)}{' ⚙' if r == live['release'] else ''}</th>" for r in releases)
    body = []
    for name, values in rows:
        cells = []
        for i, value in enumerate(values):
            changed = i > 0 and value != values[i - 1]
            text = "—" if value is None else html.escape(str(value))
            cells.append(f'<td{" class=book-drift" if changed else ""}>{text}</td>')
        body.append(f"<tr><th><code>{html.escape(name)}</code></th>{''.join(cells)}</tr>")
    return HTML(f'<div class="book-compat-scroll"><table class="table book-compat"><thead><tr><th></th>{head}'
                f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def verdict(r, name):
    holds = r["claims"].get(name, {}).get("holds")
    return None if holds is None else "✓" if holds else "✗"


parts = table([(part, [r["message"].get(part) for r in columns])
               for part in record.MESSAGE_PARTS if part not in ("anomaly_off", "anomaly_on")])
verdicts = table([(name, [verdict(r, name) for r in columns]) for name in claims.CLAIMS])
if get_ipython() is not None:
    glue("compat_parts", parts, display=False)
    glue("compat_claims", verdicts, display=False)

print(f"torch installed: {live['torch']}; every claim holds: "
      f"{all(o.holds for o in outcomes.values())} ({len(outcomes)} claims)")
print(f"releases recorded: {', '.join(releases)}\n")
for old, new in zip(columns, columns[1:]):
    print(record.format_differences(old, new))

changed = sorted({what for old, new in zip(columns, columns[1:]) for what, *_ in record.differences(old, new)})
glue("compat_releases", ", ".join(releases), display=False)
glue("compat_claim_count", len(outcomes), display=False)
glue("compat_changed", ", ".join(changed) or "—", display=False)
