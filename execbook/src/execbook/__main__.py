"""python -m execbook COMMAND: the author's commands (execbook.cli; python -m execbook --help lists them)."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
