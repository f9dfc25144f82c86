"""The author's commands: `execbook COMMAND` (or `python -m execbook COMMAND`); `execbook COMMAND --help`
says what each takes. The book is the current directory's, or the nearest above it with a [tool.book]
table in its pyproject.toml; `--root DIR`, before the command, names another."""

import argparse
import json
import os
import sys
from importlib import import_module
from pathlib import Path
from typing import NoReturn

from . import __version__, config

# command -> (its module, one line of help)
COMMANDS = {
    "check": ("lint", "check the sources in seconds, executing nothing (every build runs it first)"),
    "build": ("build", "build the book: check it, execute what changed, then Sphinx in each language"),
    "run": ("author", "run one example as its page's cell and guard do, in seconds"),
    "page": ("author", "run one page's cells in this process"),
    "new-page": ("scaffold", "write a new page in every language, with one example that raises"),
    "new-book": ("newbook", "write a minimal book in DIR that builds as written"),
    "schema": ("config", "print the JSON Schema of [tool.book] (for editors)"),
}


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not the usage too
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    """The command line: each command with its arguments and one line of help."""
    found = Parser(prog="execbook", description="Executable multilingual books: write, check and build their pages.")
    found.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    found.add_argument("--root", metavar="DIR", type=Path, help="the book's folder (default: found from here up)")
    commands = found.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add = {
        name: commands.add_parser(name, help=help, description=help).add_argument
        for name, (_, help) in COMMANDS.items()
    }
    add["build"]("--cold", action="store_true", help="execute every page and compute everything again")
    add["build"]("languages", nargs="*", metavar="LANGUAGE", help="only these (default: every language)")
    add["run"]("example", metavar="EXAMPLE", help="its name: examples/EXAMPLE.py")
    add["page"]("page", metavar="PAGE", help="a docname or a path")
    add["new-page"]("slug", metavar="SLUG", help="its path in each language's folder, e.g. breaks/26-my-break")
    add["new-book"]("dir", metavar="DIR")
    add["new-book"]("--languages", required=True, metavar="fr,en", help="its language codes, in build order")
    return found


def main(argv: list[str] | None = None) -> int:
    given = parser().parse_args(argv)
    if given.root:
        os.environ[config.ROOT_ENV] = str(given.root.resolve())  # the processes the command starts inherit it
    if given.command == "schema":
        print(json.dumps(config.schema(), indent=2, ensure_ascii=False))
        return 0
    try:
        module = import_module(f"execbook.{COMMANDS[given.command][0]}")
    except ModuleNotFoundError as missing:  # this Python lacks the book's packages
        todo = f"run it with the docs environment, .nox/docs/bin/python -m execbook {given.command}"
        print(f"execbook: error: {missing} in {sys.executable}: {todo} (nox -s docs creates it)", file=sys.stderr)
        return 2
    try:
        return int(module.main(given))  # its arguments as argparse read them
    except config.NoBook as missing:  # the book is found when first needed
        print(f"execbook: error: {missing}", file=sys.stderr)
    except config.SettingError as wrong:
        print(wrong, file=sys.stderr)
    return 2
