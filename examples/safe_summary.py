# The summary table: every case of this page, with what its cell did when it ran above
# (judged against examples/cases.toml; nothing runs again). One table per language.
from IPython.display import HTML
from myst_nb import glue

from book.summary import outcomes, rows, table_html

found = outcomes()
for language in ("es", "en"):
    glue(f"safe_summary_{language}", HTML(table_html(language, found)), display=False)
for case, verdict, how in rows("en", found):
    print(f"{case}: {verdict}")
