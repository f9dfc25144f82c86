# en: the book's machinery: the table of what each case's cell did
# es: maquinaria del libro: la tabla de lo que hizo la celda de cada caso


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue_html

from phase25.summary import outcomes, table_html

found = outcomes()
glue_html("safe_summary", lambda language: table_html(language, found))
