# Log every tensor one block of the mini-GPT saves for backward, with
# saved_tensors_hooks: which module saved it, for which node, its shape and its
# version at save time. The same block runs twice from the same weights:
# h = h + ... (A) and h.add_(...) (B).
import torch
from torch.autograd.graph import saved_tensors_hooks

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, _ = probe_batch(data)


def saved_log(inplace):
    """[entry] in save order for blocks[0], and the block's input h after the
    forward."""
    model = build_model(model_config(data, inplace=inplace), seed=0)
    block = model.blocks[0]
    # the block's input
    h = model.tok_emb(x) + model.pos_emb(torch.arange(x.size(1)))
    log, running, read = [], ["block"], {}

    def pack(t):  # called once for every tensor a node saves
        log.append(dict(module=running[-1], shape=list(t.shape),
                        version=t._version, tensor=t,
                        memory_of_h=(t.untyped_storage().data_ptr()
                                     == h.untyped_storage().data_ptr())))
        return len(log) - 1

    def unpack(i):
        read["entry"] = i
        return log[i]["tensor"]

    def enter(module, args):
        running.append(names[module])

    def leave(module, args, output):
        running.pop()

    names = {module: name for name, module in block.named_modules() if name}
    for module in names:  # which submodule is running: a stack of names
        module.register_forward_pre_hook(enter)
        module.register_forward_hook(leave)
    with saved_tensors_hooks(pack, unpack):
        out = block(h)
    # Which node saved each entry: read every _saved_* slot of the graph and
    # see what unpacks.
    seen, stack = set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack += [next_node for next_node, _ in node.next_functions]
        for slot in (n for n in dir(node) if n.startswith("_saved_")):
            read.clear()
            getattr(node, slot)
            if "entry" in read:
                log[read["entry"]]["node"] = (
                    f"{node.name()}.{slot.removeprefix('_saved_')}")
    return log, h


log_a, h_a = saved_log(inplace=False)
log_b, h_b = saved_log(inplace=True)
same_slots = ([(e["node"], e["shape"]) for e in log_a]
              == [(e["node"], e["shape"]) for e in log_b])

print(f"{len(log_a)} tensors saved by one block's forward; "
      f"the same slots in A and B: {same_slots}\n")
print(f"{'#':>2}  {'module':<10}{'node.slot':<34}{'shape':<18}"
      f"{'version at save':>15}  memory of h")
print(f"{'':>2}  {'':<10}{'':<34}{'':<18}{'A':>7}{'B':>8}  {'A':>5}{'B':>6}")
for i, (a, b) in enumerate(zip(log_a, log_b)):
    mark = lambda e: "yes" if e["memory_of_h"] else "-"
    print(f"{i:>2}  {a['module']:<10}{a['node']:<34}{str(a['shape']):<18}"
          f"{a['version']:>7}{b['version']:>8}  {mark(a):>5}{mark(b):>6}")
print(f"\nafter the forward, h is at version {h_a._version} in A "
      f"and {h_b._version} in B")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from book.checks import LANGUAGES, glue, glue_words

assert same_slots, "the page says A and B save the same slots"
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
glue_words("t02_b_h_slots", {
    language: joined[language].join(f"{e['module']} ({slot[language].format(i=i, v=e['version'])})"
                                    for i, e in in_h)
    for language in LANGUAGES})
