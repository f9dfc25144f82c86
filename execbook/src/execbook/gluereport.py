"""What a change did: the glued values that moved since the last build (docs/_build/glue-values.json),
old → new, per language, in the console and docs/_build/glue-changes.txt; a figure or a table, whole."""

import ast
import contextlib
import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any

from . import config
from .tracebacks import excerpt

TAGS = re.compile(r"<[^>]+>")
SHOWN = 70  # characters of a value the list shows


def scrapbook(output: Any) -> dict[str, Any]:
    """What MyST-NB's glue notes on an output: its key ("name") and the prefix of its MIME types."""
    return dict(output.get("metadata", {}).get("scrapbook", {}))


def mimes(output: Any) -> dict[str, Any]:
    """An output's data by MIME type, a glued value's too (stored under a prefix)."""
    prefix = scrapbook(output).get("mime_prefix", "")
    return {mime.removeprefix(prefix): value for mime, value in output.get("data", {}).items()}


def glued(notebook: Any) -> dict[str, str]:
    """key -> the glued value as text (a figure: its digest) of one executed notebook."""
    found = {}
    for output in (o for cell in notebook.cells for o in cell.get("outputs", [])):
        if not (key := scrapbook(output).get("name")):
            continue
        data = mimes(output)
        image = next((v for k, v in data.items() if k.startswith("image/")), None)
        if image is not None:
            found[key] = "figure " + hashlib.sha256(str(image).encode()).hexdigest()[:12]
        elif "text/html" in data:
            markup = "".join(data["text/html"])
            text = " ".join(html.unescape(TAGS.sub(" ", markup)).split())
            found[key] = "table " + hashlib.sha256(markup.encode()).hexdigest()[:12] if "<table" in markup else text
        else:
            text = "".join(data.get("text/plain", ""))
            with contextlib.suppress(ValueError, SyntaxError):  # a glued str shows as its repr
                value = ast.literal_eval(text)
                text = value if isinstance(value, str) else text
            found[key] = " ".join(text.split())
    return found


def _short(value: str, other: str | None = None) -> str:
    """value as the list shows it: a figure or a table by its kind; text, the part that differs from other."""
    return value.split(" ")[0] if value.startswith(("figure ", "table ")) else excerpt(value, other, width=SHOWN)


def compare(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> list[str]:
    """One line per glued value that changed, appeared or went, grouped by language."""
    lines: dict[str, list[str]] = {}
    for page in sorted(set(old) | set(new)):
        before, after = old.get(page, {}), new.get(page, {})
        for key in sorted(set(before) | set(after)):
            if before.get(key) == after.get(key):
                continue
            if key not in before:
                change = f"new: {_short(after[key])}"
            elif key not in after:
                change = f"gone (was {_short(before[key])})"
            elif before[key].startswith(("figure ", "table ")):
                change = f"the {before[key].split(' ')[0]} changed"
            else:
                change = f"{_short(before[key], after[key])} → {_short(after[key], before[key])}"
            language = key.rsplit("_", 1)[-1]  # a glued key per language ends in its code
            language = language if language in config.LANGUAGES else "all"
            lines.setdefault(language, []).append(f"  {page} · {key}: {change}")
    out = []
    for language in [*config.LANGUAGES, "all"]:
        if language in lines:
            out.append(f"{config.LANGUAGES.get(language, 'both languages')} ({language}):")
            out += lines[language]
    return out


def record(values: dict[str, dict[str, str]], values_file: Path, changes_file: Path) -> list[str]:
    """Save this build's glued values and write the changes file: the lines of what changed since the last."""
    old = json.loads(values_file.read_text("utf-8")) if values_file.is_file() else None
    values_file.write_text(json.dumps(values, indent=1, sort_keys=True, ensure_ascii=False) + "\n", "utf-8")
    lines = [] if old is None else compare(old, values)
    head = "the first build: nothing to compare" if old is None else "no glued value changed since the last build"
    head = "glued values that changed since the last build (old → new):" if lines else head
    changes_file.write_text("\n".join([head, *lines]) + "\n", "utf-8")
    return lines
