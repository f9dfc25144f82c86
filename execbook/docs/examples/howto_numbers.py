# en: five timings of one page, in seconds
# es: cinco tiempos de una página, en segundos
import statistics

timings = [0.8, 1.1, 0.9, 1.4, 1.0]
median = statistics.median(timings)
slow = sum(t > 1.0 for t in timings) / len(timings)

# %% hidden checks: numbers, words and a figure per language
import math

import matplotlib.pyplot as plt

from execbook import FIGURE_WIDTH, glue_by_value, glue_figure, glue_number

glue_number("median", median, ".1f")  # {glue:text}`median_es`: 1,0
glue_number("slow", slow, ".0%")  # {glue:text}`slow_en`: 40%
glue_by_value(
    "speed",
    median,
    [
        (1.5, {"es": "rápida", "en": "fast"}),
        (math.inf, {"es": "lenta", "en": "slow"}),
    ],
)
LABELS = {"es": ("ejecución", "segundos"), "en": ("run", "seconds")}


def draw(language):
    run, seconds = LABELS[language]
    size = (FIGURE_WIDTH, 2.2)
    figure, axes = plt.subplots(figsize=size, layout="constrained")
    axes.plot(range(1, len(timings) + 1), timings, marker="o")
    axes.set(xlabel=run, ylabel=seconds)
    return figure


glue_figure("timings", draw)
assert slow < 0.5, "the page says most runs took a second or less"
half = len(timings) / 2
assert sum(t <= median for t in timings) >= half, "a median: half took it"
