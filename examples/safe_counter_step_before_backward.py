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
print("loss_first.backward(); optimizer.step(): ✓")
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

# A fused step bumps no version (review M1): the same program with fused=True raises nothing and
# gives other gradients than with no step in between (tests/test_lesson_shape.py: which optimizers).
from minigpt.compare import identical
from minigpt.train import gradients


def second_gradients(step):
    model = build_model(model_config(data), seed=0)
    first, second = model(x, y)[1], model(x, y)[1]
    first.backward()
    before = [p._version for p in model.parameters()]
    if step:
        torch.optim.SGD(model.parameters(), lr=0.1, fused=True).step()
    assert [p._version for p in model.parameters()] == before, "the page says a fused step bumps no version"
    model.zero_grad()
    second.backward()
    return gradients(model)


assert not identical(second_gradients(False), second_gradients(True)), "the page says its gradients are wrong"
