import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data), seed=0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

_, loss_first = model(x, y)
# en: a second graph, which saved the same parameters
# es: un segundo grafo, que guardó los mismos parámetros
_, loss_second = model(x, y)
loss_first.backward()
optimizer.step()
print("loss_first.backward(); optimizer.step(): ok")
loss_second.backward()  # RuntimeError


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt import message
from execbook import glue, raised

stale = message.parts(str(raised()))["tensor"]
head = list(model.head.weight.t().shape)
assert stale.endswith(f" {head}]".replace("'", "")) and "output 0 of AsStrided" in str(raised()), \
    "the page says the stale tensor is the head's weight, transposed (a view)"
glue("step_stale_tensor", stale)
glue("step_head_weight", str(list(model.head.weight.shape)))

# A fused step bumps no version (review M1): the same program with fused=True raises nothing, and
# the second backward pass gives other gradients than it does with no step in between. The
# default steps (for-loop and foreach) are counted.
def second_gradients(**options):
    model = build_model(model_config(data), seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, **options)
    _, first = model(x, y)
    _, second = model(x, y)
    first.backward()
    before = [p._version for p in model.parameters()]
    if options:
        optimizer.step()
    counted = [p._version for p in model.parameters()] != before
    optimizer.zero_grad()
    second.backward()
    return {name: p.grad for name, p in model.named_parameters()}, counted


from minigpt.compare import identical

right, _ = second_gradients()
fused, counted = second_gradients(fused=True)
assert not counted and not identical(right, fused), "the page says a fused step is silent and wrong"
for optimizer_class in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.Adagrad):
    for options, bumps in (({"fused": True}, False), ({"foreach": True}, True), ({"foreach": False}, True)):
        p = torch.nn.Parameter(torch.randn(4))
        p.grad = torch.ones(4)
        optimizer_class([p], lr=0.1, **options).step()
        assert (p._version > 0) == bumps, f"the pages say {optimizer_class.__name__} {options} bumps: {bumps}"
