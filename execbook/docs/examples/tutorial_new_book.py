# en: new-book phase-12 --languages es,en, in a scratch folder
# es: new-book phase-12 --languages es,en, en una carpeta aparte
import subprocess
import sys
import tempfile
from pathlib import Path

book = Path(tempfile.mkdtemp()) / "phase-12"
new_book = ["new-book", str(book), "--languages", "es,en"]
execbook = [sys.executable, "-m", "execbook"]
subprocess.run([*execbook, *new_book], check=True, capture_output=True)
# en: the files it wrote, one a line
# es: los archivos que escribió, uno por línea
for path in sorted(book.rglob("*")):
    if path.is_file():
        print(path.relative_to(book).as_posix())

# %% hidden checks: the new book passes `check` as written; the page quotes how many files it has
import shutil

from execbook import glue_number

checked = subprocess.run([*execbook, "check"], cwd=book, capture_output=True, text=True)
assert checked.returncode == 0, "the tutorial says a new book passes the check: " + checked.stdout + checked.stderr
written = [p for p in book.rglob("*") if p.is_file()]
glue_number("new_book_files", len(written))
assert len(written) <= 12, "the page says these few files are the whole book"
assert (book / "docs" / "es" / "first-page.md").is_file(), "the tutorial says new-book writes a first page"
shutil.rmtree(book.parent)
