"""The bundled agreement data set: deterministic, a held-out split, and determined targets."""

from collections import defaultdict

import pytest
import torch

from minigpt.data import (
    END,
    SEPARATOR,
    build_dataset,
    example_pair,
    inputs_and_targets,
    probe_batch,
    sample_batch,
    triples,
)


def decoded(data, split):
    return [data.decode(row).split() for row in split]


def halves(tokens):
    """(source, target) of an example: the words before and after the separator, no END."""
    cut = tokens.index(SEPARATOR)
    assert tokens[-1] == END
    return tuple(tokens[:cut]), tuple(tokens[cut + 1 : -1])


@pytest.fixture(scope="module")
def triple_of():
    """example tokens -> the (language, noun, adjective, verb) triple it was made from."""
    index = {}
    for triple in triples():
        for number in ("sg", "pl"):
            example = tuple(example_pair(triple, number))
            assert example not in index, f"two triples give the same example {example}"
            index[example] = triple
    return index


def test_build_is_deterministic(data):
    again = build_dataset()
    assert again.vocab == data.vocab
    assert torch.equal(again.train, data.train)
    assert torch.equal(again.test, data.test)


def test_split_holds_out_whole_triples(data, triple_of):
    train = [triple_of[tuple(t)] for t in decoded(data, data.train)]
    test = [triple_of[tuple(t)] for t in decoded(data, data.test)]
    assert set(train).isdisjoint(test)
    assert set(train) | set(test) == set(triples())
    # Each triple appears once per grammatical number, in one split only.
    assert len(train) == 2 * len(set(train)) and len(test) == 2 * len(set(test))
    assert 0.1 < len(set(test)) / len(triples()) < 0.3
    assert {t[0] for t in test} == {"es", "en"}


@pytest.mark.parametrize("split", ["train", "test"])
def test_every_target_is_determined_by_its_source(data, split):
    pairs = [halves(t) for t in decoded(data, getattr(data, split))]
    targets = defaultdict(set)
    for source, target in pairs:
        targets[source].add(target)
        assert source != target and len(source) == len(target)
    assert all(len(t) == 1 for t in targets.values()), "a source with two different rewrites"
    # Rewriting is an involution: the rewrite of the rewrite gives back the source.
    mapping = {source: target for source, target in pairs}
    for source, target in pairs:
        assert mapping[target] == source


def test_agreement_examples():
    assert (
        example_pair(("es", "gato", "negr", "come"), "sg") == "el gato negro come => los gatos negros comen .".split()
    )
    assert (
        example_pair(("es", "vaca", "blanc", "duerme"), "pl")
        == "las vacas blancas duermen => la vaca blanca duerme .".split()
    )
    assert (
        example_pair(("en", "mouse", "small", "runs"), "pl") == "the small mice run => the small mouse runs .".split()
    )


def test_vocab_round_trip(data):
    assert len(set(data.vocab)) == data.vocab_size
    for row in torch.cat([data.train, data.test]):
        tokens = data.decode(row).split()
        assert torch.equal(data.encode(tokens), row)
    assert data.decode(data.encode(list(data.vocab))) == " ".join(data.vocab)


def test_unknown_token_is_an_error(data):
    with pytest.raises(ValueError, match=r"unknown tokens \['zebra'\]"):
        data.encode(["the", "zebra", "runs"])


def test_only_the_rewrite_is_scored(data):
    x, y = inputs_and_targets(data.train, data)
    assert x.shape == y.shape == (data.train.size(0), data.block_size)
    for example, targets in zip(data.train, y, strict=True):
        tokens = data.decode(example).split()
        scored = [data.vocab[int(t)] for t in targets if t != -1]
        _, target = halves(tokens)
        assert scored == [*target, END]
        # Ignored positions are exactly the prefix up to the separator.
        n_ignored = int((targets == -1).sum())
        assert n_ignored == tokens.index(SEPARATOR)


def test_batches_are_seeded(data):
    first = sample_batch(data, 8, torch.Generator().manual_seed(3))
    again = sample_batch(data, 8, torch.Generator().manual_seed(3))
    other = sample_batch(data, 8, torch.Generator().manual_seed(4))
    assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1])
    assert not torch.equal(first[0], other[0])
    probe_x, _ = probe_batch(data)
    assert torch.equal(probe_x, probe_batch(data)[0])
    assert len({tuple(r.tolist()) for r in probe_x}) == probe_x.size(0)  # spread, no repeats
