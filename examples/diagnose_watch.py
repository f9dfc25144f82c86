import torch
import torch.nn as nn

from inplace_doctor import watch

torch.manual_seed(0)
cell = nn.RNNCell(input_size=4, hidden_size=8)
readout = nn.Linear(8, 1)
xs, target = torch.randn(5, 2, 4), torch.randn(2, 1)

with watch() as watched:
    h = torch.zeros(2, 8)
    for x_t in xs:
        h = h + cell(x_t, h)
    loss = nn.functional.mse_loss(readout(h), target)
    loss.backward()
print(f"loss.item(): {loss.item():.4f}; "
      f"cell.weight_hh.grad.norm(): {cell.weight_hh.grad.norm():.4f}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue_number
from inplace_doctor import diagnose

assert not watched.report.findings, "the page says the fixed loop has no finding"
fixed_norm = cell.weight_hh.grad.norm().item()
glue_number("rnn_fixed_norm", fixed_norm, ".4f")


def broken_loop():
    h = torch.zeros(2, 8)
    for x_t in xs:
        h += cell(x_t, h)
    nn.functional.mse_loss(readout(h), target).backward()


cell.zero_grad()
with torch.autograd.graph.save_on_cpu():  # the silent run of rnn_state.py --offload, same weights
    broken_loop()
assert abs(cell.weight_hh.grad.norm().item() - fixed_norm) > 1e-3, \
    "the page says the fixed loop's norm is not the silent run's"

raised = None
try:
    with watch(quiet=True):
        broken_loop()
except RuntimeError as error:
    raised = error
assert raised is not None and "overwrote" in str(raised) and "h += cell(x_t, h)" in str(raised), \
    "the page says the error raised inside watch() carries the finding"
chained = raised.__cause__
assert type(chained) is RuntimeError and "modified by an inplace operation" in str(chained), \
    "the error chained below is PyTorch's own RuntimeError, in PyTorch's words (inplace-doctor 0.4)"
try:
    broken_loop()
except RuntimeError as error:
    assert str(chained) == str(error), "the page says it is word for word what PyTorch raises alone"

# What runs otherwise under it: torch.func transforms run under plain autograd; a compiled function uncompiled
w = torch.randn(3, requires_grad=True)


def gated_sum(v):
    s = v.sigmoid()
    s.mul_(2)
    return s.sum()


assert not diagnose(lambda: (w * torch.func.grad(lambda v: v.sin().sum())(torch.randn(3))).sum()).findings
func_report = diagnose(lambda: torch.func.grad(gated_sum)(torch.randn(3)))
assert func_report.findings and "s.mul_(2)" in str(func_report), \
    "the page says torch.func transforms run under plain autograd, where the write is named at its line"
compiled_calls = []


def counting_backend(graph, example_inputs):
    compiled_calls.append(graph)
    return graph.forward


diagnose(lambda: torch.compile(lambda v: (v.exp() * w).sum(), backend=counting_backend)(torch.randn(3)))
assert not compiled_calls, "the page says a torch.compile'd function runs uncompiled under it"
assert diagnose(broken_loop).findings, "the page says diagnose(fn) finds it in a function that runs backward"
