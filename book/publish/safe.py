"""Publishers of the safe page's examples (book.publish): the summary table in each language, and
the checks of what the page's sentences say about each case beyond its manifest entry (the saved
slots that make a safe case safe, the write that no_grad allows)."""

from . import glue_html, publisher


def _saved(ns, node):
    """The example's own saved(node): slot name -> shape of every tensor the node saved."""
    return ns["saved"](node)


@publisher
def safe_masked_fill(ns, glue, error):
    division, product = ns["division"], ns["product"]
    assert list(_saved(ns, division)) == ["other"] and _saved(ns, division)["other"] == [], \
        "the page says the division by the square root of the head size saved only that scalar"
    assert set(_saved(ns, product)) == {"self", "mat2"}, "the page says the matrix product saved q and k"


@publisher
def safe_dropout_linear(ns, glue, error):
    node = ns["hidden"].grad_fn
    linear = node.next_functions[0][0]
    assert list(_saved(ns, node)) == ["other"], "the page says dropout saves only its mask"
    assert set(_saved(ns, linear)) == {"mat1", "mat2"}, "the page says the Linear saved its input and weight"


@publisher
def safe_embedding_sum(ns, glue, error):
    assert list(_saved(ns, ns["lookup"])) == ["indices"], "the page says the lookup saved the token indices"


@publisher
def safe_counter_leaf(ns, glue, error):
    assert ns["w"]._version == 1, "the page says the same write is allowed under no_grad"


@publisher
def safe_counter_split_view(ns, glue, error):
    import math

    import torch

    assert "returns multiple views" in str(error), "the page says split returns several views of one tensor"
    qkv, x, C = ns["qkv"], ns["x"], ns["C"]
    q, k, v = qkv(x).split(C, dim=2)
    try:  # "nor into the views taken from them afterwards, such as the block's q.view(...)"
        q.view(*x.shape[:2], 2, C // 2).transpose(1, 2).mul_(1.0)
        raise AssertionError("the page says a view of an output of split is refused too")
    except RuntimeError as refused:
        assert "returns multiple views" in str(refused), refused
    q = q.clone()  # "and so does writing into a copy"
    q /= math.sqrt(C)
    ((q @ k.transpose(-2, -1)).softmax(-1) @ v).sum().backward()
    assert q._version == 1 and torch.isfinite(qkv.weight.grad).all()


@publisher
def safe_summary(ns, glue, error):
    from ..summary import table_html

    found = ns["found"]
    glue_html(glue, "safe_summary", lambda language: table_html(language, found))
