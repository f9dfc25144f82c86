# Run B (h.add_(...)): read every saved tensor of the graph the way backward
# will, through the version check, and list the ones that fail.
import torch

from minigpt.graph import (graph_nodes, module_names, probe_loss, saved_slots,
                           stale_entry, stale_table)

# the model and the batch of the walk above, with h.add_(...)
model, loss = probe_loss(inplace=True)
nodes = graph_nodes(loss.grad_fn)
stale, valid = [], []
for node in nodes:
    for slot in saved_slots(node):
        try:
            value = getattr(node, slot)  # the same checked read as backward's
        except RuntimeError as exc:
            # versions from the message, the tensor's memory from the raw slot
            stale.append(stale_entry(node, slot, exc))
            continue
        if isinstance(value, torch.Tensor):
            valid.append((node, slot.removeprefix("_saved_"), value))

# the order the engine meets them: decreasing sequence number
stale.sort(key=lambda s: s["node"]._sequence_nr(), reverse=True)
modules = module_names(nodes, model)
print(stale_table(stale, valid, modules))


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue

h_memory = {s["memory"] for s in stale}
valid_in_h = [(node, slot) for node, slot, value in valid if value.untyped_storage().data_ptr() in h_memory]
assert len(h_memory) == 1, "the page says every stale tensor lives in h's memory"
assert all(modules[s["node"]].startswith("blocks.") and s["node"].name() == "NativeLayerNormBackward0"
           and s["slot"] == "input" for s in stale), "the page says the stale ones are the blocks' LayerNorm inputs"
assert [modules[n] for n, _ in valid_in_h] == ["ln_f"], "the page says ln_f's input is valid"
assert all(s["saved_at"] < s["now"] for s in stale), "the page says each was saved before a later add_"
glue("t04_stale_count", len(stale))
glue("t04_fresh_count", len(valid))
