"""Publishers of the theory pages' examples (book.publish): theory/02 (theory02_*, phase08_*) and
theory/04 (theory04_*). They glue the values the prose quotes, draw the graph figure in each
language, and check what the sentences say about each cell's output."""

from minigpt.compare import median_error

from . import glue_figure, glue_words, publisher

# --- theory/02: the version counter and what nodes save


def _same_memory(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@publisher
def theory02_version_counter(ns, glue, error):
    t, u, v, d = ns["t"], ns["u"], ns["v"], ns["d"]
    assert u._version == 0, "the page says an out-of-place op starts a new tensor with its own count"
    assert v._version == t._version, "the page says a view shares its base's counter"
    assert _same_memory(v, t) and _same_memory(d, t), "the page says v and t.data share t's memory"
    assert d._version == 1 and t._version == 5, "the page says t.data has a counter of its own"


@publisher
def theory02_saved_by_nodes(ns, glue, error):
    import torch

    def slots(out):
        node = out.grad_fn
        return {n.removeprefix("_saved_") for n in dir(node)
                if n.startswith("_saved_") and isinstance(getattr(node, n), torch.Tensor)}

    saved = {expression: slots(out) for expression, out in ns["outputs"].items()}
    assert saved["a + b"] == set(), "the page says an addition keeps no tensor"
    assert saved["a * b"] == {"self", "other"} and saved["a.sin()"] == {"self"}, "inputs kept"
    for expression in ("a.exp()", "a.tanh()", "a.sigmoid()", "F.relu(a)", "a.softmax(-1)"):
        assert saved[expression] == {"result"}, f"the page says {expression} keeps its output"
    assert {"self", "mat2"} <= saved["F.linear(a, w)"], "the page says Linear keeps its input and weight"
    assert {"input", "result1", "result2"} <= saved["F.layer_norm(a, (3,), ln_weight)"]
    y = ns["y"]
    assert y.grad_fn._saved_result.data_ptr() == y.data_ptr(), "the page says saving keeps a reference"


@publisher
def theory02_block_saved_log(ns, glue, error):
    log_a, log_b, h_a, h_b = ns["log_a"], ns["log_b"], ns["h_a"], ns["h_b"]
    assert ns["same_slots"], "the page says A and B save the same slots"
    in_h_a = [e["module"] for e in log_a if e["memory_of_h"]]
    assert in_h_a == ["ln1"] and h_a._version == 0, "the page says in run A only ln1 keeps h's memory"
    in_h = [(i, e) for i, e in enumerate(log_b) if e["memory_of_h"]]
    assert [e["module"] for _, e in in_h] == ["ln1", "ln2"], "the page says both LayerNorms keep h in B"
    assert all(e["version"] < h_b._version for _, e in in_h), "the page says neither saved value is left"
    weights = [e for e in log_a if e["node"].endswith((".weight", ".bias", ".mat2")) and e["module"] != "attn"]
    assert weights and all(e["version"] >= 1 for e in weights), "the page says parameters start past 0"
    glue("t02_n_saved", len(log_a))
    glue("t02_b_h_final", h_b._version)
    slot = {"es": "#{i}, versión {v}", "en": "#{i}, version {v}"}
    joined = {"es": " y ", "en": " and "}
    glue_words(glue, "t02_b_h_slots", {
        language: joined[language].join(f"{e['module']} ({slot[language].format(i=i, v=e['version'])})"
                                        for i, e in in_h)
        for language in ("es", "en")})


@publisher
def theory02_inequality(ns, glue, error):
    import torch

    from .. import message

    assert torch.equal(ns["y"], ns["before"]), "the page says the values are back, bit for bit"
    parts = message.parts(str(error))
    assert (parts["version_now"], parts["version_expected"]) == ("2", "0"), parts


@publisher
def theory02_bypasses_toy(ns, glue, error):
    run = ns["run"]
    assert run("y.mul_(2)").startswith("RuntimeError"), "the page says the plain in-place write is caught"
    for variant in (".data", "saved_tensors_hooks", "ctx attribute"):
        assert run(variant) == "no error; a.grad / exp(a) = 2, 2, 2, 2, 2", \
            f"the page says {variant} returns twice the right gradient without an error"


@publisher
def theory02_bypasses_gpt(ns, glue, error):
    import re

    rows = ns["rows"]
    missing = {bypass: sum(r.note == "no gradient in B" for r in found) for bypass, found in rows.items()}
    assert missing["data"] > 0, "the page says bypass=data leaves parameters without a gradient"
    for bypass in ("hooks", "ctx"):
        worst = sorted(rows[bypass], key=lambda r: r.rel_error, reverse=True)[:3]
        assert missing[bypass] == 0, f"the page says the graph is intact with {bypass}"
        assert median_error(rows[bypass]) < 0.05, f"the page says most weights move a little with {bypass}"
        assert all(re.fullmatch(r"blocks\.\d\.ln\d\.weight", r.name) for r in worst), \
            f"the page says the LayerNorm weights head the list with {bypass}"
    glue("t02_data_missing", missing["data"])


# --- theory/02: phase 8 in miniature (tapegrad)


@publisher
def phase08_gradcheck(ns, glue, error):
    assert all(e < 1e-6 for e in ns["errors"].values()), "the page says the engine agrees with finite differences"


@publisher
def phase08_silent(ns, glue, error):
    errors = ns["errors"]
    assert ns["loss_a"] == ns["loss_b"], "the page says the forward is the same"
    wrong = [name for name, e in errors.items() if e > 0]
    right = [name for name, e in errors.items() if e == 0]
    assert wrong and right, "the page names some wrong gradients and some exact ones"
    for key, names in (("p08_wrong", wrong), ("p08_right", right)):
        glue_words(glue, key, {"es": _join(names, "y"), "en": _join(names, "and")})


def _join(names, conjunction):
    """['x', 'pos', 'w1'] -> 'x, pos and w1'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


@publisher
def phase08_counter_lines(ns, glue, error):
    marked = ns["marked"]
    assert 3 <= len(marked) <= 6, "the page says a handful of lines"
    assert any("!=" in line for _, line in marked), "the page says the marked lines compare the versions"


@publisher
def phase08_caught(ns, glue, error):
    from .. import message

    unchecked, checked = ns["unchecked"], ns["checked"]
    assert all((unchecked[n] == checked[n]).all() for n in unchecked), "the page says out of place is unaffected"
    assert message.CORE in str(error), "the page says the message is built like PyTorch's"


# --- theory/04: the walk of run A, the figure, run B


@publisher
def theory04_walk(ns, glue, error):
    executed, functions, accumulate = ns["executed"], ns["functions"], ns["accumulate"]
    assert functions == ns["by_sequence"], "the page says the functions ran in reverse creation order"
    assert set(executed) == set(ns["nodes"]), "the page says backward ran every node"
    assert len(accumulate) == len(list(ns["model"].parameters())), "the page says one AccumulateGrad per parameter"
    glue("t04_nodes", len(executed))
    glue("t04_functions", len(functions))
    glue("t04_accumulate", len(accumulate))
    glue("t04_saved", ns["n_saved"])


GRAPH_WORDS = {
    "es": {"title": "Grafo de backward del mini-GPT, en orden de ejecución de arriba abajo\n"
                    "arcos verdes: conexiones residuales\n"
                    "en rojo: entrada guardada caducada en la ejecución B",
           "first": "  <- caducada en B: aquí falla el paso hacia atrás", "stale": "  <- caducada en B",
           "legend": "nodo"},
    "en": {"title": "mini-GPT backward graph, execution order top to bottom\n"
                    "green arcs: residual connections\n"
                    "red: saved input stale in run B",
           "first": "  <- stale in B: the backward pass fails here", "stale": "  <- stale in B",
           "legend": "node"},
}
KINDS = {"NativeLayerNorm": "tab:blue", "Add ": "tab:green", "Addmm": "tab:purple", "Mm ": "tab:purple",
         "Bmm": "tab:orange"}
ARC = 0.035  # arc width per row spanned


def _kind_color(label):
    return next((c for k, c in KINDS.items() if (label + " ").startswith(k)), "0.55")


def _graph_figure(ns, language):
    """The backward graph, one row per function top to bottom, edges as arcs on the left."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Arc

    words = GRAPH_WORDS[language]
    edges, labels, stale, first = ns["edges"], ns["labels"], ns["stale"], ns["first_stale"]
    fig, ax = plt.subplots(figsize=(7.2, 0.14 * len(labels) + 1.2), layout="constrained")
    for a, b in edges:
        top, bottom = min(a, b), max(a, b)
        skip = labels[a] == labels[b] == "Add"  # one residual add feeding the one before it
        ax.add_patch(Arc((0, (top + bottom) / 2), width=ARC * (bottom - top), height=bottom - top,
                         theta1=90, theta2=270, color="tab:green" if skip else "0.7",
                         linewidth=1.0 if skip else 0.5))
    for i, label in enumerate(labels):
        ax.plot(0, i, "o", markersize=3.5, color=_kind_color(label))
        important = (label + " ").startswith(("NativeLayerNorm", "Add ", "Addmm", "Mm ", "NllLoss", "Embedding"))
        text_color = "tab:red" if i in stale else ("black" if important else "0.45")
        suffix = words["first"] if i == first else words["stale"] if i in stale else ""
        ax.text(0.06, i, f"{i:>3}  {label}{suffix}", va="center", fontsize=7, family="monospace",
                color=text_color, fontweight="bold" if i in stale else "normal")
    ax.legend(handles=[plt.Line2D([], [], marker="o", linestyle="", color=c, label=k.strip())
                       for k, c in KINDS.items()], loc="center right", bbox_to_anchor=(1, 0.62), fontsize=7,
              title=words["legend"], title_fontsize=7)
    ax.set_xlim(-ARC * max(b - a for a, b in edges) / 2 - 0.05, 3.0)
    ax.set_ylim(len(labels), -1)
    ax.axis("off")
    ax.set_title(words["title"], fontsize=9)
    return fig


@publisher
def theory04_graph(ns, glue, error):
    labels, stale = ns["labels"], ns["stale"]
    assert ns["edges"] == ns["edges_b"] and labels == ns["labels_b"], "the page says A and B have the same shape"
    assert stale and all(labels[i].startswith("NativeLayerNorm  blocks.") for i in stale), \
        "the page says the red rows are the blocks' LayerNorms"
    glue("t04_graph_rows", len(labels))
    glue_figure(glue, "t04_graph", lambda language: _graph_figure(ns, language))


@publisher
def theory04_stale(ns, glue, error):
    from .. import message

    stale, modules, first = ns["stale"], ns["modules"], ns["first"]
    assert len(ns["h_memory"]) == 1, "the page says every stale tensor lives in h's memory"
    assert all(modules[s["node"]].startswith("blocks.") and s["node"].name() == "NativeLayerNormBackward0"
               and s["slot"] == "input" for s in stale), "the page says the stale ones are the blocks' LayerNorm inputs"
    assert [modules[n] for n, _, _ in ns["valid_in_h"]] == ["ln_f"], "the page says ln_f's input is valid"
    assert all(s["node"] in ns["upstream"] for s in stale[1:]), "the page says the others are upstream"
    assert ns["running"][-1] is first, "the page says the real backward raises at the first stale node"
    parts = message.parts(ns["message"])
    assert (int(parts["version_expected"]), int(parts["version_now"])) == (stale[0]["saved_at"], stale[0]["now"]), \
        "the page says the message quotes the same versions"
    assert stale[0]["now"] - stale[0]["saved_at"] == 1, "the page says one add_ came after it"
    glue("t04_stale_count", len(stale))
    glue("t04_fresh_count", ns["fresh"])
    glue("t04_first_module", modules[first])
    glue("t04_first_saved", stale[0]["saved_at"])
    glue("t04_first_now", stale[0]["now"])
    glue("t04_ran_before", len(ns["done"]))
