# Run B under torch.autograd.graph.save_on_cpu(), the memory-saving context
# built on saved-tensor hooks. Its pack hook keeps tensor.cpu(): for a CPU
# tensor that is the tensor itself, a reference, as with identity hooks. With
# pin_memory=True it copies the tensor at save time instead.
import torch

from minigpt.compare import compare_gradients, identical, summary_line
from minigpt.data import build_dataset
from minigpt.train import build_model, model_config, probe_gradients

data = build_dataset()
_, grads_a = probe_gradients(build_model(model_config(data), seed=0), data)
equal = {}
for pin_memory in (False, True):
    model_b = build_model(model_config(data, inplace=True), seed=0)
    with torch.autograd.graph.save_on_cpu(pin_memory=pin_memory):
        _, grads_b = probe_gradients(model_b, data)  # no error either way
    rows = compare_gradients(grads_a, grads_b)
    print(f"save_on_cpu(pin_memory={pin_memory}): backward completed")
    equal[pin_memory] = identical(grads_a, grads_b)
    print("  gradients bitwise equal to run A's:", equal[pin_memory])
    print("  " + summary_line(rows))


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert equal == {False: False, True: True}, \
    "the page says: a reference (wrong gradients) without pin_memory, a copy (run A's) with it"
