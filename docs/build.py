"""Build the book: Spanish, then English (never both at once: they share the execution cache).

    python docs/build.py            # both languages into docs/_build/html/{es,en}
    python docs/build.py en         # one language
"""

import shutil
import subprocess
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
BUILD = DOCS / "_build"
LANGUAGES = ("es", "en")


def sphinx_command(language):
    return [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", "-q",
            "-d", str(BUILD / "doctrees" / language), str(DOCS / language), str(BUILD / "html" / language)]


def build(languages=LANGUAGES):
    timings = {}
    for language in languages:
        start = time.perf_counter()
        done = subprocess.run(sphinx_command(language))
        timings[language] = time.perf_counter() - start
        if done.returncode:
            sys.exit(f"docs: the {language} build failed (exit {done.returncode}); see the messages above")
    shutil.copyfile(DOCS / "root" / "index.html", BUILD / "html" / "index.html")
    for language, seconds in timings.items():
        print(f"docs: {language} built in {seconds:.1f} s -> {BUILD / 'html' / language / 'index.html'}")
    return timings


if __name__ == "__main__":
    unknown = [a for a in sys.argv[1:] if a not in LANGUAGES]
    if unknown:
        sys.exit(f"docs: unknown language {unknown[0]!r}; choose from {', '.join(LANGUAGES)}")
    build(tuple(sys.argv[1:]) or LANGUAGES)
