# The summary: every case of this page, with what its cell did when it ran above, judged against
# examples/cases.toml (nothing runs again).
from book.summary import outcomes, rows

found = outcomes()
for case, verdict, how in rows("en", found):
    print(f"{case}: {verdict}")
