"""What an example's hidden checks use (AUTHORING.md): glue what the prose quotes, once per language
where it differs (`<key>_es`: one execution serves every page). Not named `glue`: a module execbook.glue
would replace the public function `execbook.glue`."""

import contextlib
import io
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from . import config

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_running: dict[str, Any] = {"glue": lambda key, value: None, "error": None}


@contextlib.contextmanager
def running(glue: Callable[[str, Any], object], error: BaseException | None) -> Iterator[None]:
    """Run an example's checks with this glue(key, value) and the error the example raised."""
    before = dict(_running)
    _running.update(glue=glue, error=error)
    try:
        yield
    finally:
        _running.update(before)


def glue(key: str, value: Any) -> None:
    """Glue value as key, as it is (MyST-NB's glue): the language's own key, `<key>_<language>`, is the caller's."""
    _running["glue"](key, value)


def raised() -> BaseException | None:
    """What the example raised, as its manifest entry expects; None if it completed."""
    return _running["error"]


def number(value: float, language: str, spec: str = "") -> str:
    """value as a reader of language writes it (Babel's locale data): spec's digits after the point
    (".1f", ".2%"), a percentage for "%", digits grouped for ","; 97.3% / 97,3 %, 0.25 / 0,25."""
    from babel import Locale
    from babel.numbers import parse_pattern

    locale = Locale.parse(language)
    formats = locale.percent_formats if spec.endswith("%") else locale.decimal_formats
    pattern = parse_pattern(formats[None].pattern)
    if digits := re.search(r"\.(\d+)", spec):
        pattern.frac_prec = (int(digits[1]), int(digits[1]))
    return pattern.apply(value, locale, group_separator="," in spec)


def glue_number(key: str, value: float, spec: str = "") -> None:
    """Glue value as `<key>_<language>` for each language, written as its readers write numbers."""
    for language in config.LANGUAGES:
        glue(f"{key}_{language}", number(value, language, spec))


def glue_words(key: str, words: dict[str, str]) -> None:
    """Glue words[language] as `<key>_<language>` (words: one text per language of the book)."""
    if set(words) != set(config.LANGUAGES):
        raise ValueError(f"{key}: words for {sorted(words)}, need {list(config.LANGUAGES)}")
    for language in config.LANGUAGES:
        glue(f"{key}_{language}", words[language])


def glue_by_value(key: str, value: float, scale: list[tuple[float, dict[str, str]]]) -> dict[str, str]:
    """Glue, as `<key>_<language>`, the words that fit a measured value: scale is [(upper bound,
    {"es": ..., "en": ...}), ...] in increasing order, and the first bound above value wins (the
    last may be math.inf). Returns those words. For "a few tenths of a percent" / "about one
    percent": a phrase chosen from what this build measured, never asserted with fixed bounds."""
    for bound, words in scale:
        if value < bound:
            glue_words(key, words)
            return words
    raise ValueError(f"{key}: {value!r} is above every bound of its scale; add a last bound of math.inf")


FIGURE_DPI = 150
# inches: at FIGURE_DPI, a phone 390 px wide shows 8-point text about 9 px high (a tap opens it full size)
FIGURE_WIDTH = 4.8


def glue_figure(key: str, draw: Callable[[str], "Figure"]) -> None:
    """Glue draw(language) (a matplotlib figure) as a PNG image `<key>_<language>`, at a resolution
    that stays sharp when a phone scales a figure about 5 inches wide to its screen."""
    import matplotlib.pyplot as plt
    import PIL.Image
    from IPython.display import Image

    for language in config.LANGUAGES:
        figure = draw(language)
        drawn, buffer = io.BytesIO(), io.BytesIO()
        figure.savefig(drawn, format="png", dpi=FIGURE_DPI, metadata={"Software": None})
        plt.close(figure)
        # A plot has few colours: a 256-colour palette keeps it as it looks at a third of the bytes
        # (the break page stays under its weight on a phone).
        PIL.Image.open(drawn).convert("RGB").quantize(256).save(buffer, format="png", optimize=True)
        glue(f"{key}_{language}", Image(data=buffer.getvalue()))


def glue_html(key: str, render: Callable[[str], str]) -> None:
    """Glue render(language) (an HTML string) as `<key>_<language>`."""
    from IPython.display import HTML

    for language in config.LANGUAGES:
        glue(f"{key}_{language}", HTML(render(language)))
