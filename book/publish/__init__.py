"""What a page shows of an example besides its printed output, computed out of the reader's sight.

A page's visible cell runs examples/<name>.py: the code a learner would type, and its prints.
The hidden guard after that cell (book.kernel.check) judges it against examples/cases.toml and
then calls the example's publisher, if it has one, with the names the cell left behind. A
publisher
- glues the values the prose quotes (MyST-NB glue);
- glues what depends on the language once per language, as `<key>_es` and `<key>_en`: words,
  numbers (the Spanish decimal comma), tables and figures. The cells stay identical in both
  languages, so one execution serves both pages;
- asserts what the prose states in words: a failed assertion fails the build, as the guard does.

The tests run the same publishers on the same files (book.cases.execute keeps what they glue).
One module per page family; `@publisher` names the example it publishes.
"""

from importlib import import_module

MODULES = ("breaks", "safe", "theory", "compat")  # the modules of this package that hold publishers
LANGUAGES = ("es", "en")
_registry = {}


def publisher(function):
    """Register function(namespace, glue, error) as the publisher of the example of the same name:
    namespace holds the names the example left, glue(key, value) glues, error is what the example
    raised as the manifest expects (None if it completed)."""
    if function.__name__ in _registry:
        raise ValueError(f"two publishers for {function.__name__}")
    _registry[function.__name__] = function
    return function


def publishers():
    """example name -> its publisher."""
    for module in MODULES:
        import_module(f"{__name__}.{module}")
    return dict(_registry)


def publish(name, namespace, glue, error=None):
    """Run examples/<name>.py's publisher (if any) on what its run left; glue(key, value)."""
    found = publishers().get(name)
    if found is not None:
        found(namespace, glue, error)


# --- language-dependent values


def number(value, language, spec=""):
    """value formatted with spec, as a reader of language writes it: 97.3% / 97,3 %, 0.25 / 0,25."""
    text = format(value, spec)
    if language == "es":
        text = text.replace(",", "\u202f").replace(".", ",")
        if text.endswith("%"):
            text = text[:-1] + "\u00a0%"
    return text


def glue_number(glue, key, value, spec=""):
    """Glue value as `<key>_es` and `<key>_en`, each written as its language writes numbers."""
    for language in LANGUAGES:
        glue(f"{key}_{language}", number(value, language, spec))


def glue_words(glue, key, words):
    """Glue words[language] as `<key>_<language>` (words: {"es": ..., "en": ...})."""
    if set(words) != set(LANGUAGES):
        raise ValueError(f"{key}: words for {sorted(words)}, need {list(LANGUAGES)}")
    for language in LANGUAGES:
        glue(f"{key}_{language}", words[language])


def glue_figure(glue, key, draw):
    """Glue draw(language) (a matplotlib figure) as a PNG image `<key>_<language>`."""
    import io

    import matplotlib.pyplot as plt
    from IPython.display import Image

    for language in LANGUAGES:
        figure = draw(language)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
        plt.close(figure)
        glue(f"{key}_{language}", Image(data=buffer.getvalue()))


def glue_html(glue, key, render):
    """Glue render(language) (an HTML string) as `<key>_<language>`."""
    from IPython.display import HTML

    for language in LANGUAGES:
        glue(f"{key}_{language}", HTML(render(language)))
