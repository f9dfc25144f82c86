# en: a new book with two slips: a misspelt label, and an example that no
# es: un libro nuevo con dos descuidos: una etiqueta mal escrita, y un ejemplo
# en: longer raises; then what check and run say about them
# es: que ya no lanza su error; después, lo que dicen de ellos check y run
import subprocess
import sys
import tempfile
from pathlib import Path

book = Path(tempfile.mkdtemp()) / "phase-12"
execbook = [sys.executable, "-m", "execbook"]
new_book = ["new-book", str(book), "--languages", "es,en"]
subprocess.run([*execbook, *new_book], check=True, capture_output=True)
page = book / "docs" / "en" / "first-page.md"
page.write_text(page.read_text().replace("book-glossary", "book-glosary"))
example = book / "examples" / "first_page.py"
example.write_text(example.read_text().replace("numbers[3]", "numbers[2]"))
for command in (["check"], ["run", "first_page"]):
    line = [*execbook, *command]
    done = subprocess.run(line, cwd=book, capture_output=True, text=True)
    print(f"$ python -m execbook {' '.join(command)}  # exit {done.returncode}")
    # en: the problems (check's last line, on stderr, says how long it took)
    # es: los problemas (la última línea de check, en stderr, dice cuánto tardó)
    print(done.stdout if command == ["check"] else done.stderr)

# %% hidden checks: what the page says of the two failures
import shutil

checked = subprocess.run([*execbook, "check"], cwd=book, capture_output=True, text=True)
assert checked.returncode == 1 and "did you mean `book-glossary`?" in checked.stdout, "check offers the closest label"
assert checked.stdout.startswith("docs/en/first-page.md:"), "the page says check names the file and line"
ran = subprocess.run([*execbook, "run", "first_page"], cwd=book, capture_output=True, text=True)
assert ran.returncode == 1 and "but it completed without raising" in ran.stderr, "run says what the entry expected"
shutil.rmtree(book.parent)
