import torch

from minigpt.compare import identical
from minigpt.data import build_dataset
from minigpt.train import build_model, model_config, probe_gradients

data = build_dataset()
_, grads_a = probe_gradients(build_model(model_config(data), seed=0), data)
hooks = model_config(data, inplace=True, bypass="hooks")
_, grads_hooks = probe_gradients(build_model(hooks, seed=0), data)
equal, like_hooks = {}, {}
for pin_memory in (False, True):
    model_b = build_model(model_config(data, inplace=True), seed=0)
    with torch.autograd.graph.save_on_cpu(pin_memory=pin_memory):
        # en: no error either way
        # es: ningún error en los dos casos
        _, grads_b = probe_gradients(model_b, data)
    print(f"save_on_cpu(pin_memory={pin_memory}): backward() ✓")
    equal[pin_memory] = identical(grads_a, grads_b)
    like_hooks[pin_memory] = identical(grads_hooks, grads_b)
    print("  identical(grads_a, grads_b):", equal[pin_memory])
    print("  identical(grads_hooks, grads_b):", like_hooks[pin_memory])


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert equal == {False: False, True: True}, \
    "the page says: a reference (wrong gradients) without pin_memory, a copy (run A's) with it"
assert like_hooks[False], "the page says save_on_cpu does what bypass=hooks does on the CPU"

# Fix 3 is built on the same hooks: inside allow_mutation_on_saved_tensors a pair is in force
from inplace_doctor.torch_private import innermost_saved_tensors_hooks

with torch.autograd.graph.allow_mutation_on_saved_tensors():
    fix_3_hooks = innermost_saved_tensors_hooks()
assert fix_3_hooks is not None and innermost_saved_tensors_hooks() is None, \
    "the glossary says allow_mutation_on_saved_tensors is built on saved-tensor hooks"
