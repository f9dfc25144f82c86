# Book machinery, not a lesson: the page hides this cell. The summary table of
# the safe page, from what each case's cell did when it ran above, judged
# against examples/cases.toml (nothing runs again); the page shows the table in
# its own language, glued below.


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue_html

from phase25.summary import outcomes, table_html

found = outcomes()
glue_html("safe_summary", lambda language: table_html(language, found))
