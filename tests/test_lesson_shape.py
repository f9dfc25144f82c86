"""What issue 41 asked of the pages, read from the sources (no build): the break page keeps the fix
first and the small repro before the full run, its errata and the diagnoser's part of the ladder
live on their own pages, each idea is explained on one page and linked from the others, the ladder
says what anomaly mode costs, and the glossary's claims about torch hold on the installed torch.
(The visible length of the built pages is held by tests/test_site.py.)"""

import ast
import re

import pytest
import torch

from execbook.config import DOCS, LANGUAGES, REPO

BREAK = "breaks/25-inplace-autograd.md"


def page(language, name):
    return (DOCS / language / name).read_text(encoding="utf-8")


def section(text, label):
    """The source of one labelled section, up to the next label of the same or a higher level."""
    start = text.index(f"({label})=")
    heading = re.compile(r"^(#+) ", re.M).search(text, start)
    level = len(heading.group(1))
    after = re.compile(rf"^\([\w-]+\)=\n#{{1,{level}}} ", re.M).search(text, heading.end())
    return text[start : after.start() if after else len(text)]


def loads(text):
    return re.findall(r":load: \.\./\.\./\.\./examples/(\w+)\.py", text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_small_repro_comes_before_the_full_run_and_the_fix_follows_it(language):
    examples = loads(page(language, BREAK))
    assert examples[0] == "fix_iadd", "the eight-line h += 1 cell is the page's first example"
    text = page(language, BREAK)
    assert (
        text.index(":load: ../../../examples/fix_iadd.py")
        < text.index("(phase-25-fix)=")
        < text.index(":load: ../../../examples/symptom_forward.py")
    ), "the fix comes right after the small repro, before the mini-GPT's run"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_errata_and_the_diagnoser_live_on_pages_of_their_own(language):
    text = page(language, BREAK)
    assert "(phase-25-errata)=" not in text and "errata" not in loads(text)
    assert "(phase-25-errata)=" in page(language, "breaks/25-inplace-further.md")
    assert "errata" in loads(page(language, "breaks/25-inplace-further.md"))
    assert not {"ladder_3_scan", "ladder_3_diagnose"} & set(loads(text))
    diagnose = page(language, "breaks/25-diagnose-your-code.md")
    assert {"ladder_3_scan", "ladder_3_diagnose"} <= set(loads(section(diagnose, "phase-25-diagnose-minigpt")))
    assert "{ref}`phase-25-errata`" in text or "<phase-25-errata>`" in text, "the break page links the errata"
    assert "phase-25-diagnose-minigpt" in section(text, "phase-25-ladder-writes"), "step 3 links the diagnoser"


def printed_summaries():
    """The examples whose shown code prints minigpt.compare.summary_line ('29 parameters: ...')."""
    found = []
    for path in sorted((REPO / "examples").glob("*.py")):
        shown = path.read_text(encoding="utf-8").split("\n# %% hidden checks")[0]
        calls = [
            node
            for node in ast.walk(ast.parse(shown))
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "summary_line"
        ]
        if calls:
            found.append(path.stem)
    return found


def test_the_gradient_summary_line_is_printed_once_in_the_book():
    assert printed_summaries() == ["theory02_bypasses_gpt"]


# Each idea has one page that explains it; the others link there. Found by words that only an
# explanation uses: the three ways the mini-GPT's bypasses escape the check, side by side, and
# save_on_cpu's pin_memory.
EXPLAINED_ONCE = {
    "the bypasses": (("`.data`", "saved_tensors_hooks", "save_for_backward"), "theory/02-autograd-engine.md"),
    "save_on_cpu's copy": (("save_on_cpu", "pin_memory"), "breaks/25-inplace-further.md"),
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("idea", sorted(EXPLAINED_ONCE))
def test_each_idea_is_explained_on_one_page(language, idea):
    words, home = EXPLAINED_ONCE[idea]
    pages = sorted(p.relative_to(DOCS / language).as_posix() for p in (DOCS / language).rglob("*.md"))
    explaining = [name for name in pages if all(w in page(language, name) for w in words)]
    assert explaining == [home], f"{idea} is explained on {explaining}: explain it on {home}, link to it elsewhere"


@pytest.mark.parametrize("phrase", ["measured on a GPU, not by this build", "medido en una GPU, no en esta"])
def test_the_gpu_caveat_is_not_repeated(phrase):
    found = [
        p.name for language in LANGUAGES for p in (DOCS / language).rglob("*.md") if phrase in p.read_text("utf-8")
    ]
    assert len(found) <= 1, found


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_ladder_says_what_anomaly_mode_costs_and_why_layernorm_keeps_its_input(language):
    text = page(language, BREAK)
    assert f"{{glue:text}}`anomaly_cost_{language}`" in section(text, "phase-25-ladder-anomaly")
    assert "(x − μ) / σ" in section(text, "phase-25-mechanism"), (
        "LayerNorm's formula, where its saved input is explained"
    )
    assert 'glue_by_value("anomaly_cost"' in (REPO / "examples" / "ladder_2_anomaly.py").read_text("utf-8")


# The glossary's sentences about torch (review items M2 and U7), checked on the installed torch.


def test_not_every_method_ending_in_an_underscore_writes():
    t = torch.zeros(3)
    t.requires_grad_()
    assert t._version == 0, "requires_grad_() writes no data"
    t = torch.zeros(3)
    t.detach_()
    assert t._version == 0, "detach_() writes no data"
    t.add_(1)
    assert t._version == 1


def test_detach_and_data_share_memory_but_are_not_views():
    t = torch.zeros(3, requires_grad=True).clone()
    detached, data, view = t.detach(), t.data, t[1:]
    assert view._is_view() and not detached._is_view() and not data._is_view()
    detached.add_(1)
    assert t._version == 1, "detach() shares the counter"
    data.add_(1)
    assert t._version == 1, "t.data has a counter of its own"


# Sentences the review of 2026-12-05 found false, misleading or unclear: their telling words never
# come back (M1: "output 0 of" names the tensor's grad_fn, not the op that wrote it last; U2: "these
# three"; U4: "the recommended fix of the three" before any fix; U1: the same statement twice).
REVIEWED_AWAY = {
    "en": [
        "last wrote",
        "wrote it last",
        "wrote the tensor last",
        "checks these three",
        "fix of the three",
        "The first two are writes the counter does not see",
    ],
    "es": [
        "escribió por última vez",
        "escribió el tensor por última vez",
        "comprueba estas tres",
        "arreglo recomendado",
        "Los dos primeros son escrituras",
    ],
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_the_review_corrected_does_not_come_back(language):
    found = [
        f"docs/{language}/{p.relative_to(DOCS / language)}: {phrase!r}"
        for p in sorted((DOCS / language).rglob("*.md"))
        for phrase in REVIEWED_AWAY[language]
        if phrase in " ".join(p.read_text(encoding="utf-8").split())
    ]
    assert found == []


def test_out_of_place_has_its_spanish_gloss_as_in_place_does():
    glossary = page("es", "glossary.md")
    assert "«en el sitio»" in glossary and "«fuera del sitio»" in glossary
