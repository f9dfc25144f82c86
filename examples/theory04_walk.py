from minigpt.data import build_dataset, probe_batch
from minigpt.graph import graph_nodes, saved_tensors, walk_table
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data), seed=0)
logits, loss = model(x, y)

nodes = graph_nodes(loss.grad_fn)
saved = {node: saved_tensors(node) for node in nodes}
executed = []
# en: a pre-hook runs just before its node: it records the real order
# es: un pre-hook se ejecuta justo antes de su nodo: anota el orden real
for node in nodes:
    node.register_prehook(lambda grad_outputs, node=node: executed.append(node))
loss.backward()

accumulate = [n for n in executed
              if n.name() == "torch::autograd::AccumulateGrad"]
functions = [n for n in executed if n not in accumulate]
n_saved = sum(len(s) for s in saved.values())
by_sequence = sorted(functions, key=lambda n: n._sequence_nr(), reverse=True)
print(f"{len(executed) = }, {len(functions) = }, {len(accumulate) = }, "
      f"{n_saved = }")
print(f"{functions == by_sequence = }", end="\n\n")
print(walk_table(executed, saved, model))


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue

assert functions == by_sequence, "the page says the functions ran in reverse creation order"
assert set(executed) == set(nodes), "the page says backward ran every node"
assert len(accumulate) == len(list(model.parameters())), "the page says one AccumulateGrad per parameter"
glue("t04_nodes", len(executed))
glue("t04_functions", len(functions))
glue("t04_accumulate", len(accumulate))
glue("t04_saved", n_saved)
