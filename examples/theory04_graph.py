import re

from minigpt.data import build_dataset, probe_batch
from minigpt.graph import graph_nodes
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)


def walk(inplace):
    # en: functions in execution order, edges, labels, rows of stale nodes
    # es: funciones en orden de ejecución, aristas, etiquetas, filas desfasadas
    model = build_model(model_config(data, inplace=inplace), seed=0)
    _, loss = model(x, y)
    owner = {id(p): name.rsplit(".", 1)[0]
             for name, p in model.named_parameters()}
    # en: no AccumulateGrad
    # es: sin AccumulateGrad
    nodes = [n for n in graph_nodes(loss.grad_fn)
             if not hasattr(n, "variable")]
    # en: the engine's order (theory04_walk)
    # es: el orden del motor (theory04_walk)
    nodes.sort(key=lambda n: n._sequence_nr(), reverse=True)
    row = {node: i for i, node in enumerate(nodes)}
    edges = [(row[n], row[m]) for n in nodes
             for m, _ in n.next_functions if m in row]
    labels, stale = [], set()
    for node in nodes:
        params = [m.next_functions[0][0]
                  if m is not None and m.name() == "TBackward0" else m
                  for m, _ in node.next_functions]
        module = next((owner[id(p.variable)] for p in params
                       if hasattr(p, "variable")), "")
        labels.append(
            node.name().removesuffix("Backward0").removesuffix("Backward1")
            + (f"  {module}" if module else ""))
        for slot in (s for s in dir(node) if s.startswith("_saved_")):
            try:
                getattr(node, slot)
            except RuntimeError as exc:
                if re.search(r"modified by an inplace operation", str(exc)):
                    stale.add(row[node])
    return nodes, edges, labels, stale


nodes, edges, labels, _ = walk(inplace=False)
nodes_b, edges_b, labels_b, stale = walk(inplace=True)
# en: the first row the backward pass reaches
# es: la primera fila a la que llega la pasada hacia atrás
first_stale = min(stale)
print(f"{len(nodes) = }, {len(edges) = }")
same_shape = edges == edges_b and labels == labels_b
print(f"{same_shape = }")
print(f"{sorted(stale) = }")
for i in sorted(stale):
    print(f"labels[{i:>3}] = {labels[i]}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import FIGURE_WIDTH, glue, glue_figure

GRAPH_WORDS = {
    "es": {"title": "El grafo de la pasada hacia atrás del mini-GPT,\n"
                    "en orden de ejecución de arriba abajo\n"
                    "arcos verdes: conexiones residuales\n"
                    "en rojo: entrada guardada desfasada en la ejecución B",
           "first": " <- desfasada: aquí falla B", "stale": " <- desfasada en B",
           "legend": "nodo"},
    "en": {"title": "The mini-GPT's backward graph,\n"
                    "in execution order, top to bottom\n"
                    "green arcs: residual connections\n"
                    "red: saved input stale in run B",
           "first": " <- stale: run B fails here", "stale": " <- stale in B",
           "legend": "node"},
}

KINDS = {"NativeLayerNorm": "tab:blue", "Add ": "tab:green", "Addmm": "tab:purple", "Mm ": "tab:purple",
         "Bmm": "tab:orange"}

ARC = 0.035

def _kind_color(label):
    return next((c for k, c in KINDS.items() if (label + " ").startswith(k)), "0.55")

def _graph_figure(language):
    """The backward graph, one row per function top to bottom, edges as arcs on the left."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Arc

    words = GRAPH_WORDS[language]
    first = first_stale
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH + 0.4, 0.16 * len(labels) + 1.4), layout="constrained")
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
        ax.text(0.06, i, f"{i:>3} {label}{suffix}", va="center", fontsize=8, family="monospace",
                color=text_color, fontweight="bold" if i in stale else "normal")
    ax.legend(handles=[plt.Line2D([], [], marker="o", linestyle="", color=c, label=k.strip())
                       for k, c in KINDS.items()], loc="center right", bbox_to_anchor=(1, 0.62), fontsize=8,
              title=words["legend"], title_fontsize=8)
    ax.set_xlim(-ARC * max(b - a for a, b in edges) / 2 - 0.05, 3.0)
    ax.set_ylim(len(labels), -1)
    ax.axis("off")
    ax.set_title(words["title"], fontsize=9)
    return fig

assert edges == edges_b and labels == labels_b, "the page says A and B have the same shape"
assert stale and all(labels[i].startswith("NativeLayerNorm  blocks.") for i in stale), \
    "the page says the red rows are the blocks' LayerNorms"
glue("t04_graph_rows", len(labels))
glue_figure("t04_graph", _graph_figure)
