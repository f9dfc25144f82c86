"""Run one page's code cells as a plain Python process (the benchmark's floor).

    python bench/run_cells.py CELLS.json     # [{"source": ..., "tags": [...]}, ...]

Cells run in order in one namespace, as in the book's kernel. A cell tagged raises-exception may
raise (the next cell's expect_raised guard checks what it raised); any other error fails.
"""

import json
import sys

import book


def main(path):
    cells = json.loads(open(path, encoding="utf-8").read())
    scope = {"__name__": "__main__"}
    for number, cell in enumerate(cells):
        try:
            exec(compile(cell["source"], f"<cell {number}>", "exec"), scope)
        except Exception as error:
            if "raises-exception" not in cell["tags"]:
                raise
            book.remember_error(error)
        else:
            book.remember_error(None)


if __name__ == "__main__":
    main(sys.argv[1])
