"""The safe-case summary table, in each language, from the outcomes the pages' guards recorded."""

import html

from execbook import Outcome, outcome

from .safe_cases import raised_at, summary_cases, title, verdict, what_holds_means

WORDS = {
    "en": {
        "case": "case",
        "verdict": "verdict",
        "how": "how it was checked",
        "safe": "safe",
        "unsafe": "not safe",
        "backward": "raises in the backward pass",
        "op": "raises at the op itself",
        "holds": "{} is True",
        "differs": "differs from examples/cases.toml",
    },
    "es": {
        "case": "caso",
        "verdict": "veredicto",
        "how": "cómo se comprobó",
        "safe": "segura",
        "unsafe": "no segura",
        "backward": "lanza el error en la pasada hacia atrás",
        "holds": "{} vale True",
        "op": "lanza el error en la propia operación",
        "differs": "no coincide con examples/cases.toml",
    },
}


def outcomes() -> dict[str, Outcome]:
    """name -> Outcome of every summary case (execbook.outcome: as its guard recorded it in this
    kernel, else from the build's store, else run now)."""
    return {c.name: outcome(c.name) for c in summary_cases()}


def rows(language: str, found: dict[str, Outcome] | None = None) -> list[tuple[str, str, str]]:
    """[(case, verdict, how it was checked)] as plain text, in the summary's order."""
    words, found = WORDS[language], found or outcomes()
    table = []
    for case in summary_cases():
        declared, outcome = verdict(case), found[case.name]
        assert declared is not None, f"{case.name} is in the summary without a verdict"
        shown = words[declared] if outcome.ok else f"{words['differs']}: {outcome.seen}"
        if declared == "unsafe" and outcome.ok:
            where = raised_at(outcome)
            assert where is not None, f"{case.name} is unsafe but raised nothing"
            shown += f" ({words[where]})"
        how = (
            f"{what_holds_means(case, language)} ({words['holds'].format(case.holds)})"
            if case.holds
            else f"{outcome.line}\n{outcome.raised}"
        )
        table.append((title(case, language), shown, how))
    return table


def table_html(language: str, found: dict[str, Outcome] | None = None) -> str:
    words = WORDS[language]
    head = "".join(f"<th>{words[k]}</th>" for k in ("case", "verdict", "how"))
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell).replace(chr(10), '<br>')}</td>" for cell in row) + "</tr>"
        for row in rows(language, found)
    )
    return (
        f'<div class="book-compat-scroll"><table class="table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )
