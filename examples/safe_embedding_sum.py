# Safe: tok_emb += pos_emb, the mini-GPT's first line written in place. The
# embedding saved the token indices, not its output; the sum saves nothing. The
# rest is the mini-GPT's own forward.
import torch
import torch.nn.functional as F

from minigpt.compare import identical
from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data), seed=0)


def gradients(inplace):
    h = model.tok_emb(x)
    if inplace:
        h += model.pos_emb(torch.arange(x.size(1)))
    else:
        h = h + model.pos_emb(torch.arange(x.size(1)))
    for block in model.blocks:
        h = block(h)
    logits = model.head(model.ln_f(h))
    F.cross_entropy(logits.view(-1, logits.size(-1)), y.reshape(-1),
                    ignore_index=-1).backward()
    grads = {name: p.grad for name, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    return grads


def saved(node):
    return {n.removeprefix("_saved_"): list(getattr(node, n).shape)
            for n in dir(node)
            if n.startswith("_saved_")
            and isinstance(getattr(node, n), torch.Tensor)}


lookup = model.tok_emb(x).grad_fn
print(lookup.name(), "saved", saved(lookup), "(the token indices)")
out_of_place, in_place = gradients(False), gradients(True)
same = identical(out_of_place, in_place)
print(f"mini-GPT probe batch, {len(in_place)} parameter gradients "
      f"bitwise equal: {same}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert list(saved(lookup)) == ["indices"], "the page says the lookup saved the token indices"
