"""The lesson's torch releases, each fact declared once: the book's range ([project] dependencies),
the default release (constraints.txt), the recorded ones and the second one CI checks ([tool.phase25]).
Standard library only (and `packaging`, to compare releases), so that a bare Python runs it:

    python3 phase25/releases.py releases        # JSON list of the recorded releases (the workflow's matrix)
    python3 phase25/releases.py book-releases   # those inside the book's torch range
    python3 phase25/releases.py second-release  # the release CI checks beside the default
    python3 phase25/releases.py default-torch   # the release that installs by default
"""

import json
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]  # the lesson's repository (its copy, in a test's build)
RECORDS = REPO / "records"  # a behaviour record of each recorded release (torch-<release>.json)
_PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
_LESSON = _PYPROJECT.get("tool", {}).get("phase25", {})
RECORDED_RELEASES: list[str] = list(_LESSON.get("recorded-releases", []))
SECOND_RELEASE: str = _LESSON.get("second-release", "")
DEPENDENCIES: list[str] = list(_PYPROJECT["project"].get("dependencies", []))
TEST_REQUIREMENTS: list[str] = list(_PYPROJECT["project"].get("optional-dependencies", {}).get("test", []))
TORCH_REQUIREMENT: str = next((d for d in DEPENDENCIES if re.match(r"torch\b", d)), "torch")


def default_torch() -> str:
    """The release that installs by default: constraints.txt's pin (read here only: the pages never need it)."""
    pin = re.search(r"^torch==(\S+)", (REPO / "constraints.txt").read_text(encoding="utf-8"), re.M)
    return pin.group(1) if pin else ""


def release(version: str) -> str:
    """'2.13.0+cpu' -> '2.13.0' (the local build tag is not part of the release)."""
    return version.split("+")[0]


def release_key(name: str) -> tuple[int, ...]:
    """'2.13.0' -> (2, 13, 0), so that releases sort as numbers."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", release(name))[:3])
    return numbers + (0,) * (3 - len(numbers))


def supported(release_name: str) -> bool:
    """Is this release inside the torch range the book is built on (pyproject.toml)?"""
    from packaging.requirements import Requirement

    return Requirement(TORCH_REQUIREMENT).specifier.contains(release(release_name))


if __name__ == "__main__":
    answers = {
        "releases": lambda: json.dumps(RECORDED_RELEASES),
        "book-releases": lambda: json.dumps([r for r in RECORDED_RELEASES if supported(r)]),  # the others: a record
        "second-release": lambda: SECOND_RELEASE,
        "default-torch": default_torch,
    }
    if len(sys.argv) != 2 or sys.argv[1] not in answers:
        sys.exit(f"usage: python3 phase25/releases.py {{{','.join(answers)}}}")
    print(answers[sys.argv[1]]())
