# A picture of the backward graph, drawn with matplotlib at build time: the nodes top to
# bottom in execution order, each edge an arc on the left (the long arcs are the residual
# skips). Run B's graph has the same shape; its stale saved tensors are marked in red.
import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from IPython.display import Image
from matplotlib.patches import Arc
from myst_nb import glue

from minigpt.data import build_dataset, probe_batch
from minigpt.graph import graph_nodes
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)


def walk(inplace):
    """(functions in execution order, edges between them, labels, positions of stale nodes)."""
    model = build_model(model_config(data, inplace=inplace), seed=0)
    _, loss = model(x, y)
    owner = {id(p): name.rsplit(".", 1)[0] for name, p in model.named_parameters()}
    nodes = [n for n in graph_nodes(loss.grad_fn) if not hasattr(n, "variable")]  # no AccumulateGrad
    nodes.sort(key=lambda n: n._sequence_nr(), reverse=True)  # the engine's order (shown on the page)
    row = {node: i for i, node in enumerate(nodes)}
    edges = [(row[n], row[m]) for n in nodes for m, _ in n.next_functions if m in row]
    labels, stale = [], set()
    for node in nodes:
        params = [m.next_functions[0][0] if m is not None and m.name() == "TBackward0" else m
                  for m, _ in node.next_functions]
        module = next((owner[id(p.variable)] for p in params if hasattr(p, "variable")), "")
        labels.append(node.name().removesuffix("Backward0").removesuffix("Backward1") +
                      (f"  {module}" if module else ""))
        for slot in (s for s in dir(node) if s.startswith("_saved_")):
            try:
                getattr(node, slot)
            except RuntimeError as exc:
                if re.search(r"modified by an inplace operation", str(exc)):
                    stale.add(row[node])
    return nodes, edges, labels, stale


nodes, edges, labels, _ = walk(inplace=False)
nodes_b, edges_b, labels_b, stale = walk(inplace=True)
assert edges == edges_b and labels == labels_b, "A and B should have graphs of the same shape"
first_stale = min(stale)

KINDS = {"NativeLayerNorm": "tab:blue", "Add ": "tab:green", "Addmm": "tab:purple", "Mm ": "tab:purple",
         "Bmm": "tab:orange"}


ARC = 0.035  # arc width per row spanned


def color(label):
    return next((c for k, c in KINDS.items() if (label + " ").startswith(k)), "0.55")


fig, ax = plt.subplots(figsize=(6.4, 0.14 * len(nodes) + 1.0), layout="constrained")
for a, b in edges:
    top, bottom = min(a, b), max(a, b)
    skip = labels[a] == labels[b] == "Add"  # one residual add feeding the one before it
    ax.add_patch(Arc((0, (top + bottom) / 2), width=ARC * (bottom - top), height=bottom - top,
                     theta1=90, theta2=270, color="tab:green" if skip else "0.7",
                     linewidth=1.0 if skip else 0.5))
for i, label in enumerate(labels):
    ax.plot(0, i, "o", markersize=3.5, color=color(label))
    important = (label + " ").startswith(("NativeLayerNorm", "Add ", "Addmm", "Mm ", "NllLoss", "Embedding"))
    weight = "bold" if i in stale else "normal"
    text_color = "tab:red" if i in stale else ("black" if important else "0.45")
    suffix = ("  <- stale in B: backward raises here" if i == first_stale
              else "  <- stale in B" if i in stale else "")
    ax.text(0.06, i, f"{i:>3}  {label}{suffix}", va="center", fontsize=7, family="monospace",
            color=text_color, fontweight=weight)
ax.legend(handles=[plt.Line2D([], [], marker="o", linestyle="", color=c, label=k.strip())
                   for k, c in KINDS.items()], loc="lower right", fontsize=7, title="node", title_fontsize=7)
ax.set_xlim(-ARC * max(b - a for a, b in edges) / 2 - 0.05, 3.0)
ax.set_ylim(len(nodes), -1)
ax.axis("off")
ax.set_title("mini-GPT backward graph, execution order top to bottom\n"
             "green arcs: residual skips; red: saved input stale in run B (h.add_)", fontsize=9)
buffer = io.BytesIO()
fig.savefig(buffer, format="png", dpi=110)
plt.close(fig)
glue("t04_graph", Image(data=buffer.getvalue()), display=False)
glue("t04_graph_rows", len(nodes), display=False)
print(f"{len(nodes)} backward functions drawn, {len(edges)} edges; stale in B at rows {sorted(stale)}")
