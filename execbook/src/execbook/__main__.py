"""python -m execbook COMMAND: the author's commands (AUTHORING.md).

python -m execbook check              check the sources in seconds, executing nothing (every build runs it first)
python -m execbook build [--cold] [es|en]  build the book (nox -s docs); --cold: execute and compute everything again
python -m execbook run EXAMPLE        run one example as its page's cell and guard do, in seconds
python -m execbook page PAGE          run one page's cells in this process (PAGE: a docname or a path)
python -m execbook new-page SLUG      write a new page in every language, with one example that raises
python -m execbook new-book DIR --languages fr,en   write a minimal book in DIR that builds as written

The book is the current directory's (or the nearest above it with a [tool.book] table in its
pyproject.toml); --root DIR, before the command, names another: python -m execbook --root DIR build
"""

import os
import sys

from .config import NoBook


def main(argv: list[str]) -> int:
    if argv[:1] == ["--root"] and len(argv) > 1:
        from pathlib import Path

        os.environ["BOOK_ROOT"] = str(Path(argv[1]).resolve())  # execbook.config.ROOT_ENV; the pages inherit it
        argv = argv[2:]
    commands = {
        "check": "lint",
        "build": "build",
        "run": "author",
        "page": "author",
        "new-page": "scaffold",
        "new-book": "newbook",
    }
    if not argv or argv[0] not in commands:
        print(f"usage: python -m execbook [--root DIR] {{{','.join(commands)}}} ...", file=sys.stderr)
        return 2
    from importlib import import_module

    try:
        module = import_module(f"execbook.{commands[argv[0]]}")
    except ModuleNotFoundError as missing:  # this Python lacks the book's packages
        print(
            f"execbook: error: {missing} in {sys.executable}: run it with the docs environment, "
            f".nox/docs/bin/python -m execbook {' '.join(argv)} (nox -s docs creates it)",
            file=sys.stderr,
        )
        return 2
    alone = argv[0] in ("build", "check", "new-book")  # the others: one module, two commands
    try:
        return module.main(argv[1:]) if alone else module.main(argv[0], argv[1:])
    except NoBook as missing:  # the book is found when first needed
        print(f"execbook: error: {missing}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
