import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.graph import saved_log, saved_log_table
from minigpt.train import build_model, model_config

data = build_dataset()
x, _ = probe_batch(data)


def block_log(inplace):
    # en: saved_log of blocks[0], and its input h after the forward pass
    # es: el saved_log de blocks[0], y su entrada h tras la pasada hacia delante
    model = build_model(model_config(data, inplace=inplace), seed=0)
    h = model.tok_emb(x) + model.pos_emb(torch.arange(x.size(1)))
    return saved_log(model.blocks[0], h), h


log_a, h_a = block_log(inplace=False)
log_b, h_b = block_log(inplace=True)
same_slots = ([(e["node"], e["shape"]) for e in log_a]
              == [(e["node"], e["shape"]) for e in log_b])
print(f"{len(log_a) = }, {same_slots = }\n")
print(saved_log_table(log_a, log_b))
print(f"\n{h_a._version = }, {h_b._version = }")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import LANGUAGES, glue, glue_words

assert same_slots, "the page says A and B save the same slots"
in_h_a = [e["module"] for e in log_a if e["memory_of_h"]]
assert in_h_a == ["ln1"] and h_a._version == 0, "the page says in run A only ln1 keeps h's memory"
in_h = [(i, e) for i, e in enumerate(log_b) if e["memory_of_h"]]
assert [e["module"] for _, e in in_h] == ["ln1", "ln2"], "the page says both LayerNorms keep h in B"
assert all(e["version"] < h_b._version for _, e in in_h), "the page says neither saved value is left"
weights = [e for e in log_a if e["node"].endswith((".weight", ".bias", ".mat2")) and e["module"] != "attn"]
assert weights and all(e["version"] >= 1 for e in weights), "the page says parameters start past 0"
# The block saves one tensor more than the hooks see: the division by √d keeps a wrapped scalar
# without calling them (review F1). Count every saved tensor slot of the block's own graph.
from minigpt.graph import graph_nodes, saved_tensors

model = build_model(model_config(data), seed=0)
h_in = (model.tok_emb(x) + model.pos_emb(torch.arange(x.size(1)))).detach().requires_grad_()
slots = sum(len(saved_tensors(node)) for node in graph_nodes(model.blocks[0](h_in).grad_fn))
assert slots == len(log_a) + 1, "the page says the block saves one tensor more than the hooks log"
glue("t02_n_saved", len(log_a))
glue("t02_n_slots", slots)
glue("t02_b_h_final", h_b._version)
slot = {"es": "#{i}, versión {v}", "en": "#{i}, version {v}"}
joined = {"es": " y ", "en": " and "}
glue_words("t02_b_h_slots", {
    language: joined[language].join(f"{e['module']} ({slot[language].format(i=i, v=e['version'])})"
                                    for i, e in in_h)
    for language in LANGUAGES})
