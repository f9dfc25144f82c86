from minigpt.graph import graph_nodes, module_names, probe_loss, stale_saved

model, loss = probe_loss(inplace=True)  # h.add_(...)
nodes = graph_nodes(loss.grad_fn)
modules = module_names(nodes, model)
# en: read before the backward pass frees them
# es: leídos antes de que la pasada hacia atrás los libere
stale, valid = stale_saved(nodes)
first = max(stale, key=lambda s: s["node"]._sequence_nr())["node"]
running = []
for node in nodes:
    node.register_prehook(lambda grad_outputs, node=node: running.append(node))
try:
    loss.backward()
except RuntimeError as exc:
    message = str(exc)
# en: the nodes that completed, AccumulateGrad left out
# es: los nodos que terminaron, sin AccumulateGrad
done = [n for n in running[:-1] if not hasattr(n, "variable")]
print(f"running[-1]: {modules.get(running[-1], '?')} "
      f"({running[-1].name()}); len(done) = {len(done)}")
print(f"{running[-1] is first = }")
print(message.split(" Hint:")[0])


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue

from minigpt import message as error_message

assert running[-1] is first, "the page says the real backward raises at the first stale node"
first_stale = next(s for s in stale if s["node"] is first)
parts = error_message.parts(message)
assert (int(parts["version_expected"]), int(parts["version_now"])) == (first_stale["saved_at"], first_stale["now"]), \
    "the page says the message quotes the same versions"
glue("t04_ran_before", len(done))
