"""The version-counter RuntimeError, taken apart: its core is stable across releases, the rest drifts
("output 0 of ...", the Hint, node names), so each part is parsed on its own and a change is that part's."""

import re
from collections.abc import Iterable

CORE = "modified by an inplace operation"
PARTS = {
    "tensor": re.compile(r"(\[torch\.[\w.]+ \[[\d, ]*\]\])"),
    "output_of": re.compile(r"which is output \d+ of (\w+)"),
    "version_now": re.compile(r"is at version (\d+);"),
    "version_expected": re.compile(r"expected version (\d+) instead"),
    "hint": re.compile(r"Hint: (.*)\Z", re.S),
}
ANOMALY_NODE = re.compile(r"Error detected in (\w+)\.")


def parts(message: str) -> dict[str, str | None]:
    """part name -> text (None where the message no longer has that part)."""
    found = {name: pattern.search(message) for name, pattern in PARTS.items()}
    return {name: match.group(1).strip() if match else None for name, match in found.items()}


def before_hint(message: str) -> str:
    """The message without its closing Hint (the part that anomaly mode leaves alone)."""
    return message.split(" Hint: ")[0]


def anomaly_node(warning_texts: Iterable[str]) -> str | None:
    """The backward node named by anomaly mode's "Error detected in <Node>." warning, or None."""
    for text in warning_texts:
        if found := ANOMALY_NODE.search(text):
            return found.group(1)
    return None


def forward_frame(warning_texts: Iterable[str], filename: str) -> tuple[int, str] | None:
    """(line number, code) of the last frame in ``filename`` that the anomaly traceback shows, or None."""
    found: tuple[int, str] | None = None
    for text in warning_texts:
        lines = text.splitlines()
        for i, line in enumerate(lines[:-1]):
            frame = re.match(r'\s*File "([^"]+)", line (\d+)', line)
            if frame and frame.group(1).replace("\\", "/").endswith(filename):
                found = (int(frame.group(2)), lines[i + 1].strip())
    return found
