"""The diagnosis: record one forward, walk its graph, match every saved slot, report."""

from dataclasses import dataclass, field

import torch
from torch.autograd.graph import saved_tensors_hooks

from .findings import match
from .graph import backward_nodes, slots_of, unreached_parameters
from .memory import tensors_in
from .recorder import Recorder, module_names


@dataclass
class Report:
    findings: list
    ops: int  # aten ops in the forward
    writes: int  # of which in-place writes
    saved: int  # saved slots inspected
    nodes: int  # backward nodes walked
    unreached: list = field(default_factory=list)  # parameters requiring grad the graph never reaches

    def summary(self):
        n = len(self.findings)
        silent = sum(f.silent for f in self.findings)
        return (f"{n} finding{'' if n == 1 else 's'}: {n - silent} caught by PyTorch's version check "
                f"at backward, {silent} silent")

    def __str__(self):
        lines = [f"one forward: {self.ops} aten ops, {self.writes} of them in-place writes; "
                 f"{self.saved} saved tensors in {self.nodes} backward nodes"]
        for i, finding in enumerate(self.findings, 1):
            lines.append(f"\n[{i}] {finding.describe()}")
        if self.unreached:
            shown = ", ".join(self.unreached[:4]) + (", ..." if len(self.unreached) > 4 else "")
            lines.append(f"\nnote: {len(self.unreached)} parameters that require grad are not in the "
                         f"backward graph and will get no gradient ({shown}); something cut them off "
                         "(a write through .data, a detach, an unused module)")
        lines.append("\n" + self.summary())
        return "\n".join(lines)


def diagnose(target, *args, **kwargs):
    """Run ``target(*args, **kwargs)`` once and report the in-place writes over saved tensors.

    ``target`` is a model (called with the batch) or any callable; every tensor it returns
    (a loss, ``(logits, loss)``, ...) is a root of the backward graph that is inspected.
    Returns a ``Report``; the outputs themselves are dropped with the graph.
    """
    recorder = Recorder(module_names(target))
    pre = torch.nn.modules.module.register_module_forward_pre_hook(recorder.enter_module)
    post = torch.nn.modules.module.register_module_forward_hook(recorder.leave_module, always_call=True)
    try:
        with saved_tensors_hooks(*recorder.hooks), recorder:
            outputs = target(*args, **kwargs)
            recorder.resolve_outputs()
            recorder.settle_inputs()
    finally:
        pre.remove()
        post.remove()
    nodes = backward_nodes(t.grad_fn for t in tensors_in(outputs) if t.grad_fn is not None)
    slots = [slot for node in nodes for slot in slots_of(node)]
    writing_ops = [op for op in recorder.ops if op.writes]
    findings = [f for f in (match(slot, recorder.ops, writing_ops) for slot in slots) if f is not None]
    findings.sort(key=lambda f: (f.write.index if f.write else len(recorder.ops), f.node, f.attribute))
    return Report(findings, len(recorder.ops), len(writing_ops), len(slots), len(nodes),
                  unreached_parameters(target, nodes))
