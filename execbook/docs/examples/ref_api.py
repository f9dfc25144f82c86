# en: the engine's public API: what a book's own code may use
# es: la API pública del motor: lo que puede usar el código propio de un libro
import execbook

sorted(execbook.__all__)

# %% hidden checks: both pages document every public name, and only those
import re
from pathlib import Path

from execbook import LANGUAGES, glue_number

for language in LANGUAGES:
    page = Path("docs", language, "reference", "api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\.\. (?:auto\w+:: execbook\.|py:data:: )(\w+)$", page, flags=re.M))
    missing, unknown = set(execbook.__all__) - documented, documented - set(execbook.__all__)
    assert not missing and not unknown, f"docs/{language}/reference/api.md: add {missing}, remove {unknown}"
glue_number("public_names", len(execbook.__all__))
assert len(execbook.__all__) == len(documented), "the page says it lists these many names"
