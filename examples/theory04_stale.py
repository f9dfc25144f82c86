# The same walk for run B (h.add_(...)): read every saved tensor the way
# backward will, mark the stale ones, and find which one backward meets first.
import re

import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.graph import graph_nodes, module_names, saved_slots
from minigpt.train import build_model, model_config

VERSIONS = re.compile(r"is at version (\d+); expected version (\d+) instead")

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
logits, loss = model(x, y)


nodes = graph_nodes(loss.grad_fn)
modules = module_names(nodes, model)
stale, fresh, valid_in_h = [], 0, []
for node in nodes:
    for slot in saved_slots(node):
        try:
            # the same checked unpack backward performs
            value = getattr(node, slot)
        except RuntimeError as exc:
            now, expected = map(int, VERSIONS.search(str(exc)).groups())
            # the tensor itself, without the check
            raw = getattr(node, "_raw" + slot).data
            stale.append(dict(node=node, slot=slot.removeprefix("_saved_"),
                              shape=list(raw.shape), saved_at=expected, now=now,
                              memory=raw.untyped_storage().data_ptr()))
            continue
        if isinstance(value, torch.Tensor):
            fresh += 1
            valid_in_h.append((node, slot.removeprefix("_saved_"), value))

# the engine's order
stale.sort(key=lambda s: s["node"]._sequence_nr(), reverse=True)
h_memory = {s["memory"] for s in stale}
valid_in_h = [v for v in valid_in_h
              if v[2].untyped_storage().data_ptr() in h_memory]
print(f"saved tensors: {fresh} valid, {len(stale)} stale, all {len(stale)} in "
      f"{len(h_memory)} memory block (the residual stream h)\n")
print(f"{'#':>2}  {'module':<15}{'node.slot':<32}{'shape':<14}"
      "version saved -> now")
for i, s in enumerate(stale, 1):
    print(f"{i:>2}  {modules[s['node']]:<15}"
          f"{s['node'].name() + '.' + s['slot']:<32}"
          f"{str(s['shape']):<14}{s['saved_at']} -> {s['now']}")
for node, slot, value in valid_in_h:
    print(f"valid, same memory: {modules[node]} {node.name()}.{slot}, "
          f"saved at version {value._version}")

# Why that one first: it was created last among them, and every other stale
# node lies upstream of it (reachable through its next_functions), so none can
# run before it has.
first = stale[0]["node"]
upstream = graph_nodes(first)
print(f"\nfirst stale node met by backward: {modules[first]} ({first.name()})")
print("every other stale node is upstream of it:",
      all(s["node"] in upstream for s in stale[1:]))

# Check against the real backward: the node running when the error is raised.
running = []
for node in nodes:
    node.register_prehook(lambda grad_outputs, node=node: running.append(node))
try:
    loss.backward()
except RuntimeError as exc:
    message = str(exc)
# AccumulateGrad nodes have .variable
done = [n for n in running[:-1] if not hasattr(n, "variable")]
print(f"the real backward raised in: {modules.get(running[-1], '?')} "
      f"({running[-1].name()}), after {len(done)} backward functions had run")
print("it is the first stale node:", running[-1] is first)
print(message.split(" Hint:")[0])


# %% hidden checks: what the page says of this example, and the values its prose quotes

from book.checks import glue

from book import message as error_message

assert len(h_memory) == 1, "the page says every stale tensor lives in h's memory"
assert all(modules[s["node"]].startswith("blocks.") and s["node"].name() == "NativeLayerNormBackward0"
           and s["slot"] == "input" for s in stale), "the page says the stale ones are the blocks' LayerNorm inputs"
assert [modules[n] for n, _, _ in valid_in_h] == ["ln_f"], "the page says ln_f's input is valid"
assert all(s["node"] in upstream for s in stale[1:]), "the page says the others are upstream"
assert running[-1] is first, "the page says the real backward raises at the first stale node"
parts = error_message.parts(message)
assert (int(parts["version_expected"]), int(parts["version_now"])) == (stale[0]["saved_at"], stale[0]["now"]), \
    "the page says the message quotes the same versions"
assert stale[0]["now"] - stale[0]["saved_at"] == 1, "the page says one add_ came after it"
glue("t04_stale_count", len(stale))
glue("t04_fresh_count", fresh)
glue("t04_first_module", modules[first])
glue("t04_first_saved", stale[0]["saved_at"])
glue("t04_first_now", stale[0]["now"])
glue("t04_ran_before", len(done))
