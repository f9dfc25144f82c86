# en: the keys a manifest entry may have (the engine's own; a book adds its own)
# es: las claves de una entrada del manifiesto (las del motor; un libro añade)
from execbook import ENTRY_KEYS

sorted(ENTRY_KEYS)

# %% hidden checks: one row per key, in each language; a key without its row fails the build
from IPython.display import Markdown

from execbook import LANGUAGES, glue

KEYS = {  # key -> (an example of its value, {language: what it means})
    "expect": {
        "es": 'Obligatoria: lo que debe hacer el ejemplo, `"completes"` (terminar) o `"raises"` (lanzar un error).',
        "en": 'Required: what the example must do, `"completes"` or `"raises"`.',
    },
    "error": {
        "es": 'Con `"raises"`, obligatoria: el nombre de la clase del error, `"ValueError"`.',
        "en": 'With `"raises"`, required: the class name of the error, `"ValueError"`.',
    },
    "match": {
        "es": 'Con `"raises"`, obligatoria: un fragmento de su mensaje, `"could not convert"`.',
        "en": 'With `"raises"`, required: a fragment of its message, `"could not convert"`.',
    },
    "holds": {
        "es": 'Con `"completes"`: un nombre que el ejemplo define y que debe valer `True` al terminar, `"same"`.',
        "en": 'With `"completes"`: a name the example defines that must be `True` when it ends, `"same"`.',
    },
    "reads": {
        "es": 'Los archivos y carpetas del libro que lee el ejemplo, `["data/words.txt"]`: cambiarlos lo '
        'vuelve a ejecutar, y van con las descargas de la página. `"@with:CLAVE"`: lo que leen los ejemplos '
        "cuyas entradas tienen CLAVE.",
        "en": 'The book\'s files and folders the example reads, `["data/words.txt"]`: a change to them runs '
        'it again, and they come with the page\'s downloads. `"@with:KEY"`: what the examples whose '
        "entries set KEY read.",
    },
}
missing, unknown = ENTRY_KEYS - set(KEYS), set(KEYS) - ENTRY_KEYS
assert not missing and not unknown, f"reference/manifest: describe {missing}, remove {unknown}"
HEADER = {"es": "| clave | qué significa |", "en": "| key | what it means |"}
for language in LANGUAGES:
    rows = [f"| `{key}` | {words[language]} |" for key, words in KEYS.items()]
    glue(f"manifest_keys_{language}", Markdown("\n".join([HEADER[language], "| --- | --- |", *rows])))
