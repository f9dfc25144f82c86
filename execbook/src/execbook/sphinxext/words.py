"""The engine's words on a page, a table per language; a book changes a word, or adds a language, in
[tool.book.words.<language>] (a language without a table starts from English, and the build says so)."""

import sys
from functools import cache

from .. import config

WORDS: dict[str, dict[str, str]] = {
    "es": {
        # the header's search box and MyST-NB's collapsed cells ("{type}": cell_source, ...)
        "search": "Buscar en el libro…",
        "switch": "Leer esta página en {language}",  # the language switcher's title
        "show": "Mostrar {type}",
        "hide": "Ocultar {type}",
        "cell_source": "el código",
        "cell_outputs": "la salida",
        "cell_output": "la salida",
        "cell_content": "el código y la salida",
        "cell_toggle": "Mostrar u ocultar",
        # the status page's table of executed pages
        "status_page": "Página",
        "status_ran": "Ejecutada (UTC)",
        "status_result": "Resultado",
        "status_succeeded": "correcta",
        "status_failed": "falló",
        # the title of a figure's link to itself
        "full_size": "Abrir la imagen a tamaño completo",
        # the downloads menu of an executed page and the downloads themselves
        "menu": "Código",
        "menu_label": "Descargar esta página, abrirla en Colab o ver su fuente",
        "source_label": "Ver la fuente de esta página",
        "notebook": "cuaderno ejecutado (.ipynb)",
        "script": "código (.py)",
        "colab": "abrir en Colab",
        "source": "fuente en GitHub ({suffix})",
        "note": (
            "> Cuaderno descargado de [{title}]({url}), con las salidas de la construcción del libro. "
            "Para ejecutarlo: el proyecto instalado (`pip install {install}`), en cualquier "
            "carpeta. Las celdas marcadas `raises-exception` fallan a propósito: el error es la lección."
        ),
        "colab_note": (
            "> Cuaderno de [{title}]({url}), con las salidas de la construcción del libro, para "
            "ejecutarlo en Colab. Su primera celda de código instala el proyecto donde falta, desde la "
            "dirección del repositorio y sin sus dependencias (se queda el torch que ya trae Colab). "
            "Las celdas cuya salida es un error fallan a propósito: el error es la lección. Al ejecutar "
            "todas las celdas, Colab se detiene en cada una de ellas; para seguir, ejecuta las que "
            "vienen después."
        ),
        "script_header": (
            "El código de la página «{title}», {url}\n"
            "Se ejecuta con el proyecto instalado (pip install {install}), en cualquier carpeta."
        ),
        "files": (
            "Los archivos del repositorio que lee el código de esta página: esta celda\n"
            "los escribe en la carpeta actual donde faltan (un clon ya los tiene)."
        ),
        "expected": "Error esperado:",
        "not_raised": "Esta celda debía lanzar un error y no lo lanzó.",
        "lesson": "Esta celda falla a propósito: el error es la lección. El script lo imprime y sigue.",
    },
    "en": {
        "search": "Search this book…",
        "switch": "Read this page in {language}",
        "show": "Show code cell {type}",
        "hide": "Hide code cell {type}",
        "cell_source": "source",
        "cell_outputs": "outputs",
        "cell_output": "output",
        "cell_content": "content",
        "cell_toggle": "Toggle hidden content",
        "status_page": "Page",
        "status_ran": "Executed (UTC)",
        "status_result": "Result",
        "status_succeeded": "succeeded",
        "status_failed": "failed",
        "full_size": "Open the image full size",
        "menu": "Code",
        "menu_label": "Download this page, open it in Colab or see its source",
        "source_label": "See this page's source",
        "notebook": "executed notebook (.ipynb)",
        "script": "code (.py)",
        "colab": "open in Colab",
        "source": "source on GitHub ({suffix})",
        "note": (
            "> Notebook downloaded from [{title}]({url}), with the outputs of the book's build. "
            "To run it: the project installed (`pip install {install}`), in any folder. "
            "The cells tagged `raises-exception` fail on purpose: the error is the lesson."
        ),
        "colab_note": (
            "> Notebook of [{title}]({url}), with the outputs of the book's build, to run in Colab. "
            "Its first code cell installs the project where it is missing, from the repository's "
            "address and without its dependencies (Colab's own torch stays). The cells whose "
            "output is an error fail on purpose: the error is the lesson. Running all cells stops at "
            "each of them; to go on, run the cells after it."
        ),
        "script_header": (
            'The code of the page "{title}", {url}\n'
            "It runs with the project installed (pip install {install}), in any folder."
        ),
        "files": (
            "The repository's files that this page's code reads: this cell writes them\n"
            "in the current folder where they are missing (a clone has them already)."
        ),
        "expected": "Expected error:",
        "not_raised": "This cell was meant to raise an error and did not.",
        "lesson": "This cell fails on purpose: the error is the lesson. The script prints it and goes on.",
    },
}


@cache
def words(language: str) -> dict[str, str]:
    """The engine's words in this language, with the book's own ([tool.book.words]) over them."""
    book = config.WORDS.get(language, {})
    unknown = set(book) - set(WORDS["en"])
    if unknown:
        raise ValueError(f"pyproject.toml [tool.book.words.{language}]: no such word {', '.join(sorted(unknown))}")
    lacking = [] if language in WORDS else sorted(set(WORDS["en"]) - set(book))
    if lacking:
        print(
            f"execbook: warning: no engine words in {language!r}: English for {len(lacking)} of them "
            f"(pyproject.toml [tool.book.words.{language}] gives them: {', '.join(lacking[:3])}...)",
            file=sys.stdout,  # the build shows what Sphinx's process prints; a Sphinx warning would fail it (-W)
            flush=True,
        )
    return {**WORDS.get(language, WORDS["en"]), **book}


def speaks(language: str) -> str:
    """The language of the engine's words on a page in this one: its own, else English."""
    return language if language in WORDS or "switch" in config.WORDS.get(language, {}) else "en"
