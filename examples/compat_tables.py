# The compatibility tables. Every claim is evaluated on the installed torch from the results the
# other pages computed while the book was built (book.store): one that no longer holds fails the
# build, naming the claim and the release. The other columns are the committed records
# (records/*.json), each measured by `nox -s "drift(torch='...')"` on that release. When only the
# wording changed, the installed release's record is stale: the page says so and still builds.
import html

from IPython import get_ipython
from IPython.display import HTML
from myst_nb import glue

from book import store
from drift import __main__ as exits
from drift import claims, record

live = record.measure(claims.evaluate_all())
outcomes = record.outcomes(live)
claims.require(outcomes, live["torch"])
records = record.committed()
mine = records.get(live["release"])
stale = record.differences(mine, live) if mine is not None else []
if store.folder() is not None:  # docs/build.py reports a stale record from this file
    record.write(dict(live, stale=stale and {"release": live["release"], "what": [w for w, *_ in stale]}),
                 path=store.folder() / "live-record.json")
records[live["release"]] = live  # what this build measured, in the column of its release
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
    """✓ holds, ✗ does not, n/a the release lacks what the check needs, — not measured."""
    found = r["claims"].get(name)
    if found is None:
        return None
    return "n/a" if found["seen"].startswith(claims.NOT_APPLICABLE) else "✓" if found["holds"] else "✗"


parts = table([(part, [r["message"].get(part) for r in columns])
               for part in record.MESSAGE_PARTS if part not in ("anomaly_off", "anomaly_on")])
verdicts = table([(name, [verdict(r, name) for r in columns]) for name in claims.CLAIMS])
if get_ipython() is not None:
    glue("compat_parts", parts, display=False)
    glue("compat_claims", verdicts, display=False)

print(f"torch installed: {live['torch']}; claims that hold: "
      f"{sum(o.holds for o in outcomes.values())} of {len(outcomes)} "
      f"({sum(not o.applicable for o in outcomes.values())} not applicable)")
if stale:
    print(f"records/torch-{live['release']}.json is stale (the wording changed; every claim holds):")
    print(record.format_differences(mine, live))
print(f"releases recorded: {', '.join(releases)}\n")
for old, new in zip(columns, columns[1:]):
    print(record.format_differences(old, new))

changed = sorted({what for old, new in zip(columns, columns[1:]) for what, *_ in record.differences(old, new)})
glue("compat_releases", ", ".join(releases), display=False)
glue("compat_claim_count", len(outcomes), display=False)
glue("compat_changed", ", ".join(changed) or "—", display=False)
glue("compat_stale", "stale" if stale else "current", display=False)
glue("drift_exit_broken", exits.BROKEN, display=False)  # python -m drift check's exit statuses
glue("drift_exit_stale", exits.STALE, display=False)
