"""Every claim the prose relies on holds on the installed torch (phase25.claims), as the last build
evaluated it (its store, read back: each claim, torch.compile's inductor among them, runs once per
build), and a claim that breaks fails with the message the build shows: "claim X no longer holds on
torch Y"."""

import re
from pathlib import Path

import pytest
import torch

from phase25 import claims

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = {lang: DOCS / lang / "compatibility.md" for lang in ("es", "en")}
pytestmark = pytest.mark.usefixtures("as_the_build")  # the build's results, read back (conftest)


@pytest.mark.parametrize("name", list(claims.CLAIMS))
def test_claim_holds(name):
    outcome = claims.evaluate(name)
    assert outcome.holds, outcome.failure()


@pytest.fixture
def registered():
    """Register throwaway claims for one test, then remove them."""
    added = []

    def register(name, check):
        claims.claim(name, "a claim made up for a test")(check)
        added.append(name)

    yield register
    for name in added:
        del claims.CLAIMS[name]


def test_a_broken_claim_names_itself_and_the_release(registered):
    registered("made-up-broken", lambda: (False, "backward completed"))
    registered("made-up-fine", lambda: (True, "fine"))
    outcomes = claims.evaluate_all(["made-up-fine", "made-up-broken"])
    with pytest.raises(claims.ClaimBroken) as info:
        claims.require(outcomes)
    assert str(info.value) == (f"claim made-up-broken no longer holds on torch {torch.__version__}: backward completed")


def test_a_check_that_crashes_is_a_broken_claim(registered):
    registered("made-up-crash", lambda: 1 / 0)
    outcome = claims.evaluate("made-up-crash")
    assert not outcome.holds and "ZeroDivisionError" in outcome.seen


def test_require_passes_when_all_hold(registered):
    registered("made-up-fine", lambda: (True, "fine"))
    claims.require(claims.evaluate_all(["made-up-fine"]))


@pytest.mark.parametrize("lang", PAGES)
def test_every_claim_is_explained_on_the_compatibility_page(lang):
    """The page's prose lists each claim, in words and then by name (safe:/unsafe: cases as one entry
    each): a definition term "Words — `name`" or "Words — `name`, `other-name`"."""
    text = PAGES[lang].read_text(encoding="utf-8")
    explained = set(re.findall(r"^[^`\n]+ — `([^`]+)`(?:, `([^`]+)`)?\s*$", text, re.M))
    names = {n for pair in explained for n in pair if n}
    for name in claims.CLAIMS:
        family = name.split(":")[0] + ":..." if ":" in name else name
        assert family in names, f"claim {name} is not explained on {lang}/compatibility.md"
