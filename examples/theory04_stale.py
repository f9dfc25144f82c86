import torch

from minigpt.graph import (graph_nodes, module_names, probe_loss, saved_slots,
                           stale_entry, stale_table)

# en: the model and the batch of the walk above, with h.add_(...)
# es: el modelo y el lote del recorrido de arriba, con h.add_(...)
model, loss = probe_loss(inplace=True)
nodes = graph_nodes(loss.grad_fn)
stale, valid = [], []
for node in nodes:
    for slot in saved_slots(node):
        try:
            # en: the same checked read as the backward pass's
            # es: la misma lectura comprobada que la de la pasada hacia atrás
            value = getattr(node, slot)
        except RuntimeError as exc:
            # en: versions from the message, memory from the raw slot
            # es: versiones, del mensaje; memoria, de la ranura cruda
            stale.append(stale_entry(node, slot, exc))
            continue
        if isinstance(value, torch.Tensor):
            valid.append((node, slot.removeprefix("_saved_"), value))

# en: the order the engine meets them: decreasing sequence number
# es: el orden en que el motor los encuentra: número de secuencia decreciente
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
