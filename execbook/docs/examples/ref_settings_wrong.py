# en: a new book with a misspelt setting in pyproject.toml; what check says
# es: un libro con un ajuste mal escrito en pyproject.toml; lo que dice check
import subprocess
import sys
import tempfile
from pathlib import Path

book = Path(tempfile.mkdtemp()) / "phase-12"
execbook = [sys.executable, "-m", "execbook"]
new_book = ["new-book", str(book), "--languages", "es,en"]
subprocess.run([*execbook, *new_book], check=True, capture_output=True)
settings = book / "pyproject.toml"
settings.write_text(settings.read_text().replace("languages =", "langauges ="))
check = [*execbook, "check"]
done = subprocess.run(check, cwd=book, capture_output=True, text=True)
print(done.stderr.strip())
print("exit status", done.returncode)

# %% hidden checks: what the page says of it
import shutil

assert done.returncode == 2 and "did you mean languages?" in done.stderr, "check names the key at its line"
assert done.stderr.startswith("pyproject.toml:"), "the page says it names the line"
shutil.rmtree(book.parent)
