"""A bundled, deterministic data set: rewrite a sentence in the other grammatical number.

    el gato negro come => los gatos negros comen .
    the small mice run => the small mouse runs .

Generated from a tiny lexicon. Every token after ``=>`` is determined by the source (gender, number,
irregular plurals), so accuracy there measures agreement; the test split holds out whole (noun,
adjective, verb) triples."""

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import torch

SEPARATOR = "=>"
END = "."

SPANISH_NOUNS = {  # singular: (plural, gender)
    "gato": ("gatos", "m"),
    "perro": ("perros", "m"),
    "niño": ("niños", "m"),
    "caballo": ("caballos", "m"),
    "pájaro": ("pájaros", "m"),
    "gata": ("gatas", "f"),
    "niña": ("niñas", "f"),
    "vaca": ("vacas", "f"),
    "oveja": ("ovejas", "f"),
    "abeja": ("abejas", "f"),
}
SPANISH_ADJECTIVES = ("negr", "blanc", "pequeñ", "rápid", "alt")  # stem + o/a/os/as
SPANISH_VERBS = {"come": "comen", "duerme": "duermen", "corre": "corren", "salta": "saltan", "canta": "cantan"}
SPANISH_ARTICLES = {("m", "sg"): "el", ("f", "sg"): "la", ("m", "pl"): "los", ("f", "pl"): "las"}

ENGLISH_NOUNS = {
    "cat": "cats",
    "dog": "dogs",
    "child": "children",
    "mouse": "mice",
    "fox": "foxes",
    "bird": "birds",
    "horse": "horses",
    "man": "men",
    "woman": "women",
    "bee": "bees",
}
ENGLISH_ADJECTIVES = ("black", "white", "small", "fast", "tall")
# third person singular: plural
ENGLISH_VERBS = {"eats": "eat", "sleeps": "sleep", "runs": "run", "jumps": "jump", "sings": "sing"}

TEST_FRACTION = 0.2
SPLIT_SEED = 25  # fixed: the split never depends on the training seed


def spanish_sentence(noun: str, adjective_stem: str, verb: str, number: str) -> list[str]:
    plural, gender = SPANISH_NOUNS[noun]
    ending = {"m": "o", "f": "a"}[gender] + ("s" if number == "pl" else "")
    return [
        SPANISH_ARTICLES[gender, number],
        plural if number == "pl" else noun,
        adjective_stem + ending,
        SPANISH_VERBS[verb] if number == "pl" else verb,
    ]


def english_sentence(noun: str, adjective: str, verb: str, number: str) -> list[str]:
    if number == "pl":
        return ["the", adjective, ENGLISH_NOUNS[noun], ENGLISH_VERBS[verb]]
    return ["the", adjective, noun, verb]


def triples() -> list[tuple[str, str, str, str]]:
    """Every (language, noun, adjective, verb) combination, in a fixed order."""
    es = itertools.product(["es"], SPANISH_NOUNS, SPANISH_ADJECTIVES, SPANISH_VERBS)
    en = itertools.product(["en"], ENGLISH_NOUNS, ENGLISH_ADJECTIVES, ENGLISH_VERBS)
    return list(es) + list(en)


def example_pair(triple: tuple[str, str, str, str], source_number: str) -> list[str]:
    language, words = triple[0], triple[1:]
    make = spanish_sentence if language == "es" else english_sentence
    target_number = "pl" if source_number == "sg" else "sg"
    return make(*words, source_number) + [SEPARATOR] + make(*words, target_number) + [END]


@dataclass(frozen=True)
class AgreementData:
    vocab: tuple[str, ...]  # index -> token
    train: torch.Tensor  # (N, L) token ids of full examples
    test: torch.Tensor

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @property
    def block_size(self) -> int:
        return self.train.size(1) - 1

    def encode(self, tokens: Sequence[str]) -> torch.Tensor:
        index = {t: i for i, t in enumerate(self.vocab)}
        if unknown := [t for t in tokens if t not in index]:
            raise ValueError(f"unknown tokens {unknown}; known: {' '.join(self.vocab)}")
        return torch.tensor([index[t] for t in tokens])

    def decode(self, ids: Iterable[int] | torch.Tensor) -> str:
        return " ".join(self.vocab[int(i)] for i in ids)


def build_dataset() -> AgreementData:
    all_triples = triples()
    order = torch.randperm(len(all_triples), generator=torch.Generator().manual_seed(SPLIT_SEED))
    n_test = round(TEST_FRACTION * len(all_triples))
    test_ids = set(order[:n_test].tolist())
    examples: dict[str, list[list[str]]] = {"train": [], "test": []}
    for i, triple in enumerate(all_triples):
        for number in ("sg", "pl"):
            examples["test" if i in test_ids else "train"].append(example_pair(triple, number))
    vocab = sorted({t for split in examples.values() for ex in split for t in ex})
    index = {t: i for i, t in enumerate(vocab)}

    def encode(split: list[list[str]]) -> torch.Tensor:
        return torch.tensor([[index[t] for t in ex] for ex in split])

    return AgreementData(tuple(vocab), encode(examples["train"]), encode(examples["test"]))


def inputs_and_targets(examples: torch.Tensor, data: AgreementData) -> tuple[torch.Tensor, torch.Tensor]:
    """Next-token pairs; targets before and at the separator are ignored (-1): unpredictable."""
    x, y = examples[:, :-1], examples[:, 1:].clone()
    separator = data.vocab.index(SEPARATOR)
    after_separator = (x == separator).long().cumsum(1) > 0
    y[~after_separator] = -1
    return x, y


def sample_batch(data: AgreementData, batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    rows = torch.randint(0, data.train.size(0), (batch_size,), generator=generator)
    return inputs_and_targets(data.train[rows], data)


def probe_batch(data: AgreementData, size: int = 16) -> tuple[torch.Tensor, torch.Tensor]:
    """A fixed batch (evenly spread training examples) whose gradients runs record and compare."""
    rows = torch.linspace(0, data.train.size(0) - 1, size).long()
    return inputs_and_targets(data.train[rows], data)
