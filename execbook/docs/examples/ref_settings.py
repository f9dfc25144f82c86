# en: every setting of [tool.book], as the engine's JSON Schema declares it
# es: cada ajuste de [tool.book], tal como lo declara el esquema JSON del motor
from execbook.config import schema

for key, setting in schema()["properties"].items():
    print(f"{key}: {setting.get('type', 'table')}")

# %% hidden checks: one row per setting, in each language; a setting without its Spanish words fails
import json
import re

from IPython.display import Markdown

from execbook import LANGUAGES, glue


def rows(properties, prefix=""):
    """(dotted key, its schema) of each setting, a table's keys after the table's own row."""
    for key, setting in properties.items():
        yield prefix + key, setting
        inner = setting.get("additionalProperties")
        if isinstance(inner, dict) and "properties" in inner:  # a table of named tables
            yield from rows(inner["properties"], f"{prefix}{key}.<name>.")
        yield from rows(setting.get("properties", {}), f"{prefix}{key}.")


SPANISH = {  # the English words are the schema's own descriptions
    "languages": "Los idiomas del libro, código → nombre en ese idioma, en el orden en que se construyen.",
    "titles": "El título del libro en cada idioma.",
    "site-url": "La dirección donde se publica el sitio: la carpeta de la página raíz y de cada idioma.",
    "repository": "El repositorio de GitHub del libro: cada página enlaza con su fuente allí.",
    "course-url": "La dirección de las otras fases del curso, para el rol `{phase}`; `{language}` es el idioma.",
    "authors": "El autor de las páginas, en cada idioma.",
    "course-link": "Las palabras de un enlace a otra fase, en cada idioma (`%s`: su número).",
    "toctree-tail": "Las páginas que cierran el índice: `new-page` pone una página nueva antes que ellas.",
    "source-branch": "La rama del repositorio desde la que se construye el sitio.",
    "notebooks-branch": "La rama donde se publican los cuadernos que abre «Abrir en Colab».",
    "project-module": "El módulo cuya importación dice que el proyecto está instalado (en Colab).",
    "fingerprinted": "Las distribuciones instaladas cuya versión vuelve a ejecutar todas las páginas.",
    "versions": "Las distribuciones cuya versión instalada nombra la página de estado.",
    "words": "Las palabras del motor que el libro cambia o añade, por idioma.",
    "hooks": 'Las funciones del libro que llama el motor, `"módulo:función"` ({ref}`book-howto-hooks`).',
    "environment": "Las variables que la construcción pone en el entorno de sus páginas; `{store}`: su almacén.",
    "cell-timeout": "Los segundos que puede durar una celda antes de que su página falle.",
    "intersphinx": "Los otros libros cuyas páginas se citan, por nombre ({ref}`book-howto-other-books`).",
    "intersphinx.<name>.url": "Dónde se publica el otro libro; `{language}` es el idioma de la página.",
    "intersphinx.<name>.inventory": "Una copia local de su `objects.inv`, que se lee en lugar de la publicada.",
    "colab-install": "Las distribuciones que instala también un cuaderno de Colab, con el requisito del proyecto.",
    "native-sources": "Las carpetas de código compilado que un mensaje nombra por su ruta absoluta (`torch/csrc`).",
    "hooks.precompute": "`precompute(workers)`: calcula lo que comparten varias páginas, antes de ejecutar ninguna.",
    "hooks.check-entry": "`check_entry(name, entry)` → un problema o `None`: juzga las claves propias de una entrada.",
    "hooks.judge": "`judge(case, outcome)` → el resultado: afina el veredicto del motor sobre una ejecución.",
    "hooks.scaffold": "`template()` → un dict: lo que escribe `new-page`.",
    "hooks.report": "`report()` → las líneas que escribe una construcción que ejecutó páginas.",
}
found = dict(rows(schema()["properties"]))
missing, unknown = set(found) - set(SPANISH), set(SPANISH) - set(found)
assert not missing and not unknown, f"reference/settings: describe {missing} in Spanish, remove {unknown}"
HEADER = {"es": "| ajuste | tipo | por defecto | qué es |", "en": "| setting | type | default | what it is |"}
NONE = {"es": "(obligatorio)", "en": "(required)"}


def row(key, setting, language):
    kind = setting.get("type", "")
    kind = " or ".join(kind) if isinstance(kind, list) else kind
    default = f"`{json.dumps(setting['default'])}`" if "default" in setting else NONE[language]
    # the schema's words are plain text: what Markdown would read as markup is escaped
    plain = re.sub(r"([\\`*_{}\[\]<>|#])", r"\\\1", setting.get("description", ""))
    words = SPANISH[key] if language == "es" else plain
    return f"| `{key}` | {kind} | {default} | {words} |"


for language in LANGUAGES:
    table = [HEADER[language], "| --- | --- | --- | --- |", *(row(k, s, language) for k, s in found.items())]
    glue(f"settings_{language}", Markdown("\n".join(table)))
