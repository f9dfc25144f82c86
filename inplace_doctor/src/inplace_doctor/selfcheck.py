"""The diagnoser end to end on what users write: the ``diagnose-works`` probe, registered last in
``torch_private.PROBES`` when this module is imported (``import inplace_doctor.selfcheck``; the
package itself imports nothing until asked).

Each part runs a small program under one of the three tools (the command, ``watch()``,
``diagnose(fn)``) and says whether the finding is the expected one.
"""

import contextlib
import os
import tempfile
from collections.abc import Callable

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

from . import torch_private as tp
from .diagnoser import diagnose
from .findings import DETACHED, HOOKS_SKIP_CHECK, RAISES, REFUSED
from .runner import Options, run_script
from .watching import watch

GATED_MLP = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Sigmoid(), nn.ReLU(inplace=True), nn.Linear(16, 1))
loss = model(torch.randn(4, 8)).pow(2).mean()
loss.backward()
"""


def command_names_the_line_that_built_the_module() -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "gated_mlp.py")
        with open(path, "w", encoding="utf-8") as file:
            file.write(GATED_MLP)
        outcome = run_script(Options(path, [], steps=1))
    findings = outcome.report.findings
    built = [
        f.write.location.built.line
        for f in findings
        if f.write is not None and f.write.location is not None and f.write.location.built is not None
    ]
    holds = (
        outcome.status == 1 and [(f.node, f.check) for f in findings] == [("SigmoidBackward0", RAISES)] and built == [5]
    )
    return holds, f"the command: exit status {outcome.status}, {outcome.report.summary()}, built at line(s) {built}"


def _rnn_loop(offload: bool) -> None:
    torch.manual_seed(0)
    cell, readout = nn.RNNCell(4, 8), nn.Linear(8, 1)
    with torch.autograd.graph.save_on_cpu() if offload else contextlib.nullcontext():
        h = torch.zeros(2, 8)
        for x in torch.randn(3, 2, 4):
            h += cell(x, h)
        loss = readout(h).pow(2).mean()
    loss.backward()


def watch_finds_a_state_written_in_place() -> tuple[bool, str]:
    raised = None
    try:
        with watch(quiet=True):
            _rnn_loop(offload=False)
    except RuntimeError as error:
        raised = error
    with watch(quiet=True) as offloaded:
        _rnn_loop(offload=True)
    checks = {f.check for f in offloaded.report.findings}
    holds = raised is not None and "overwrote" in str(raised) and checks == {HOOKS_SKIP_CHECK}
    return holds, (
        f"watch(): the loop raised with the finding {raised is not None and 'overwrote' in str(raised)}; "
        f"under save_on_cpu {offloaded.report.summary()}"
    )


def _expect(name: str, program: Callable[[], None], check: str) -> tuple[bool, str]:
    report = diagnose(program)
    holds = check in {f.check for f in report.findings} and report.raised is not None
    return holds, f"{name}: {report.summary()}"


def _detached() -> None:
    encoder, head = nn.Linear(8, 16), nn.Linear(16, 1)
    h = encoder(torch.randn(4, 8))
    prediction = head(h)
    h.detach_()
    prediction.sum().backward()


def _checkpoint_input_written() -> None:
    embed, block = nn.Linear(8, 16), nn.Sequential(nn.Linear(16, 16), nn.Tanh())
    h = embed(torch.randn(4, 8))
    y = checkpoint(block, h, use_reentrant=False)
    h.mul_(0.5)
    (y + h).sum().backward()


def _step_between_two_backward() -> None:
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    out = model(torch.randn(4, 8))
    out.pow(2).mean().backward(retain_graph=True)
    opt.step()
    out.abs().mean().backward()


def _parameter_updated_outside_no_grad() -> None:
    w = torch.randn(8, 1, requires_grad=True)
    (torch.randn(4, 8) @ w).pow(2).mean().backward()
    w -= 0.1 * w.grad  # type: ignore[operator]


@tp.probe(
    "diagnose-works",
    "inplace_doctor works end to end: the command names the line that built an nn.ReLU(inplace=True) "
    "that overwrote a sigmoid's saved output; watch() finds an RNN state written in place (silent under "
    "save_on_cpu); diagnose(fn) finds a saved tensor detached in place, a checkpointed block's input "
    "written, an optimizer step between two backward passes, a parameter update PyTorch refuses.",
    requires=[
        tp.SEQUENCE_NR,
        tp.HOOKS_STACK,
        tp.DISABLE_DISPATCH,
        tp.DISPATCH_MODE,
        tp.CUSTOM_FUNCTION_NODE,
        tp.UNTYPED_STORAGE,
        tp.SAVED_TENSOR_DATA,
    ],
)
def on_what_users_write() -> tuple[bool, str]:
    """Whether every part holds, and what each saw."""
    parts = [
        command_names_the_line_that_built_the_module(),
        watch_finds_a_state_written_in_place(),
        _expect("detach_", _detached, DETACHED),
        _expect("checkpoint", _checkpoint_input_written, RAISES),
        _expect("step between two backward passes", _step_between_two_backward, RAISES),
        _expect("a refused update", _parameter_updated_outside_no_grad, REFUSED),
    ]
    return all(holds for holds, _ in parts), "; ".join(seen for _, seen in parts)
