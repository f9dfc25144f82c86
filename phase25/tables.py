"""The compatibility page's tables, lists and timeline in each language, from the committed records
and their history: the words of every row and value, and the HTML and the figure they make."""

import html
import itertools
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from execbook import FIGURE_WIDTH

from . import claims, history, safe_cases

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@cache
def _case_titles() -> dict[str, dict[str, str]]:
    """A safe case's name -> its title per language (examples/cases.toml)."""
    return {case.name: case.extra["case"] for case in safe_cases.summary_cases()}


HEADS = {
    "es": {
        "parts": "parte del mensaje",
        "claims": "afirmación",
        "compile": "backend · campo",
        "built": "la versión de esta construcción",
        "what": "qué",
        "first": "valor en el primer registro",
        "changes": "cambios",
        "quote": "lo que cita el borrador",
        "printed": "versiones que lo imprimen",
        "instead": "lo que imprimen ahí",
    },
    "en": {
        "parts": "message part",
        "claims": "claim",
        "compile": "backend · field",
        "built": "the release this book was built with",
        "what": "what",
        "first": "value on the first record",
        "changes": "changes",
        "quote": "what the draft quotes",
        "printed": "releases that print it",
        "instead": "what they print there",
    },
}

GROUPS = {  # the history table's sections, by phase25.history kind
    "es": {"message": "El mensaje de error de la ejecución B", "compile": "torch.compile", "claim": "Afirmaciones"},
    "en": {"message": "Run B's error message", "compile": "torch.compile", "claim": "Claims"},
}

NOT_APPLICABLE = {"es": "no aplica", "en": "n/a"}

SAME = {"es": "〃 (igual)", "en": "〃 (same)"}  # a long table value equal to the release before

STATUS = {  # the committed record of the installed release against what this build measured
    "es": {
        True: "está desfasado: lo medido ahora solo difiere en la redacción",
        False: "está al día: coincide con lo medido",
    },
    "en": {
        True: "is stale: what was measured now differs only in wording",
        False: "is current: it matches what was measured",
    },
}

# phase25.history's values that are words; None: measured, and the message has no such part
VALUES: dict[str, dict[Any, str]] = {
    "es": {
        "holds": "✓ se cumple",
        "fails": "✗ no se cumple",
        "n/a": "no aplica",
        "available": "disponible",
        None: "(ninguno)",
    },
    "en": {"holds": "✓ holds", "fails": "✗ fails", "n/a": "n/a", "available": "available", None: "(none)"},
}

MEASURED = {  # the words a record's torch.compile fields hold, as each language's table writes them
    "es": {
        "bitwise": "idénticos bit a bit",
        "close": "próximos",
        "differ": "distintos",
        "None": "(ninguno)",
        "True": "sí",
        "False": "no",
        "n/a": "no aplica",
        "compile": "al compilar",
        "backward": "en backward()",
    },
    "en": {"None": "(none)", "True": "yes", "False": "no", "compile": "at compile", "backward": "at backward()"},
}


RESIDUAL_ADD = re.compile(r"residual add (\d+) of (\d+)")  # where anomaly mode points (phase25.claims)
RESIDUAL_ADD_WORDS = {"es": "suma residual {} de {}", "en": "residual add {} of {}"}


def record_word(value: str, language: str) -> str:
    """A record's word (bitwise, None, ...) as the page's language writes it; other text as it is."""
    if found := RESIDUAL_ADD.fullmatch(value):
        return RESIDUAL_ADD_WORDS[language].format(*found.groups())
    return MEASURED[language].get(value, value)


WHY = {  # why "n/a", from what phase25.history.reason keeps of a check's words
    "es": {
        "missing": "falta {}",
        "refused": "torch rechaza torch.compile en este Python: {}",
        "compiler": "no hay compilador de C++ para inductor",
    },
    "en": {
        "missing": "{} is missing",
        "refused": "torch refuses torch.compile on this Python: {}",
        "compiler": "no C++ compiler for inductor",
    },
}

RELEASES = {
    "es": {"none": "ninguna", "all": "las {} registradas", "measured": "medido en {}"},
    "en": {"none": "none", "all": "all {} recorded", "measured": "measured on {}"},
}

# what each draft finding compares, and the words for the "torch" finding's last column
DRAFT: dict[str, dict[Any, str]] = {
    "es": {
        "message": "la frase del error, con los tamaños del borrador y cualquier número de bloques",
        "producer": "el nombre que sigue a «output 0 of»",
        "node": "ese nombre de nodo, tal cual (sin sufijo), en el error o en el aviso del modo de anomalías",
        "versions": "las dos versiones, para cualquier número de bloques",
        "shape": "el tensor que nombra el mensaje, con los tamaños del borrador",
        "torch": "versiones de ese rango en las que la ejecución B lanza el error con la detección de "
        "anomalías activada",
        "holds": "sin detección de anomalías también lo lanza",
        "fails": "sin detección de anomalías no lo lanza",
        "n/a": "sin detección de anomalías: no aplica",
    },
    "en": {
        "message": "the error's sentence, at the draft's sizes and for any number of blocks",
        "producer": 'the name that follows "output 0 of"',
        "node": "that node name, exactly (no suffix), in the error or in anomaly mode's warning",
        "versions": "the two versions, for any number of blocks",
        "shape": "the tensor the message names, at the draft's sizes",
        "torch": "releases in that range where run B raises the error with anomaly detection on",
        "holds": "without anomaly detection it raises too",
        "fails": "without anomaly detection it does not raise",
        "n/a": "without anomaly detection: n/a",
    },
}

FIGURE: dict[str, dict[str, Any]] = {
    "es": {
        "title": "Qué cambió en cada versión de torch registrada",
        "xlabel": "versión de torch, de la más antigua a la más reciente",
        "measured": "medida en esa versión",
        "first": "valor en el primer registro",
        "change": {"message": "cambia: mensaje", "compile": "cambia: torch.compile", "claim": "cambia: afirmación"},
        "book": "versiones sobre las que se construye el libro",
        "nothing": "nada cambió",
    },
    "en": {
        "title": "What changed in each recorded torch release",
        "xlabel": "torch release, oldest to newest",
        "measured": "measured on that release",
        "first": "value on the first record",
        "change": {"message": "changes: message", "compile": "changes: torch.compile", "claim": "changes: claim"},
        "book": "releases the book is built on",
        "nothing": "nothing changed",
    },
}

COLORS = {"message": "tab:blue", "compile": "tab:purple", "claim": "tab:orange"}

SHORT = 44

QUOTE = 120


def code(text: object) -> str:
    return f"<code>{html.escape(str(text))}</code>"


def long_value(value: object, previous: object = None, width: int = SHORT) -> str:
    """A text value for a table cell: whole if short, else the part that differs from previous
    (phase25.history.excerpt) with the whole text in a <details> under it."""
    text = str(value)
    if len(text) <= width:
        return code(text)
    short = history.excerpt(text, None if previous is None else str(previous), width=width)
    return (
        f'<details class="book-value"><summary title="{html.escape(text)}">{code(short)}</summary>'
        f"{code(text)}</details>"
    )


def why(detail: str | None, language: str) -> str:
    """Why a release says "n/a", in the page's language."""
    words = WHY[language]
    if api := history.missing_api(detail):
        return words["missing"].format(code(api))
    if refused := re.fullmatch(r"torch refuses torch\.compile here \((.*)\)", detail or ""):
        return words["refused"].format(code(refused.group(1)))
    if (detail or "").startswith("no C++ compiler for inductor"):
        return words["compiler"]
    return code(detail)


def shown(thing: history.Thing, span: history.Span, language: str, previous: history.Span | None = None) -> str:
    """A span's value as a table cell writes it."""
    words = VALUES[language]
    if thing.kind == history.CLAIM or (thing.kind == history.COMPILE and thing.name is None):
        text = html.escape(words[span.value])
        if span.value == history.NOT_APPLICABLE:
            return f'{text} <span class="book-why">({why(span.detail, language)})</span>'
        if span.value == history.FAILS and span.detail:
            return f'<span title="{html.escape(span.detail)}">{text}</span>'
        return text
    if span.value is None:
        return html.escape(words[None])
    if record_word(str(span.value), language) != str(span.value) or str(span.value) in MEASURED[language]:
        return html.escape(record_word(str(span.value), language))
    return long_value(span.value, previous and previous.value)


ROW_WORDS = {  # each row's name in words: message parts, torch.compile fields, claims (their ids in a tooltip)
    "es": {
        "anomaly_off": "el mensaje, sin detección de anomalías",
        "anomaly_on": "el mensaje, con detección de anomalías",
        "tensor": "el tensor nombrado",
        "output_of": "lo que sigue a «output 0 of»",
        "version_now": "versión actual",
        "version_expected": "versión esperada",
        "hint_off": "la pista, sin detección de anomalías",
        "hint_on": "la pista, con detección de anomalías",
        "anomaly_node": "el nodo que nombra el aviso de anomalías",
        "anomaly_points_at": "la línea a la que apunta el aviso de anomalías",
        "a_gradients": "ejecución A: gradientes frente a los de A sin compilar",
        "a_raised_at": "ejecución A: dónde falla",
        "a_error_type": "ejecución A: tipo de error",
        "b_raised_at": "ejecución B: dónde falla",
        "b_error_type": "ejecución B: tipo de error",
        "b_wraps": "ejecución B: error envuelto",
        "b_message": "ejecución B: mensaje",
        "b_tensor": "ejecución B: tensor nombrado",
        "b_output_of": "ejecución B: lo que sigue a «output 0 of»",
        "b_version_now": "ejecución B: versión actual",
        "b_version_expected": "ejecución B: versión esperada",
        "b_hint": "ejecución B: pista",
        "forward-identical": "A y B: pasadas hacia delante idénticas bit a bit",
        "b-raises-without-anomaly": "B lanza el error sin detección de anomalías",
        "b-raises-with-anomaly": "B lanza el error con detección de anomalías",
        "anomaly-changes-only-the-hint": "la detección de anomalías solo cambia la pista",
        "anomaly-traceback-names-layernorm": "el aviso de anomalías nombra una LayerNorm",
        "message-names-the-activation": "el mensaje nombra la activación guardada",
        "bypass-hooks-silent": "baipás hooks: gradientes erróneos sin error",
        "bypass-ctx-silent": "baipás ctx: gradientes erróneos sin error",
        "bypass-data-silent": "baipás data: sin error, parámetros sin gradiente",
        "relu-inplace-safe": "relu_ tras el Linear: inofensivo",
        "exp-inplace-safe": "exp_ en las puntuaciones: inofensivo",
        "message-type-names-the-device": "el tipo del tensor nombra su dispositivo",
        "save-on-cpu-copies-only-from-the-gpu": "save_on_cpu (pin_memory=False) copia solo desde la GPU",
        "autocast-exp-inplace": "autocast bf16: exp_ cambia los gradientes solo en CUDA",
        "check-compares-versions-not-values": "la comprobación compara versiones, no valores",
        "data-write-not-counted": "una escritura mediante .data no incrementa la versión",
        "saved-leaf-without-grad-checked": "una hoja sin gradiente, guardada y luego escrita: salta el error",
        "fixes-give-run-a-gradients": "los arreglos 2 y 3 dan los gradientes de A",
        "allow-mutation-gives-run-a-gradients": "arreglo 3 (allow_mutation…) da los gradientes de A",
        "diagnose-api:sequence-nr": "API del diagnosticador: número de secuencia",
        "diagnose-api:saved-tensor-hooks-stack": "API del diagnosticador: pila de hooks de guardado",
        "diagnose-api:dispatch-mode": "API del diagnosticador: modo de despacho",
        "diagnose-api:dispatch-after-autograd": "API del diagnosticador: despacho tras autograd",
        "diagnose-api:disable-dispatch": "API del diagnosticador: desactivar el despacho",
        "diagnose-api:innermost-dispatch-mode": "API del diagnosticador: modo de despacho más interno",
        "diagnose-api:op-schema-writes": "API del diagnosticador: qué argumentos escribe una operación",
        "diagnose-api:raw-saved-slots": "API del diagnosticador: ranuras _raw_saved_*",
        "diagnose-api:custom-function-node": "API del diagnosticador: nodo de una Function propia",
        "diagnose-api:version-counter": "API del diagnosticador: contador de versiones",
        "diagnose-api:refused-before-dispatch": "API del diagnosticador: escrituras rechazadas antes del despacho",
        "diagnose-api:storage-address": "API del diagnosticador: dirección del almacenamiento",
        "diagnose-api:accumulate-grad-variable": "API del diagnosticador: la hoja de AccumulateGrad",
        "diagnose-api:inference-mode-views": "API del diagnosticador: vistas hechas en inference_mode",
        "diagnose-api:mutation-allowed-flag": "API del diagnosticador: allow_mutation_on_saved_tensors activo",
        "diagnose-works": "inplace_doctor funciona de principio a fin",
        "compile:a": "A compilada ({}): gradientes de A sin compilar",
        "compile:b": "B compilada ({}): el error de B sin compilar",
    },
    "en": {
        "anomaly_off": "the message, anomaly detection off",
        "anomaly_on": "the message, anomaly detection on",
        "tensor": "the tensor named",
        "output_of": 'what follows "output 0 of"',
        "version_now": "version now",
        "version_expected": "version expected",
        "hint_off": "the Hint, anomaly detection off",
        "hint_on": "the Hint, anomaly detection on",
        "anomaly_node": "the node anomaly mode's warning names",
        "anomaly_points_at": "the line anomaly mode's warning points at",
        "a_gradients": "run A: gradients against uncompiled A's",
        "a_raised_at": "run A: where it fails",
        "a_error_type": "run A: error type",
        "b_raised_at": "run B: where it fails",
        "b_error_type": "run B: error type",
        "b_wraps": "run B: wrapped error",
        "b_message": "run B: message",
        "b_tensor": "run B: tensor named",
        "b_output_of": 'run B: what follows "output 0 of"',
        "b_version_now": "run B: version now",
        "b_version_expected": "run B: version expected",
        "b_hint": "run B: Hint",
        "forward-identical": "A and B: forward passes bitwise equal",
        "b-raises-without-anomaly": "B raises, anomaly detection off",
        "b-raises-with-anomaly": "B raises, anomaly detection on",
        "anomaly-changes-only-the-hint": "anomaly detection changes only the Hint",
        "anomaly-traceback-names-layernorm": "anomaly mode's warning names a LayerNorm",
        "message-names-the-activation": "the message names the saved activation",
        "bypass-hooks-silent": "bypass hooks: wrong gradients, no error",
        "bypass-ctx-silent": "bypass ctx: wrong gradients, no error",
        "bypass-data-silent": "bypass data: no error, parameters without gradient",
        "relu-inplace-safe": "relu_ after the Linear: harmless",
        "exp-inplace-safe": "exp_ on the scores: harmless",
        "message-type-names-the-device": "the tensor's type names its device",
        "save-on-cpu-copies-only-from-the-gpu": "save_on_cpu (pin_memory=False) copies only from the GPU",
        "autocast-exp-inplace": "bf16 autocast: exp_ changes the gradients on CUDA only",
        "check-compares-versions-not-values": "the check compares versions, not values",
        "data-write-not-counted": "a write through .data is not counted",
        "saved-leaf-without-grad-checked": "a saved leaf without grad, written: it raises",
        "fixes-give-run-a-gradients": "fixes 2 and 3 give run A's gradients",
        "allow-mutation-gives-run-a-gradients": "fix 3 (allow_mutation…) gives run A's gradients",
        "diagnose-api:sequence-nr": "diagnoser API: sequence number",
        "diagnose-api:saved-tensor-hooks-stack": "diagnoser API: saved-tensor hooks stack",
        "diagnose-api:dispatch-mode": "diagnoser API: dispatch mode",
        "diagnose-api:dispatch-after-autograd": "diagnoser API: dispatch after autograd",
        "diagnose-api:disable-dispatch": "diagnoser API: disabling dispatch",
        "diagnose-api:innermost-dispatch-mode": "diagnoser API: innermost dispatch mode",
        "diagnose-api:op-schema-writes": "diagnoser API: which arguments an op writes",
        "diagnose-api:raw-saved-slots": "diagnoser API: _raw_saved_* slots",
        "diagnose-api:custom-function-node": "diagnoser API: a custom Function's node",
        "diagnose-api:version-counter": "diagnoser API: version counter",
        "diagnose-api:refused-before-dispatch": "diagnoser API: writes refused before dispatch",
        "diagnose-api:storage-address": "diagnoser API: storage address",
        "diagnose-api:accumulate-grad-variable": "diagnoser API: AccumulateGrad's leaf",
        "diagnose-api:inference-mode-views": "diagnoser API: views made under inference_mode",
        "diagnose-api:mutation-allowed-flag": "diagnoser API: allow_mutation_on_saved_tensors in force",
        "diagnose-works": "inplace_doctor works end to end",
        "compile:a": "A compiled ({}): uncompiled A's gradients",
        "compile:b": "B compiled ({}): uncompiled B's error",
    },
}


def row_words(name: str, language: str) -> str | None:
    """A row's name in the page's language: a message part, a torch.compile field, or a claim (a safe
    case by its title in examples/cases.toml); None if ROW_WORDS lacks it."""
    words = ROW_WORDS[language]
    backend, dot, field = name.partition(" · ")  # a torch.compile backend's field
    if dot:
        return f"{backend} · {words[field]}" if field in words else None
    kind, _, rest = name.partition(":")
    if kind in ("safe", "unsafe"):
        return _case_titles().get(rest, {}).get(language)
    if kind == "compile":
        run, _, backend = rest.partition("-")
        return words[f"compile:{run}"].format(backend)
    return words.get(name)


def row_name(thing: history.Thing, language: str) -> str | None:
    """A thing's row name in words: "the Hint, anomaly detection off", "eager · run B: Hint",
    "B raises, anomaly detection off" (a torch.compile backend's own row: the backend)."""
    if thing.kind == "compile":
        return thing.backend if thing.name is None else row_words(f"{thing.backend} · {thing.name}", language)
    return row_words(thing.name or "", language)


def named(row_id: str, words: str | None) -> str:
    """A row's name in words, with its id (hint_off, b_hint, a claim's) as a tooltip."""
    return f'<span title="{html.escape(row_id)}">{html.escape(words or row_id)}</span>'


def label(thing: history.Thing, language: str) -> str:
    return named(str(thing.name or thing.backend), row_name(thing, language))


def releases_text(releases: Sequence[str], recorded: list[str], language: str) -> str:
    """Releases in few words: "none", "all 17", or runs "1.13.1–2.12.1, 2.14.1" (consecutive among
    recorded: phase25.history.compress)."""
    words = RELEASES[language]
    if not releases:
        return words["none"]
    if list(releases) == list(recorded):
        return words["all"].format(len(recorded))
    return ", ".join(a if a == b else f"{a}–{b}" for a, b in history.compress(releases, recorded))


def scrolled(kind: str, heads: list[str], rows: list[str]) -> str:
    """A table of class book-<kind> that scrolls sideways: a row of heads (HTML), then rows."""
    head = "".join(f"<th>{h}</th>" for h in heads)
    return (
        f'<div class="book-compat-scroll"><table class="table book-{kind}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def history_table(changed: list[history.History], recorded: list[str], language: str) -> str:
    """One row per thing that changed: its first recorded value, then each release where it changed."""
    words, groups = HEADS[language], GROUPS[language]
    body, group = [], None
    for h in changed:
        if h.thing.kind != group:
            group = h.thing.kind
            body.append(f'<tr class="book-history-group"><th colspan="3">{html.escape(groups[group])}</th></tr>')
        release = f'<div class="book-history-release">torch {html.escape(h.first.start)}</div>'
        first = f"{shown(h.thing, h.first, language)}{release}"
        steps = "".join(
            f'<div class="book-history-change"><span class="book-history-release">torch {html.escape(s.start)}</span>'
            f" → {shown(h.thing, s, language, previous)}</div>"
            for previous, s in itertools.pairwise(h.spans)
        )
        body.append(f"<tr><th>{label(h.thing, language)}</th><td>{first}</td><td>{steps}</td></tr>")
    return scrolled("history", [words["what"], words["first"], words["changes"]], body)


def unchanged_list(unchanged: list[history.History], recorded: list[str], language: str) -> str:
    """The things that never changed, grouped by kind (claims also by value): name = value."""
    groups, blocks = GROUPS[language], []
    for kind in (history.MESSAGE, history.COMPILE, history.CLAIM):
        if not (mine := [h for h in unchanged if h.thing.kind == kind]):
            continue
        items = []
        for h in mine:
            measured = RELEASES[language]["measured"].format(releases_text(h.measured, recorded, language))
            where = f' <span class="book-why">({measured})</span>' if list(h.measured) != list(recorded) else ""
            items.append(f"<li>{label(h.thing, language)}: {shown(h.thing, h.first, language)}{where}</li>")
        blocks.append(
            f'<p><strong>{html.escape(groups[kind])}</strong></p><ul class="book-unchanged">{"".join(items)}</ul>'
        )
    return "".join(blocks)


def draft_table(found: list[history.Finding], recorded: list[str], language: str) -> str:
    """What the course's first draft quoted about the error, and which records print it."""
    words, draft = HEADS[language], DRAFT[language]
    rows = []
    for finding in found:
        instead = ""
        for s in finding.instead:
            value = "—" if s.value is None else long_value(s.value, width=QUOTE)
            value = html.escape(draft[s.value]) if finding.key == "torch" else value  # its words, not the text
            where = releases_text(s.releases, recorded, language)
            instead += f'<div>{value} <span class="book-history-release">({where})</span></div>'
        rows.append(
            f"<tr><th>{long_value(finding.quote, width=QUOTE)}"
            f'<div class="book-why">{html.escape(draft[finding.key])}</div></th>'
            f"<td>{releases_text(finding.printed_by, recorded, language)}</td>"
            f"<td>{instead}</td></tr>"
        )
    return scrolled("history", [words["quote"], words["printed"], words["instead"]], rows)


def timeline(changed: list[history.History], recorded: list[str], book: list[str], language: str) -> "Figure":
    """The figure: releases across, one row per thing that changed; a hollow circle at its first
    recorded value, a filled diamond at each release where it changed, a band over the releases
    the book is built on."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.artist import Artist
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    words = FIGURE[language]
    x = {release: i for i, release in enumerate(recorded)}
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH, 2.6 + 0.42 * max(len(changed), 1)), layout="constrained")
    for a, b in history.compress(book, recorded):
        ax.axvspan(x[a] - 0.5, x[b] + 0.5, color="tab:green", alpha=0.12, lw=0)
    # one collection per kind of mark (a few artists, not hundreds: drawing stays fast)
    measured = [(x[r], row) for row, h in enumerate(changed) for r in h.measured]
    spans = [[(x[h.measured[0]], row), (x[h.measured[-1]], row)] for row, h in enumerate(changed) if h.measured]
    ax.add_collection(LineCollection(spans, colors="0.8", linewidths=1, zorder=1))
    if measured:
        xs, ys = zip(*measured, strict=True)
        ax.scatter(xs, ys, s=8, color="0.6", zorder=2)
        firsts = [x[h.first.start] for h in changed]
        ax.scatter(firsts, range(len(changed)), s=40, facecolors="white", edgecolors="0.3", zorder=3)
    for kind in COLORS:
        marks = [(x[s.start], row) for row, h in enumerate(changed) if h.thing.kind == kind for s in h.changes]
        if marks:
            xs, ys = zip(*marks, strict=True)
            ax.scatter(xs, ys, s=55, marker="D", color=COLORS[kind], edgecolors="black", linewidths=0.5, zorder=4)
    if not changed:
        ax.text(0.5, 0.5, words["nothing"], transform=ax.transAxes, ha="center", va="center")
    names = [
        f"torch.compile {h.thing.backend}"
        if h.thing.kind == "compile" and h.thing.name is None
        else row_name(h.thing, language)
        for h in changed
    ]
    for row, name in enumerate(names):  # each row's name above its line: the full width is the plot's
        ax.text(-0.45, row - 0.3, str(name), fontsize=8, va="bottom", ha="left")
    ax.set_yticks([])
    ax.set_ylim(len(changed) - 0.5 if changed else 0.5, -0.9)
    ax.set_xticks(range(len(recorded)), recorded, rotation=90, fontsize=8)
    ax.set_xlim(-0.5, len(recorded) - 0.5)
    ax.set_xlabel(words["xlabel"], fontsize=9)
    ax.set_title(words["title"], fontsize=10)
    ax.grid(axis="x", color="0.92")
    kinds = [k for k in COLORS if any(h.thing.kind == k for h in changed)]
    handles: list[Artist] = [
        Line2D([], [], ls="", marker="o", ms=4, color="0.6", label=words["measured"]),
        Line2D([], [], ls="", marker="o", ms=7, mfc="white", mec="0.3", label=words["first"]),
    ]
    handles += [
        Line2D([], [], ls="", marker="D", ms=7, color=COLORS[k], mec="black", label=words["change"][k]) for k in kinds
    ]
    handles.append(Patch(color="tab:green", alpha=0.12, label=words["book"]))
    fig.legend(handles=handles, loc="outside lower center", ncols=1, fontsize=8, frameon=False)
    return fig


def table(language: str, kind: str, releases: list[str], live_release: str, rows: list[tuple[str, list[Any]]]) -> str:
    """rows: [(row name, [value per release])] -> HTML; a value that differs from the previous
    release's is marked (class book-drift), long ones shortened to where they differ."""
    words = HEADS[language]
    built = f' <span title="{html.escape(words["built"])}">⚙</span>'
    head = [f"torch {html.escape(r)}{built if r == live_release else ''}" for r in releases]
    body = []
    for name, values in rows:
        cells = []
        for i, value in enumerate(values):
            changed = i > 0 and value != values[i - 1]
            if value is None:
                text = "—"
            elif len(str(value)) <= SHORT:
                text = html.escape(record_word(str(value), language))
            elif i > 0 and not changed:  # a long value is written once, then "same" until it changes
                text = f'<span class="book-same" title="{html.escape(str(value))}">{SAME[language]}</span>'
            else:
                text = long_value(value, values[i - 1] if changed else None)
            cells.append(f"<td{' class=book-drift' if changed else ''}>{text}</td>")
        body.append(f"<tr><th>{named(name, row_words(name, language))}</th>{''.join(cells)}</tr>")
    return scrolled("compat", [html.escape(words[kind]), *head], body)


def verdict(found: dict[str, Any] | None, language: str) -> str | None:
    """A record's outcome of one claim, as the claims table writes it."""
    if found is None:
        return None
    if found.get("seen", "").startswith(claims.NOT_APPLICABLE):
        return NOT_APPLICABLE[language]
    return "✓" if found["holds"] else "✗"


def compile_value(section: dict[str, Any] | None, field: str) -> str | None:
    """A record's compile section, one field: "n/a" where the backend cannot run, None if not measured."""
    if section is None:
        return None
    if "not_applicable" in section:
        return "n/a"
    return str(section.get(field)) if field in section else None
