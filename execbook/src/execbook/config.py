"""The book's settings, its [tool.book] table, read once into `Settings` (a fault named at its line:
SettingError; `schema()`, its JSON Schema). The book is the nearest folder up with one (or --root).
`config.LANGUAGES` (a setting) and `config.DOCS` (a place, PLACES) are read when first asked for:
importing needs no book. Only the standard library, for a bare Python (the deploy workflow):

    python3 execbook/src/execbook/config.py notebooks-branch
"""

import dataclasses
import difflib
import json
import os
import pkgutil
import re
import sys
import tomllib
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from functools import cache
from pathlib import Path
from typing import Any, cast, get_args, get_origin, get_type_hints

ROOT_ENV, STORE_ENV = "BOOK_ROOT", "BOOK_STORE"  # what the processes it starts inherit: --root, the store
SOURCES = ("pyproject.toml",)  # the file this module reads (execbook.deps counts it)


class NoBook(LookupError):
    def __init__(self, searched: Path) -> None:
        super().__init__(
            f"no book in {searched} or above it (a pyproject.toml with a [tool.book] table): "
            "run it in the book's folder, or pass --root DIR"
        )
        self.searched = searched


class SettingError(ValueError):
    """[tool.book] holds an unknown key or a value of the wrong type: a line for each, at its line."""


def setting(description: str, default: Any = MISSING) -> Any:
    """A field of a settings table: its description (the schema's), its default (none: required)."""
    factory: Any = type(default) if isinstance(default, dict | list) else MISSING
    default = MISSING if factory is not MISSING else default
    return field(default=default, default_factory=factory, metadata={"help": description})


@dataclass(frozen=True)
class Hooks:
    """What the engine reaches of the book's own code, by name ("module:function", imported when first called)."""

    precompute: str = setting("precompute(workers): computes what several pages share, before any page runs", "")
    check_entry: str = setting("check_entry(name, entry) -> problem or None: judges a manifest entry's own keys", "")
    judge: str = setting("judge(case, outcome) -> outcome: refines the engine's verdict on one run", "")
    scaffold: str = setting("template() -> dict: what new-page writes (the engine's new_page template)", "")
    report: str = setting("report() -> lines the build prints after a build that executed pages", "")


@dataclass(frozen=True)
class Intersphinx:
    """Another book, which {ref}`name:label` and {doc}`name:page` reach ({language}: each language's)."""

    url: str = setting("its site's address for a language, e.g. https://example.org/{language}/")
    inventory: str = setting("its objects.inv, a path from this book's folder: the build and check read it", "")


@dataclass(frozen=True)
class Settings:
    """The [tool.book] table of the book's pyproject.toml (a field's key: its name with - for _)."""

    languages: dict[str, str] = setting("language code -> its name, in build order")
    titles: dict[str, str] = setting("language -> the book's title")
    site_url: str = setting("where the site is published: the folder holding the root page and each language's")
    repository: str = setting("the repository the pages link to, https://github.com/<owner>/<name> (Colab's)")
    source_branch: str = setting("the branch the site is built from (each page links to its source there)", "main")
    notebooks_branch: str = setting("the branch where the workflow publishes the notebooks Colab opens", "notebooks")
    cell_timeout: int = setting("seconds a cell may run before its page fails", 600)
    course_url: str = setting("the address of the course's other phases ({phase}`8`; {language}: each's)", "")
    course_link: dict[str, str] = setting('language -> the words of a link to another phase ("phase %s")', {})
    authors: dict[str, str] = setting("language -> the pages' author", {})
    toctree_tail: list[str] = setting("pages that stay last in the index (new-page writes before them)", [])
    project_module: str = setting("the module whose import says the project is installed (default: its first)", "")
    colab_install: list[str] = setting("distributions a Colab notebook installs too, at the project's requirement", [])
    fingerprinted: list[str] = setting("distributions whose installed release is part of every page's fingerprint", [])
    versions: list[str] = setting("distributions whose installed version the status page names ({{ numpy }})", [])
    native_sources: list[str] = setting('folders of compiled code a message names by absolute path ("torch/csrc")', [])
    words: dict[str, dict[str, str]] = setting("language -> engine words it changes (keys: sphinxext/words.toml)", {})
    environment: dict[str, str] = setting("variables the build sets for its pages ({store}: its result store)", {})
    hooks: Hooks = setting("the book's own code the engine calls, by name", Hooks())
    intersphinx: dict[str, Intersphinx] = setting("name -> another book the pages link into", {})

    def __post_init__(self) -> None:
        object.__setattr__(self, "site_url", self.site_url.rstrip("/") + "/")
        object.__setattr__(self, "repository", self.repository.rstrip("/"))


def _key(name: str) -> str:
    return name.replace("_", "-")


TYPES = {str: ("string", "a string"), int: ("integer", "an integer"), bool: ("boolean", "true or false")}
TYPES |= {list: ("array", "an array"), dict: ("object", "a table")}


def _schema(kind: Any, description: str = "", default: Any = MISSING) -> dict[str, Any]:
    origin, args = get_origin(kind) or kind, get_args(kind)
    found: dict[str, Any] = {"type": TYPES[dict if is_dataclass(kind) else origin][0]}
    if default is not MISSING:  # as TOML writes it (Hooks(): a table of empty strings)
        found["default"] = json.loads(json.dumps(default, default=table))
    if is_dataclass(kind):
        hints, every = get_type_hints(kind), fields(kind)
        found["properties"] = {_key(f.name): _schema(hints[f.name], f.metadata["help"], _default(f)) for f in every}
        found["required"] = [_key(f.name) for f in every if _default(f) is MISSING]
        found["additionalProperties"] = False
    elif origin is dict:
        found["additionalProperties"] = _schema(args[1])
    elif origin is list:
        found["items"] = _schema(args[0])
    return found | ({"description": description} if description else {})


def _default(f: "dataclasses.Field[Any]") -> Any:
    """A setting's default; MISSING: it has none, it is required."""
    return f.default if f.default_factory is MISSING else f.default_factory()


def table(value: Any) -> dict[str, Any]:
    """A settings dataclass as its TOML table."""
    return {_key(k): v for k, v in dataclasses.asdict(value).items()}


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of [tool.book]: each setting's type, default and description."""
    head = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "[tool.book]"}
    return head | _schema(Settings, (Settings.__doc__ or "").strip())


def _name(path: tuple[str, ...]) -> str:
    return " ".join(["[tool.book]", ".".join(path)]).strip()


def _read(kind: Any, value: Any, path: tuple[str, ...], faults: list[tuple[tuple[str, ...], str, str]]) -> Any:
    """value as kind (a dataclass from its table), each fault noted in faults as (path, what, to do)."""
    origin, args = get_origin(kind) or kind, get_args(kind)
    expected = dict if is_dataclass(kind) else origin
    if not isinstance(value, expected) or isinstance(value, bool) is not (expected is bool):
        found = TYPES.get(type(value), ("", type(value).__name__))[1]
        faults.append((path, f"{_name(path)} is {found}, not {TYPES[expected][1]}", f"write {TYPES[expected][1]}"))
        return None
    if is_dataclass(kind):
        known = {_key(f.name): f for f in fields(kind)}
        for key in sorted(value.keys() - known):
            close = difflib.get_close_matches(key, known, n=1)
            todo = f"did you mean {close[0]}?" if close else "remove it (python -m execbook schema lists the settings)"
            faults.append(((*path, key), f"{_name((*path, key))} is no setting", todo))
        for key in known.keys() - value.keys():
            if _default(known[key]) is MISSING:
                faults.append((path, f"{_name(path)} has no {key}", f"add it: {known[key].metadata['help']}"))
        hints = get_type_hints(kind)
        given = {f.name: _read(hints[f.name], value[k], (*path, k), faults) for k, f in known.items() if k in value}
        return None if faults else cast(Any, kind)(**given)
    if origin is dict:
        return {k: _read(args[1], v, (*path, k), faults) for k, v in value.items()}
    return [_read(args[0], v, path, faults) for v in value] if origin is list else value


def _line(text: str, path: tuple[str, ...]) -> int:
    """The line of pyproject.toml's text that sets [tool.book]'s path: its key's, else its nearest table's."""
    wanted, current, best = ("tool", "book", *path), cast(tuple[str, ...], ()), (0, 1)
    for number, line in enumerate(text.splitlines(), 1):
        if header := re.match(r"\s*\[+([^\]]+)\]+", line):
            current = where = tuple(part.strip().strip("\"'") for part in header[1].split("."))
        elif key := re.match(r"\s*([\w.\"' -]+?)\s*=", line):
            where = (*current, *(part.strip().strip("\"'") for part in key[1].split(".")))
        else:
            continue
        if wanted[: len(where)] == where and len(where) > best[0]:
            best = (len(where), number)
    return best[1]


def read(root: Path) -> Settings:
    """The [tool.book] table of root's pyproject.toml, checked; or SettingError naming each fault at its line."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    faults: list[tuple[tuple[str, ...], str, str]] = []
    found = _read(Settings, tomllib.loads(text)["tool"]["book"], (), faults)
    if faults:
        lines = [f"pyproject.toml:{_line(text, path)}: {what} → {todo}" for path, what, todo in faults]
        raise SettingError("\n".join(lines))
    return found


def _book_root() -> Path:
    """--root's folder, else the nearest from here up whose pyproject.toml has a [tool.book] table."""
    if os.environ.get(ROOT_ENV):
        return Path(os.environ[ROOT_ENV]).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        project = folder / "pyproject.toml"
        if project.is_file() and "book" in tomllib.loads(project.read_text(encoding="utf-8")).get("tool", {}):
            return folder
    raise NoBook(here)


@cache
def settings() -> Settings:
    return read(_book_root())


# Where things live in the book, from its folder
PLACES = {"DOCS": "docs", "EXAMPLES": "examples", "MANIFEST": "examples/cases.toml", "BUILD": "docs/_build"}
PLACES |= {name: f"docs/_build/{place}" for name, place in (("SITE", "html"), ("STORE", "store"), ("COLAB", "colab"))}
PLACES |= {"EXECUTION_CACHE": "docs/_build/.jupyter_cache", "EXECUTION_REPORT": "docs/_build/execution.json"}
PLACES |= {"GLUE_VALUES": "docs/_build/glue-values.json", "GLUE_CHANGES": "docs/_build/glue-changes.txt"}
PLACES |= {"SITES": "docs/_build/sites"}  # each build's site: docs/_build/html links to the last good one


DERIVED = "REPO PACKAGE_DIRS PACKAGES SUBPROJECTS PROJECT_MODULE DEPENDENCIES COLAB_INSTALL HOOKS".split()


@cache
def _derived() -> dict[str, Any]:
    """What the book's folder says beside its settings."""
    root, book = _book_root(), settings()
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    # its packages, name -> folder: top-level folders with an __init__.py, and <distribution>/src/<package>/
    dirs = {p.parent.name: p.parent for p in sorted([*root.glob("*/__init__.py"), *root.glob("*/src/*/__init__.py")])}
    wanted = [*project.get("dependencies", []), *sum(project.get("optional-dependencies", {}).values(), [])]
    return {name: root / place for name, place in PLACES.items()} | {
        "REPO": root,
        "PACKAGE_DIRS": dirs,
        "PACKAGES": tuple(sorted(dirs)),
        # its top-level folders that are distributions of their own, which a reader installs beside it
        "SUBPROJECTS": tuple(sorted(p.parent.name for p in root.glob("*/pyproject.toml"))),
        "PROJECT_MODULE": book.project_module or min(dirs, default=""),
        "DEPENDENCIES": project.get("dependencies", []),
        "COLAB_INSTALL": [
            next((r for r in wanted if re.match(rf"{re.escape(d)}\b", r)), d) for d in book.colab_install
        ],
        "HOOKS": {name: target for name, target in table(book.hooks).items() if target},
    }


def __getattr__(name: str) -> Any:
    """A setting (config.CELL_TIMEOUT: `cell-timeout`) or a place of the book, read when first asked for."""
    if name in PLACES or name in DERIVED:
        return _derived()[name]
    if name.isupper() and name.lower() in Settings.__dataclass_fields__:
        return getattr(settings(), name.lower())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def hook(name: str) -> Callable[..., Any] | None:
    """The book's callable named by [tool.book.hooks] `name`, imported once; None if none is named."""
    hooks: dict[str, str] = _derived()["HOOKS"]
    return pkgutil.resolve_name(hooks[name]) if name in hooks else None  # "module:function"


def environment(store: Path) -> dict[str, str]:
    """The variables a build with this result store sets for its pages and the processes they start."""
    given = {name: value.replace("{store}", str(store)) for name, value in settings().environment.items()}
    return {**given, STORE_ENV: str(store)}


if __name__ == "__main__":
    if sys.argv[1:] != ["notebooks-branch"]:
        sys.exit("usage: python3 execbook/src/execbook/config.py notebooks-branch")
    print(settings().notebooks_branch)
