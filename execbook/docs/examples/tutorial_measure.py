# en: the length of each word of a sentence, and their mean
# es: la longitud de cada palabra de una frase, y su media
sentence = "every example runs when the book is built"
lengths = [len(word) for word in sentence.split()]
mean = sum(lengths) / len(lengths)
mean

# %% hidden checks: the mean and a figure in each language; what the prose says
import matplotlib.pyplot as plt

from execbook import FIGURE_WIDTH, glue_figure, glue_number

AXES = {"es": ("palabra", "letras"), "en": ("word", "letters")}


def draw(language):
    word, letters = AXES[language]
    size = (FIGURE_WIDTH, 2.4)
    figure, axes = plt.subplots(figsize=size, layout="constrained")
    axes.bar(range(1, len(lengths) + 1), lengths)
    axes.set_xlabel(word)
    axes.set_ylabel(letters)
    return figure


glue_number("mean_length", mean, ".2f")
glue_figure("word_lengths", draw)
assert max(lengths) == 7, "the page says the longest word has 7 letters"
assert min(lengths) <= mean <= max(lengths), "the page calls it a mean"
