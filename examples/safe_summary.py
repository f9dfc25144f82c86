# The summary: every case of this page, with what its cell did when it ran
# above, judged against examples/cases.toml (nothing runs again).
from book.summary import outcomes, rows

found = outcomes()
for case, verdict, how in rows("en", found):
    print(f"{case}: {verdict}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from book.checks import glue, glue_html

from book.summary import table_html

glue_html("safe_summary", lambda language: table_html(language, found))
