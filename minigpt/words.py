"""What ``minigpt train`` and ``minigpt grad-compare`` say, in the user's language: the first of
LANGUAGE, LC_ALL, LC_MESSAGES and LANG that is set, as gettext looks (``LANG=es_ES.UTF-8``,
``LANGUAGE=es``); English for any language without a table here. A Spanish learner's terminal
then reads as the Spanish pages do, decimal commas included. Usage errors and ``minigpt help``
stay English, as the keys they name are. Only the command line reads the environment (cli.main
sets ``current``): the functions a page calls say the same on any build machine."""

import os
import string
from typing import Any

SPANISH = {
    "trained {steps} steps{took}; final loss {loss:.4f}; test accuracy {accuracy:.2%}, exact rewrites {exact:.2%}": (
        "{steps} pasos de entrenamiento{took}; pérdida final {loss:.4f}; exactitud de prueba {accuracy:.2%}, "
        "reescrituras exactas {exact:.2%}"
    ),
    " in {seconds:.2f} s ({rate:.1f} steps/s)": " en {seconds:.2f} s ({rate:.1f} pasos/s)",
    "step {step}/{steps}, loss {loss:.4f}, {elapsed:.0f} s": "paso {step}/{steps}, pérdida {loss:.4f}, {elapsed:.0f} s",
    "recorded in {run}": "ejecución guardada en {run}",
    "backward raised at step {step}:": "la pasada hacia atrás lanzó un error en el paso {step}:",
    "recorded config, forward output and error in {run}": (
        "configuración, salida de la pasada hacia delante y error guardados en {run}"
    ),
    "probe gradients at step {step}": "gradientes del lote de sondeo en el paso {step}",
    "note: {caveat}": "nota: {caveat}",
    "nothing to compare": "nada que comparar",
    "figure: {path}": "figura: {path}",
    "{run} has no gradients: its backward raised at step {step}.": (
        "{run} no tiene gradientes: su pasada hacia atrás lanzó un error en el paso {step}."
    ),
    "{run} has no gradients recorded for step {step}": "{run} no tiene gradientes guardados del paso {step}",
    "{setting} differs ({a} vs {b}): gradient differences are not the break alone": (
        "{setting} difiere ({a} frente a {b}): las diferencias de gradientes no son solo la rotura"
    ),
    "parameter": "parámetro",
    "rel. error": "error rel.",
    "cosine": "coseno",
    "note": "nota",
    "{b} vs {a}, step {step}": "{b} frente a {a}, paso {step}",
    "relative gradient error (%), log scale\ngray: identical (drawn at the axis floor)\nred: no gradient on one side": (
        "error relativo del gradiente (%), escala logarítmica\ngris: idéntico (dibujado en el mínimo del eje)\n"
        "rojo: sin gradiente en un lado"
    ),
}
TABLES = {"es": SPANISH}
current = "en"


def language() -> str:
    """The user's language, two letters ("es"), as gettext picks it; "en" when none is set."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        if value := os.environ.get(name):
            return value.split(":")[0][:2].lower()
    return "en"


class _Numbers(string.Formatter):
    """A Spanish number: a decimal comma, a space before "%"."""

    def format_field(self, value: Any, format_spec: str) -> str:
        text = super().format_field(value, format_spec)
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        return text.replace(".", ",").replace("%", "\u00a0%") if numeric else text


def say(text: str, **fields: Any) -> str:
    """text (English, with {fields}) in the user's language, its numbers written as that language does."""
    table = TABLES.get(current)
    return text.format(**fields) if table is None else _Numbers().format(table.get(text, text), **fields)
