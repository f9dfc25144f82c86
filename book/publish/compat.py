"""Publishers of the compatibility page's example (book.publish): the claims checked (one that no
longer holds fails the build), the live record handed to docs/build.py, and the two tables and the
values the prose quotes, in each language.

The drift package is reached through the modules the example imported (its namespace), never
imported here: book's own imports would make every page depend on drift (book.deps), and only the
compatibility page does.
"""

import html
from importlib import import_module

from . import glue_html, glue_words, publisher

HEADS = {
    "es": {"parts": "parte del mensaje", "claims": "afirmación", "built": "la versión de esta construcción"},
    "en": {"parts": "message part", "claims": "claim", "built": "the release this book was built with"},
}
# ✓ holds, ✗ does not, n/a the release lacks what the check needs, — not measured there
NOT_APPLICABLE = {"es": "no aplica", "en": "n/a"}
STATUS = {"es": {True: "caducado", False: "al día"}, "en": {True: "stale", False: "current"}}


def table(language, kind, releases, live_release, rows):
    """rows: [(row name, [value per release])] -> HTML; a value that differs from the previous
    release's is marked (class book-drift)."""
    words = HEADS[language]
    head = "".join(
        f"<th>torch {html.escape(r)}"
        + (f' <span title="{html.escape(words["built"])}">⚙</span>' if r == live_release else "") + "</th>"
        for r in releases)
    body = []
    for name, values in rows:
        cells = []
        for i, value in enumerate(values):
            changed = i > 0 and value != values[i - 1]
            text = "—" if value is None else html.escape(str(value))
            cells.append(f'<td{" class=book-drift" if changed else ""}>{text}</td>')
        body.append(f"<tr><th><code>{html.escape(name)}</code></th>{''.join(cells)}</tr>")
    return (f'<div class="book-compat-scroll"><table class="table book-compat"><thead><tr>'
            f"<th>{html.escape(words[kind])}</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


def verdict(claims, found, language):
    """A record's outcome of one claim, as the claims table writes it."""
    if found is None:
        return None
    if found["seen"].startswith(claims.NOT_APPLICABLE):
        return NOT_APPLICABLE[language]
    return "✓" if found["holds"] else "✗"


@publisher
def compat_tables(ns, glue, error):
    from .. import store

    claims, record, live, records, stale = ns["claims"], ns["record"], ns["live"], ns["records"], ns["stale"]
    claims.require(ns["outcomes"], live["torch"])  # a claim that no longer holds stops the build here
    if store.folder() is not None:  # docs/build.py says so when the committed record is stale
        record.write(dict(live, stale=stale and {"release": live["release"], "what": [w for w, *_ in stale]}),
                     path=store.folder() / "live-record.json")

    releases = ns["releases"]
    columns = [records[r] for r in releases]
    parts = [(part, [r["message"].get(part) for r in columns])
             for part in record.MESSAGE_PARTS if part not in ("anomaly_off", "anomaly_on")]
    glue_html(glue, "compat_parts", lambda language: table(language, "parts", releases, live["release"], parts))
    glue_html(glue, "compat_claims", lambda language: table(
        language, "claims", releases, live["release"],
        [(name, [verdict(claims, r["claims"].get(name), language) for r in columns]) for name in claims.CLAIMS]))

    changed = sorted({what for old, new in zip(columns, columns[1:]) for what, *_ in record.differences(old, new)})
    glue("compat_releases", ", ".join(releases))
    glue("compat_claim_count", len(ns["outcomes"]))
    glue("compat_changed", ", ".join(changed) or "—")
    glue_words(glue, "compat_stale", {language: STATUS[language][bool(stale)] for language in STATUS})
    exits = import_module(f"{claims.__package__}.__main__")  # python -m drift check's exit statuses
    glue("drift_exit_broken", exits.BROKEN)
    glue("drift_exit_stale", exits.STALE)
