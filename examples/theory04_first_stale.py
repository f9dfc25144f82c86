from minigpt.graph import graph_nodes, module_names, probe_loss, stale_saved

model, loss = probe_loss(inplace=True)  # h.add_(...)
nodes = graph_nodes(loss.grad_fn)
modules = module_names(nodes, model)
# en: the reading above, as a function
# es: la lectura de arriba, como función
stale, valid = stale_saved(nodes)
# en: creation order
# es: orden de creación
stale.sort(key=lambda s: s["node"]._sequence_nr())
stale_modules = [modules[s["node"]] for s in stale]
print(f"{stale_modules = }")
first = stale[-1]["node"]
upstream = graph_nodes(first)
print(f"modules[first] = {modules[first]}: "
      f"saved_at = {stale[-1]['saved_at']}, now = {stale[-1]['now']}")
upstream_of_first = all(s["node"] in upstream for s in stale[:-1])
print(f"{upstream_of_first = }")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue

assert all(s["node"] in upstream for s in stale[:-1]), "the page says the others are upstream"
assert stale[-1]["now"] - stale[-1]["saved_at"] == 1, "the page says one add_ came after it"
assert modules[first] == f"blocks.{model.config.n_layer - 1}.ln2", \
    "the page says it is the LayerNorm of the last block's feed-forward"
glue("t04_first_module", modules[first])
glue("t04_first_saved", stale[-1]["saved_at"])
glue("t04_first_now", stale[-1]["now"])
