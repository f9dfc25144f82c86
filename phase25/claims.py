"""Every behaviour of PyTorch that the book's prose relies on, as a named check: a statement the pages
make and a check returning (holds, what was seen). The compatibility page evaluates every one while the
book is built (one that no longer holds stops it: "claim NAME no longer holds on torch VERSION: ..."),
`python -m phase25` records them per release. Checks only read results (phase25.experiments, the
safe cases' outcomes), computed once per code fingerprint. On a release outside the book's range
(`supported`) the claims are recorded all the same, but none is "broken": the book promises nothing there.
"""

import ast
import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

import inplace_doctor.selfcheck  # noqa: F401 (it registers the probe diagnose-works)
from execbook import REPO, code_fingerprint, excerpt, memoized, outcome
from inplace_doctor import diagnose
from inplace_doctor.findings import RAISES
from inplace_doctor.torch_private import NOT_APPLICABLE, PROBES, version
from minigpt import message
from minigpt import model as model_source
from minigpt.compare import compare_gradients, identical, worst_row
from minigpt.data import build_dataset, probe_batch
from minigpt.experiments import data, described, gradients, run_b
from minigpt.train import BackwardRaised, Gradients, build_model, default_device, model_config
from minigpt.train import gradients as gradients_of
from phase25 import compiled as compiling
from phase25 import safe_cases
from phase25.experiments import compiled
from phase25.releases import RECORDS
from phase25.releases import release as release_of
from phase25.releases import supported as supported_by_the_book


def release(version: str | None = None) -> str:
    """The installed torch's release ('2.13.0+cpu' -> '2.13.0'), or that of version."""
    return release_of(version or torch.__version__)


def supported(release_name: str | None = None) -> bool:
    """Is this release (default: the installed one) in the book's range (pyproject.toml)?"""
    return supported_by_the_book(release_name or release())


Verdict = tuple[bool, str]  # (holds, what was seen)
Check = Callable[[], Verdict]


@dataclass(frozen=True)
class Claim:
    name: str
    statement: str
    check: Callable[[], tuple[bool, str]]  # () -> (holds, what was seen)
    required: bool = True  # the prose relies on it on every release; else only recorded per release
    # it runs the mini-GPT on the device chosen (minigpt.train.use_device): `python -m phase25 record
    # --device cuda` measures these, and only these, on a GPU
    on_device: bool = False


@dataclass(frozen=True)
class Outcome:
    name: str
    holds: bool
    seen: str
    release: str | None = None  # where it was measured (default: the installed torch)

    @property
    def applicable(self) -> bool:
        return not self.seen.startswith(NOT_APPLICABLE)

    @property
    def broken(self) -> bool:
        """A required claim that does not hold on a release the book is built on: its prose would be false."""
        return (
            self.applicable
            and not self.holds
            and getattr(CLAIMS.get(self.name), "required", True)
            and supported(self.release)
        )

    def failure(self, torch_version: str | None = None) -> str:
        return f"claim {self.name} no longer holds on torch {torch_version or torch.__version__}: {self.seen}"


class ClaimBroken(AssertionError):
    """Claims that no longer hold on the installed torch: `reason` says which and who broke each, `todo` what to do."""

    def __init__(self, broken: list[Outcome], torch_version: str | None = None) -> None:
        self.broken = broken
        super().__init__("\n".join(o.failure(torch_version) for o in broken))
        blamed = [blame(o, torch_version or torch.__version__) for o in broken]
        self.reason = "\n".join(reason for reason, _ in blamed)
        self.todo = "; ".join(dict.fromkeys(todo for _, todo in blamed))


def blame(outcome: Outcome, version: str) -> tuple[str, str]:
    """(reason, what to do) of a broken claim: if the committed record of its release says it held, this
    checkout broke it, else torch did."""
    path = RECORDS / f"torch-{release_of(version)}.json"
    held = path.is_file() and json.loads(path.read_text("utf-8"))["claims"].get(outcome.name, {}).get("holds")
    if held:  # the same torch: this checkout is to blame, not the release
        return (
            f"claim {outcome.name} no longer holds with this checkout ({path.relative_to(REPO)} says it "
            f"held on torch {version}): {outcome.seen}",
            "undo that change, or change what the prose says and the claim (phase25/claims.py)",
        )
    return (
        f"claim {outcome.name} no longer holds on torch {version}: {outcome.seen}",
        f"torch {version} behaves differently: rewrite the prose and the claim, then re-record it with "
        f"nox -s \"drift(torch='{release_of(version)}')\"",
    )


CLAIMS: dict[str, Claim] = {}


def claim(name: str, statement: str, required: bool = True, on_device: bool = False) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        CLAIMS[name] = Claim(name, statement, check, required, on_device)
        return check

    return register


def on_device() -> list[str]:
    """The names of the claims that run the mini-GPT on the chosen device (Claim.on_device)."""
    return [name for name, c in CLAIMS.items() if c.on_device]


device = default_device  # where the claims' mini-GPT runs: "cpu", or what minigpt.train.use_device() chose


def _evaluate_now(name: str) -> Outcome:
    try:
        holds, seen = CLAIMS[name].check()
    except Exception as exc:  # a check that crashes is a claim that does not hold
        holds, seen = False, f"the check raised {type(exc).__name__}: {exc}"
    return Outcome(name, bool(holds), seen)


def evaluate(name: str) -> Outcome:
    """The claim's outcome, once per fingerprint of its code and thread count (kept in the build's store);
    a safe-case claim reads its case's outcome."""
    source = Path(inspect.getfile(CLAIMS[name].check))
    if name in CASE_CLAIMS or not source.is_file():  # not source: a check typed in a session
        return _evaluate_now(name)
    code = code_fingerprint(Path(__file__), source)
    return memoized("claim", f"{name}({described()})-{code}", lambda: _evaluate_now(name))


def evaluate_all(names: list[str] | None = None) -> dict[str, Outcome]:
    return {name: evaluate(name) for name in (names or CLAIMS)}


def require(outcomes: dict[str, Outcome], torch_version: str | None = None) -> None:
    """Raise ClaimBroken naming every claim that does not hold (one line each)."""
    if broken := [o for o in outcomes.values() if o.broken]:
        raise ClaimBroken(broken, torch_version)


# --- breaks/25-inplace-autograd: the symptom


@claim("forward-identical", "Run A and run B give bitwise-identical forward outputs.", on_device=True)
def _forward_identical() -> Verdict:
    x, y = probe_batch(data())
    a, b = (build_model(model_config(data(), inplace=inplace), seed=0)(x, y)[0] for inplace in (False, True))
    return torch.equal(a, b), "bitwise equal" if torch.equal(a, b) else "the logits differ"


def _raises(anomaly: bool) -> Verdict:
    if (failure := run_b(anomaly)) is None:
        return False, "backward completed without an error"
    parts = message.parts(failure.error)
    holds = message.CORE in failure.error and parts["version_now"] and parts["version_expected"]
    return bool(holds), excerpt(failure.error, width=300)


claim(
    "b-raises-without-anomaly",
    "Run B's backward raises the version-counter RuntimeError with anomaly detection off.",
    on_device=True,
)(lambda: _raises(anomaly=False))


claim(
    "b-raises-with-anomaly",
    "Run B's backward raises the version-counter RuntimeError with anomaly detection on.",
    on_device=True,
)(lambda: _raises(anomaly=True))


@claim(
    "anomaly-changes-only-the-hint",
    "With anomaly detection off and on, run B's message is the same up to its Hint, and the Hints differ.",
    on_device=True,
)
def _anomaly_changes_only_the_hint() -> Verdict:
    off, on = run_b(False), run_b(True)
    if off is None or on is None:
        return False, "run B did not raise in both modes"
    same_core = message.before_hint(off.error) == message.before_hint(on.error)
    hints = message.parts(off.error)["hint"], message.parts(on.error)["hint"]
    return same_core and hints[0] != hints[1], f"same up to the Hint: {same_core}; Hints: {hints}"


def residual_adds() -> list:
    """The lines of Block.forward's in-place residual adds (`h.add_(...)` under `if self.inplace:`), in order."""
    tree = ast.parse(Path(model_source.__file__).read_text("utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Block")
    forward = next(n for n in block.body if isinstance(n, ast.FunctionDef) and n.name == "forward")
    run_b = next(
        n
        for n in ast.walk(forward)
        if isinstance(n, ast.If) and isinstance(n.test, ast.Attribute) and n.test.attr == "inplace"
    )
    return sorted(
        node.lineno
        for statement in run_b.body
        for node in ast.walk(statement)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_"
        and getattr(node.func.value, "id", None) == "h"
    )


def anomaly_points_at(warnings: list) -> str | None:
    """Which statement of the model anomaly mode's forward traceback ends on: "residual add k of n"
    (Block.forward's in-place adds, counted in source order), else the line's code, else None."""
    if (found := message.forward_frame(warnings, "minigpt/model.py")) is None:
        return None
    adds = residual_adds()
    return f"residual add {adds.index(found[0]) + 1} of {len(adds)}" if found[0] in adds else found[1]


@claim(
    "anomaly-traceback-names-layernorm",
    "Only with anomaly detection on does a warning show the forward traceback; it names a LayerNorm "
    "backward node and points at the block's last in-place residual add.",
    on_device=True,
)
def _anomaly_traceback_names_layernorm() -> Verdict:
    off, on = run_b(False), run_b(True)
    if off is None or on is None:
        return False, "run B did not raise in both modes"
    node = message.anomaly_node(on.warnings)
    points_at = anomaly_points_at(on.warnings)
    last = f"residual add {len(residual_adds())} of {len(residual_adds())}"
    holds = not off.warnings and node is not None and "LayerNorm" in node and points_at == last
    return holds, f"warnings off/on: {len(off.warnings)}/{len(on.warnings)}; node: {node}; points at: {points_at}"


@claim(
    "message-names-the-activation",
    "The message names the saved activation (batch, tokens, n_embd) and versions one write apart.",
    on_device=True,
)
def _message_names_the_activation() -> Verdict:
    if (failure := run_b(False)) is None:
        return False, "run B did not raise"
    parts = message.parts(failure.error)
    x, _ = probe_batch(data())
    shape = f"[{x.size(0)}, {x.size(1)}, {model_config(data()).n_embd}]"
    now, expected = parts["version_now"], parts["version_expected"]
    holds = (parts["tensor"] or "").endswith(f" {shape}]") and now and expected and int(now) - int(expected) == 1
    return bool(holds), f"tensor {parts['tensor']}, expected [batch, tokens, n_embd]; versions {now}/{expected}"


# --- breaks/25-inplace-autograd: the silent bypasses, and the brief's other candidate breaks


def _silent(bypass: str) -> tuple[list[Any] | None, str]:
    try:
        grads = gradients(inplace=True, bypass=bypass)
    except BackwardRaised as raised:
        return None, f"backward raised: {excerpt(raised.failure.error, width=200)}"
    return compare_gradients(gradients(), grads), ""


def _silent_and_layernorm_gains_worst(bypass: str) -> Verdict:
    rows, seen = _silent(bypass)
    if rows is None:
        return False, seen
    worst = worst_row(rows)
    return worst.rel_error > 0 and ".ln" in worst.name, f"no error; the worst gradient is {worst.name}'s"


claim(
    "bypass-hooks-silent",
    "Run B under identity saved_tensors_hooks completes backward with no error, with wrong gradients; "
    "a LayerNorm gain's is the worst.",
    on_device=True,
)(lambda: _silent_and_layernorm_gains_worst("hooks"))


claim(
    "bypass-ctx-silent",
    "Run B with a LayerNorm Function that keeps ctx.x completes backward with no error, with wrong "
    "gradients; a LayerNorm gain's is the worst.",
    on_device=True,
)(lambda: _silent_and_layernorm_gains_worst("ctx"))


@claim(
    "bypass-data-silent",
    "Run B writing through h.data completes backward with no error, and some parameters get no gradient.",
    on_device=True,
)
def _bypass_data_silent() -> Verdict:
    rows, seen = _silent("data")
    if rows is None:
        return False, seen
    missing = [row.name for row in rows if row.note == "no gradient in B"]
    return bool(missing), "no error; some parameters get no gradient" if missing else "every parameter gets one"


def _bitwise_equal_to_a(switch: str) -> Verdict:
    same = identical(gradients(), gradients(**{switch: True}))
    return same, f"{switch}: gradients bitwise equal to run A's: {same}"


claim(
    "relu-inplace-safe",
    "F.relu_ after the feed-forward Linear leaves every gradient bitwise unchanged.",
    on_device=True,
)(lambda: _bitwise_equal_to_a("relu_inplace"))


claim(
    "exp-inplace-safe",
    "exp_ on the shifted attention scores leaves every gradient bitwise unchanged (in float32, without autocast).",
    on_device=True,
)(lambda: _bitwise_equal_to_a("exp_inplace"))


# --- what changes on a GPU: each checked on the device measured (`python -m phase25 record --device cuda`)


@claim(
    "message-type-names-the-device",
    "Run B's message gives the saved tensor's type with its device: torch.FloatTensor on the CPU, "
    "torch.cuda.FloatTensor on a CUDA GPU.",
    on_device=True,
)
def _message_type_names_the_device() -> Verdict:
    if (failure := run_b(False)) is None:
        return False, "run B did not raise"
    tensor = message.parts(failure.error)["tensor"] or ""
    expected = "torch.FloatTensor" if device() == "cpu" else f"torch.{device()}.FloatTensor"
    return tensor.startswith(f"[{expected} "), f"on {device()}: {tensor}"


@claim(
    "save-on-cpu-copies-only-from-the-gpu",
    "Run B inside torch.autograd.graph.save_on_cpu() (pin_memory=False, its default) completes backward "
    "with no error. On the CPU a saved tensor is kept as the tensor itself, and the gradients are wrong "
    "(bypass=hooks's, bitwise); "
    "on a CUDA GPU it is copied to the CPU when saved, and the gradients are run A's, bitwise.",
    on_device=True,
)
def _save_on_cpu_copies_only_from_the_gpu() -> Verdict:
    model = build_model(model_config(data(), inplace=True), seed=0)
    x, y = probe_batch(data())
    with torch.autograd.graph.save_on_cpu():
        model(x, y)[1].backward()
    grads = gradients_of(model)
    like_a = identical(gradients(), grads)
    worst = worst_row(compare_gradients(gradients(), grads)).rel_error
    seen = f"on {device()}: no error; gradients bitwise equal to run A's: {like_a} (worst relative error {worst:.2g})"
    if device() == "cpu":
        like_hooks = identical(gradients(inplace=True, bypass="hooks"), grads)
        return not like_a and like_hooks, f"{seen}; to bypass=hooks's: {like_hooks}"
    return like_a, seen


def autocast_loss_and_gradients(exp_inplace: bool, dtype: torch.dtype = torch.bfloat16) -> tuple[float, Gradients]:
    """(loss, gradients) of the probe batch, forward under torch.autocast on the claims' device."""
    model = build_model(model_config(data(), exp_inplace=exp_inplace), seed=0)
    x, y = probe_batch(data())
    with torch.autocast(device(), dtype=dtype):
        loss = model(x, y)[1]
    loss.backward()
    return loss.item(), gradients_of(model)


@claim(
    "autocast-exp-inplace",
    "Under torch.autocast with bfloat16, exp_inplace changes the loss and the gradients on a CUDA GPU "
    "(CUDA autocast runs exp() in float32, and leaves the in-place exp_() in bfloat16), and leaves them "
    "bitwise unchanged on the CPU (CPU autocast runs exp() in bfloat16 too).",
    on_device=True,
)
def _autocast_exp_inplace() -> Verdict:
    (loss_a, grads_a), (loss_b, grads_b) = (autocast_loss_and_gradients(e) for e in (False, True))
    same = loss_a == loss_b and identical(grads_a, grads_b)
    worst = worst_row(compare_gradients(grads_a, grads_b)).rel_error
    seen = (
        f"on {device()}: loss {loss_a:.5f} with exp(), {loss_b:.5f} with exp_(); worst relative "
        f"change of a parameter's gradient {worst:.2g}"
    )
    return (same if device() == "cpu" else not same), seen


# --- theory/02: the version counter itself


@claim(
    "check-compares-versions-not-values",
    "Writing a saved tensor in place and back to the same values still fails the check.",
)
def _check_compares_versions() -> Verdict:
    a = torch.linspace(-1.0, 1.0, 5, requires_grad=True)
    y = a.exp()
    before = y.detach().clone()
    y.mul_(2)
    y.div_(2)
    try:
        y.sum().backward()
    except RuntimeError as exc:
        return message.CORE in str(exc) and torch.equal(y, before), f"raised: {message.before_hint(str(exc))}"
    return False, "backward completed although the saved tensor was written twice"


@claim(
    "saved-leaf-without-grad-checked",
    "A leaf that does not require grad takes an in-place write without complaint, but once a node has "
    "saved it, backward raises the version-counter error.",
)
def _saved_leaf_without_grad_checked() -> Verdict:
    w = torch.randn(3, requires_grad=True)
    x = torch.randn(3)  # a leaf, and it does not require grad
    y = (w * x).sum()  # the product saves x, for w's gradient
    x.add_(1)  # allowed: no error here
    try:
        y.backward()
    except RuntimeError as exc:
        return message.CORE in str(exc), f"raised: {message.before_hint(str(exc))}"
    return False, "backward completed although the saved leaf was written in place"


@claim("data-write-not-counted", "A write through .data leaves the version counter unchanged.")
def _data_write_not_counted() -> Verdict:
    t = torch.zeros(3, requires_grad=True).clone()
    before = version(t)
    t.data.add_(1)
    t.add_(1)
    return version(t) == before + 1, f"versions: {before} before, {version(t)} after one .data and one plain add_"


# --- breaks/25-inplace-safe: every case of the summary, by its verdict (examples/cases.toml)


MISSING_API = (
    re.compile(r"AttributeError: module '(?P<module>torch[\w.]*)' has no attribute '(?P<name>\w+)'"),
    re.compile(r"ModuleNotFoundError: No module named '(?P<module>torch[\w.]*)'"),
    re.compile(r"ImportError: cannot import name '(?P<name>\w+)' from '(?P<module>torch[\w.]*)'"),
)


def missing_api(raised: str | None) -> str | None:
    """The torch API ("torch.func") whose absence an example's error text says it raised for, or None."""
    for pattern in MISSING_API:
        if found := pattern.match(raised or ""):
            return ".".join(filter(None, (found["module"], found.groupdict().get("name"))))
    return None


def _case_claim(name: str) -> Check:
    def check() -> Verdict:
        found = outcome(name)
        if found.ok:
            return True, found.seen
        if api := missing_api(found.raised):  # it never got to what the claim is about
            return False, f"{NOT_APPLICABLE}{api} is missing from torch {torch.__version__} ({found.failure()})"
        return False, found.failure()

    return check


# The break page's fixes (examples/fix.py): clone-then-add and allow_mutation_on_saved_tensors
claim(
    "fixes-give-run-a-gradients",
    "Run B fixed by clone-then-add, and run B's own in-place residual "
    "under torch.autograd.graph.allow_mutation_on_saved_tensors(), get run A's gradients bitwise "
    "(examples/fix.py).",
)(_case_claim("fix"))


@claim(
    "allow-mutation-gives-run-a-gradients",
    "Run B's own in-place residual, forward and backward inside "
    "torch.autograd.graph.allow_mutation_on_saved_tensors(), gets run A's gradients bitwise (the third fix).",
    on_device=True,
)
def _allow_mutation_gives_run_a_gradients() -> Verdict:
    allow_mutation = getattr(torch.autograd.graph, "allow_mutation_on_saved_tensors", None)
    if allow_mutation is None:
        return (
            False,
            f"{NOT_APPLICABLE}torch.autograd.graph.allow_mutation_on_saved_tensors is missing "
            f"from torch {torch.__version__}",
        )
    model = build_model(model_config(data(), inplace=True), seed=0)
    x, y = probe_batch(data())
    with allow_mutation():
        model(x, y)[1].backward()
    same = identical(gradients(), gradients_of(model))
    return same, f"gradients bitwise equal to run A's: {same}"


CASE_CLAIMS = {safe_cases.claim(case) for case in safe_cases.summary_cases()} | {"fixes-give-run-a-gradients"}
for _case in safe_cases.summary_cases():
    claim(
        f"{safe_cases.verdict(_case)}:{_case.name}",
        f"{safe_cases.title(_case, 'en')} must {safe_cases.expected(_case)} (examples/{_case.name}.py).",
    )(_case_claim(_case.name))


# --- `minigpt diagnose`: every private torch API it relies on, and the diagnoser end to end.
# Recorded per release, not required: they say where the diagnoser works (the compatibility
# page), and the break page's own diagnose cell guards the release the book is built with.


for _name, (_statement, _check) in PROBES.items():
    if _name != "diagnose-works":
        claim(_name, _statement, required=False)(_check)


def run_b_diagnosed() -> tuple[bool, str]:
    """diagnose() of one forward of run B names every saved LayerNorm input that h.add_(...)
    overwrote, and nothing in run A."""
    data = build_dataset()
    x, y = probe_batch(data)
    run_b, run_a = (
        diagnose(build_model(model_config(data, inplace=inplace), seed=0), x, y) for inplace in (True, False)
    )
    n_layer = model_config(data).n_layer
    # One finding per residual line (the input of ln1, of ln2), each met again in every later block
    layernorm = [
        f
        for f in run_b.findings
        if (f.node, f.attribute, f.check) == ("NativeLayerNormBackward0", "_saved_input", RAISES)
        and f.write is not None
        and f.write.name == "aten.add_.Tensor"
        and f.write.location is not None
        and f.write.location.code.startswith("h.add_(")
        and f.repeats == n_layer - 1
    ]
    holds = len(run_b.findings) == len(layernorm) == 2 and not run_a.findings
    return holds, (
        f"run B: {run_b.summary()}, {len(layernorm)} of the 2 residual lines found overwriting a LayerNorm's "
        f"input in each of the {n_layer} blocks; run A: {run_a.summary()}"
    )


_works_statement, _works_check = PROBES["diagnose-works"]


@claim(
    "diagnose-works",
    _works_statement.removesuffix(".") + "; and diagnose() of one forward of run B names "
    "every saved LayerNorm input that the in-place residual add h.add_(...) overwrote, and nothing in run A.",
    required=False,
)
def diagnose_works() -> tuple[bool, str]:
    parts = [_works_check(), run_b_diagnosed()]
    return all(holds for holds, _ in parts), "; ".join(seen for _, seen in parts)


# --- breaks/25-inplace-autograd: under torch.compile, one measurement per backend (phase25.compiled).
# Run A compiled may differ from eager run A by rounding: inductor fuses kernels and so sums in
# another order. Float32 rounding of a reordered sum of a few hundred terms stays near 1e-7 of the
# result (measured: 4e-7 on 2.13); a real change of gradient (the bypasses) is 1e-2 and more.

GRADIENT_TOLERANCE = 1e-5  # largest ||g_compiled - g_eager|| / ||g_eager|| of a parameter


def compiled_gradients(backend: str) -> tuple[str | None, Any]:
    """(verdict: "bitwise", "close" (GRADIENT_TOLERANCE) or "differ", worst relative error) of run A compiled
    with backend against eager run A; or (None, why) where it gave no gradients."""
    run = compiled(backend, inplace=False)
    if run.not_applicable:
        return None, run.not_applicable
    if run.raises or run.gradients is None:
        return None, f"run A raised at {run.raised_at}: {run.error_type}: {excerpt(run.error or '', width=200)}"
    eager = gradients()
    if identical(eager, run.gradients):
        return "bitwise", 0.0
    worst = worst_row(compare_gradients(eager, run.gradients)).rel_error
    return ("close" if worst <= GRADIENT_TOLERANCE else "differ"), worst


def _compiled_a(backend: str) -> Check:
    def check() -> Verdict:
        verdict, worst = compiled_gradients(backend)
        if verdict is None:
            return False, worst
        return verdict != "differ", f"{verdict}: worst relative error of a parameter's gradient {worst:.2g}"

    return check


def _compiled_b(backend: str, raised_at: str, error_type: str) -> Check:
    def check() -> Verdict:
        run = compiled(backend, inplace=True)
        if run.not_applicable:
            return False, run.not_applicable
        if not run.raises or run.error is None:
            return False, "forward and backward completed"
        parts = message.parts(run.error)
        says = message.CORE in run.error and parts["version_now"] and parts["version_expected"]
        wrapped = error_type == "RuntimeError" or run.wraps == "RuntimeError"
        eager = run_b(False)
        same_as_eager = message.before_hint(run.error) == message.before_hint(eager.error if eager else "")
        holds = run.raised_at == raised_at and run.error_type == error_type and wrapped and says and same_as_eager
        return bool(holds), (
            f"raised at {run.raised_at}: {run.error_type}"
            + (f" wrapping {run.wraps}" if run.wraps else "")
            + f"; the same text as eager run B up to the Hint: {same_as_eager}; {excerpt(run.error, width=200)}"
        )

    return check


for _backend in compiling.BACKENDS:
    claim(
        f"compile:a-{_backend}",
        f'Run A compiled with torch.compile(backend="{_backend}") gets eager run A\'s '
        f"gradients, bitwise or within a relative {GRADIENT_TOLERANCE:g} per parameter.",
    )(_compiled_a(_backend))

claim(
    "compile:b-eager",
    'Run B compiled with torch.compile(backend="eager") raises eager run B\'s '
    "version-counter RuntimeError (the same text up to the Hint), at backward().",
)(_compiled_b("eager", compiling.BACKWARD, "RuntimeError"))
for _backend in ("aot_eager", "inductor"):
    claim(
        f"compile:b-{_backend}",
        f'Run B compiled with torch.compile(backend="{_backend}") fails while '
        "compiling, in its first forward call: a torch._dynamo.exc.BackendCompilerFailed wrapping eager run "
        "B's version-counter RuntimeError (the same text up to the Hint).",
    )(_compiled_b(_backend, compiling.COMPILE, "torch._dynamo.exc.BackendCompilerFailed"))
