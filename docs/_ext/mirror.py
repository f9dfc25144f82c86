"""The es/en trees must mirror each other: same page names, same labels.

Used by the Sphinx extension (the build fails on a difference) and by the tests.
"""

import re
from pathlib import Path

PAGE_SUFFIXES = (".md", ".ipynb")
SKIP_DIRS = {"_build", ".ipynb_checkpoints", "__pycache__"}
LABEL = re.compile(r"^\(([^()\s]+)\)=\s*$", re.MULTILINE)  # MyST target: (label)=
NAME_OPTION = re.compile(r"^\s*:name:\s*(\S+)\s*$", re.MULTILINE)  # directive :name: option


def page_sources(tree):
    tree = Path(tree)
    return {p.relative_to(tree).with_suffix("").as_posix(): p
            for p in sorted(tree.rglob("*"))
            if p.suffix in PAGE_SUFFIXES and not SKIP_DIRS.intersection(p.relative_to(tree).parts)}


def labels(tree):
    """label -> page name, for every explicit label in the tree's page sources."""
    found = {}
    for page, path in page_sources(tree).items():
        text = path.read_text(encoding="utf-8")
        for label in LABEL.findall(text) + NAME_OPTION.findall(text):
            found[label] = page
    return found


def mirror_problems(docs_dir, languages):
    """Human-readable differences between the language trees (empty when they mirror)."""
    docs_dir = Path(docs_dir)
    languages = list(languages)
    pages = {lang: set(page_sources(docs_dir / lang)) for lang in languages}
    found = {lang: labels(docs_dir / lang) for lang in languages}
    problems = []
    for lang in languages:
        for other in languages:
            if other == lang:
                continue
            for page in sorted(pages[lang] - pages[other]):
                problems.append(f"page {lang}/{page} has no counterpart {other}/{page}")
            for label in sorted(set(found[lang]) - set(found[other])):
                problems.append(f"label {label!r} ({lang}/{found[lang][label]}) is missing in {other}")
            for label in sorted(set(found[lang]) & set(found[other])):
                if found[lang][label] != found[other][label]:
                    problems.append(f"label {label!r} is on {lang}/{found[lang][label]} "
                                    f"but on {other}/{found[other][label]}")
    return sorted(set(problems))
