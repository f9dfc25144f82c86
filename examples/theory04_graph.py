# The backward graph as the page's figure draws it: the backward functions in execution order
# (one row each, AccumulateGrad left out), the edges between rows, a label per row, and the rows
# whose saved input is stale in run B (h.add_), read with the same check backward performs.
import re

from minigpt.data import build_dataset, probe_batch
from minigpt.graph import graph_nodes
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)


def walk(inplace):
    """(functions in execution order, edges between them, labels, rows of stale nodes)."""
    model = build_model(model_config(data, inplace=inplace), seed=0)
    _, loss = model(x, y)
    owner = {id(p): name.rsplit(".", 1)[0] for name, p in model.named_parameters()}
    nodes = [n for n in graph_nodes(loss.grad_fn) if not hasattr(n, "variable")]  # no AccumulateGrad
    nodes.sort(key=lambda n: n._sequence_nr(), reverse=True)  # the engine's order (theory04_walk)
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
first_stale = min(stale)  # the first row backward reaches
print(f"{len(nodes)} backward functions, {len(edges)} edges")
print("A and B have graphs of the same shape:", edges == edges_b and labels == labels_b)
for i in sorted(stale):
    print(f"stale in B: row {i:>3}  {labels[i]}")
