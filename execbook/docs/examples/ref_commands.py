# en: the engine's commands, as its own parser lists them
# es: las órdenes del motor, tal como las enumera su propio analizador
from execbook.cli import parser

parser().print_help()

# %% hidden checks: every command and option, in each language; one without its Spanish words fails
import argparse

from IPython.display import Markdown

from execbook import LANGUAGES, glue

commands = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
helps = {choice.dest: choice.help for choice in commands._choices_actions}
found = {}  # "command" or "command --option" -> (usage, its English help)
for name, command in commands.choices.items():
    found[name] = (command.format_usage().removeprefix("usage: ").strip(), helps.get(name) or "")
    for option in command._actions:
        if option.option_strings and option.help != argparse.SUPPRESS and "-h" not in option.option_strings:
            found[f"{name} {option.option_strings[-1]}"] = (", ".join(option.option_strings), option.help or "")
SPANISH = {
    "check": "Comprueba las fuentes en menos de un segundo, sin ejecutar nada (cada construcción lo hace primero).",
    "build": "Construye el libro en cada idioma: ejecuta las páginas cuyas entradas cambiaron y publica el sitio.",
    "build --cold": "Vuelve a ejecutar y calcular todo, sin usar lo guardado.",
    "run": "Ejecuta un ejemplo como lo hacen su celda y su comprobación, en segundos.",
    "page": "Ejecuta las celdas de una página como la construcción, y guarda el resultado.",
    "new-page": "Escribe una página nueva en cada idioma, con un ejemplo que lanza un error.",
    "new-book": "Escribe en una carpeta nueva un libro mínimo que se construye tal como está.",
    "new-book --languages": "Los códigos de los idiomas, separados por comas: `es,en`.",
    "schema": "Escribe el esquema JSON de `[tool.book]`, para los editores.",
}
missing, unknown = set(found) - set(SPANISH), set(SPANISH) - set(found)
assert not missing and not unknown, f"reference/commands: describe {missing} in Spanish, remove {unknown}"
HEADER = {"es": "| orden | uso | qué hace |", "en": "| command | usage | what it does |"}
for language in LANGUAGES:
    rows = [
        f"| `{key}` | `{usage}` | {SPANISH[key] if language == 'es' else words} |"
        for key, (usage, words) in found.items()
    ]
    glue(f"commands_{language}", Markdown("\n".join([HEADER[language], "| --- | --- | --- |", *rows])))
