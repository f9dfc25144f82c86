# en: the engine's commands, as its own parser lists them
# es: las órdenes del motor, tal como las enumera su propio analizador
from execbook.cli import parser

parser().print_help()

# %% hidden checks: every command and option, in each language; one without its Spanish words fails
import argparse
import re

from IPython.display import Markdown

from execbook import LANGUAGES, glue


def arguments(prefix, actions):
    """ "command ARGUMENT" or "command --option" -> (how it is written, its English help)."""
    for action in actions:
        if "-h" in action.option_strings or isinstance(action, argparse._SubParsersAction):
            continue
        written = action.option_strings[-1] if action.option_strings else action.metavar or action.dest.upper()
        yield f"{prefix}{written}", (written, action.help or "")


top = parser()
commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
helps = {choice.dest: choice.help for choice in commands._choices_actions}
found = dict(arguments("", top._actions))  # --root, --version
for name, command in commands.choices.items():
    found[name] = (command.format_usage().removeprefix("usage: ").strip(), helps.get(name) or "")
    found |= dict(arguments(f"{name} ", command._actions))
SPANISH = {
    "--version": "Escribe la versión del motor.",
    "--root": "La carpeta del libro (por defecto, la primera con `[tool.book]` de aquí hacia arriba).",
    "check": "Comprueba las fuentes en menos de un segundo, sin ejecutar nada (cada construcción lo hace primero).",
    "build": "Construye el libro en cada idioma: ejecuta las páginas cuyas entradas cambiaron y publica el sitio.",
    "build --cold": "Vuelve a ejecutar y calcular todo, sin usar lo guardado.",
    "build LANGUAGE": "Solo estos idiomas (por defecto, todos).",
    "run": "Ejecuta un ejemplo como lo hacen su celda y su comprobación, en segundos.",
    "run EXAMPLE": "Su nombre: `examples/EXAMPLE.py`.",
    "page": "Ejecuta las celdas de una página en este proceso.",
    "page PAGE": "Un nombre de documento o una ruta.",
    "new-page": "Escribe una página nueva en cada idioma, con un ejemplo que lanza un error.",
    "new-page SLUG": "Su ruta en la carpeta de cada idioma, por ejemplo `breaks/26-my-break`.",
    "new-book": "Escribe en una carpeta nueva un libro mínimo que se construye tal como está.",
    "new-book DIR": "La carpeta nueva.",
    "new-book --languages": "Los códigos de sus idiomas, en el orden de construcción: `es,en`.",
    "schema": "Escribe el esquema JSON de `[tool.book]`, para los editores.",
}
missing, unknown = set(found) - set(SPANISH), set(SPANISH) - set(found)
assert not missing and not unknown, f"reference/commands: describe {missing} in Spanish, remove {unknown}"
HEADER = {"es": "| orden | uso | qué hace |", "en": "| command | usage | what it does |"}


def plain(words):
    """The parser's words are plain text: what Markdown would read as markup, escaped."""
    return re.sub(r"([`*_{}<>|\\])", r"\\\1", words)


for language in LANGUAGES:
    rows = [
        f"| `{key}` | `{usage}` | {SPANISH[key] if language == 'es' else plain(words)} |"
        for key, (usage, words) in found.items()
    ]
    glue(f"commands_{language}", Markdown("\n".join([HEADER[language], "| --- | --- | --- |", *rows])))
