"""inplace_doctor on bugs written the way people meet them (inplace_doctor/tests/diagnose_battery/).

Each case is a small script, run unmodified by the diagnoser's command. Its marks:

* ``# WRITE``: the line the diagnoser must name as the writer (several lines may carry it);
* ``# BUILT``: the line that built a module made with ``inplace=True`` (named as well);
* ``twin: <code>``: the out-of-place twin replaces that line's code with ``<code>``;
* ``Kind:`` in its docstring: the mechanism it exercises (raises, detached, view, refused,
  counter-blind, hooks, ctx, unseen or harmless), that is, which label the diagnoser must give;
  ``Since: torch X`` where that holds from release X on (PyTorch behaved otherwise before).

PyTorch decides the truth: each case runs without the diagnoser. It is harmful if PyTorch refuses
an in-place write at its WRITE line, if its backward raises PyTorch's in-place error, or if its
gradients differ from its twin's; harmless otherwise.
The test then checks the case is what its Kind says, and that the diagnoser finds every harmful
case at its WRITE line with the right label, reports nothing for a harmless one, and leaves the
program's behaviour as it was (it raises where PyTorch raises, the gradients are the same).
"""

import ast
import contextlib
import io
import os
import re
import sys
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

import inplace_doctor as dg
import inplace_doctor.findings
import inplace_doctor.memory
from inplace_doctor.runner import Options, run_script
from inplace_doctor.session import is_inplace_error

BATTERY = Path(__file__).parent / "diagnose_battery"
CASES = sorted(p.stem for p in BATTERY.glob("*.py") if p.stem != "__init__")
LABELS = {
    "view": dg.Check.VIEW_MODIFIED,
    "refused": dg.Check.REFUSED,
    "raises": dg.Check.RAISES,
    "detached": dg.Check.DETACHED,
    "counter-blind": dg.Check.COUNTER_BLIND,
    "hooks": dg.Check.HOOKS_SKIP_CHECK,
    "ctx": dg.Check.CTX_UNCHECKED,
    "unseen": dg.Check.UNSEEN_WRITE,
    "autocast": dg.Check.AUTOCAST_STALE,
    "grad-hook": dg.Check.GRAD_HOOK,
}
TWIN = re.compile(r"#.*\btwin: (.*)$")


@dataclass
class Case:
    name: str
    path: Path
    source: str
    kind: str
    write_lines: list[int]
    built_lines: list[int]
    since: str | None = None  # the torch release from which its Kind holds

    @property
    def twin_source(self) -> str:
        lines = []
        for line in self.source.splitlines():
            twin = TWIN.search(line)
            if twin:
                indent = line[: len(line) - len(line.lstrip())]
                line = indent + twin.group(1).strip()
            lines.append(line)
        return "\n".join(lines) + "\n"


def load(name: str) -> Case:
    path = BATTERY / f"{name}.py"
    source = path.read_text(encoding="utf-8")
    kind = re.search(r"^Kind: (\S+)$", ast.get_docstring(ast.parse(source)) or "", re.M)
    assert kind, f"{name}: its docstring names no Kind"
    lines = source.splitlines()

    def marked(mark):
        return [i for i, line in enumerate(lines, 1) if re.search(rf"#.*\b{mark}\b", line)]

    assert TWIN.search(source) or any(TWIN.search(line) for line in lines), f"{name} has no twin"
    since = re.search(r"^Since: torch (\S+)", ast.get_docstring(ast.parse(source)) or "", re.M)
    return Case(name, path, source, kind.group(1), marked("WRITE"), marked("BUILT"), since and since.group(1))


def load_on_this_torch(name: str) -> Case:
    case = load(name)
    if case.since and torch.__version__ < case.since:
        pytest.skip(f"{name} is {case.kind} from torch {case.since} on (its docstring says why)")
    return case


@dataclass
class Run:
    error: BaseException | None
    grads: dict[str, torch.Tensor | None]  # of its modules' parameters and its leaf tensors
    values: dict[str, torch.Tensor]  # of the same (optimizer steps change them)
    printed: str = ""  # what it printed
    observed: dict | None = None  # what it can observe of its tensors (observe)


def facts(tensor: torch.Tensor, names: dict[int, str]) -> tuple:
    """What a program can observe of a tensor, its values aside: view or not and of which of its
    tensors, version, inference tensor, requires grad, leaf, dtype, device, shape, gradient function
    (what raises is observed as its error's words: a view PyTorch refuses since its base was modified)."""

    def read(fact):
        try:
            return fact()
        except RuntimeError as error:
            return str(error)

    base = tensor._base if tensor._is_view() else None
    return (
        tensor._is_view(),
        None if base is None else names.get(id(base), "a tensor it does not name"),
        read(lambda: tensor._version),
        tensor.is_inference(),
        tensor.requires_grad,
        read(lambda: tensor.is_leaf),
        tensor.dtype,
        tensor.device,
        read(lambda: tuple(tensor.shape)),
        read(lambda: type(tensor.grad_fn).__name__),
    )


def observe(namespace: dict) -> dict[str, tuple]:
    """``facts`` of every tensor a script names, its modules' parameters and buffers included."""
    tensors = {}
    for name, value in namespace.items():
        if isinstance(value, torch.nn.Module):
            tensors.update({f"{name}.{n}": t for n, t in value.state_dict(keep_vars=True).items()})
        elif not name.startswith("__"):
            tensors.update({f"{name}[{i}]": t for i, t in enumerate(inplace_doctor.memory.tensors_in(value))})
    names = {id(t): name for name, t in tensors.items()}
    return {name: facts(t, names) for name, t in tensors.items()}


def is_trainable_leaf(tensor: torch.Tensor) -> bool:
    try:
        return tensor.is_leaf and tensor.requires_grad
    except RuntimeError:  # a view PyTorch refuses since its base was modified: not a leaf of ours
        return False


def run_of(namespace: dict, error: BaseException | None) -> Run:
    """What a finished script computed, read from its global variables."""
    leaves = {}
    for name, value in namespace.items():
        if isinstance(value, torch.nn.Module):
            leaves.update({f"{name}.{pname}": p for pname, p in value.named_parameters()})
        elif isinstance(value, torch.Tensor) and is_trainable_leaf(value):
            leaves[name] = value
    grads = {name: None if t.grad is None else t.grad.clone() for name, t in leaves.items()}
    if not leaves:  # torch.func code: no leaf requires grad; what it computed is in its variables
        grads = {
            f"{name}[{i}]": t.detach().clone()
            for name, value in namespace.items()
            if not name.startswith("__") and isinstance(value, (torch.Tensor, tuple, dict))
            for i, t in enumerate(inplace_doctor.memory.tensors_in(value))
        }
    return Run(error, grads, {name: t.detach().clone() for name, t in leaves.items()})


def run_plain(source: str, path: Path) -> Run:
    """The script as `python path` runs it, in this process, without the diagnoser: what it
    computed, printed and can observe of its tensors."""
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=str(path), __builtins__=__builtins__)
    saved_main, saved_argv = sys.modules["__main__"], sys.argv
    sys.modules["__main__"], sys.argv = module, [str(path)]
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(source, str(path), "exec"), module.__dict__)
        error = None
    except RuntimeError as exc:
        error = exc
    finally:
        sys.modules["__main__"], sys.argv = saved_main, saved_argv
    run = run_of(module.__dict__, error)
    run.printed, run.observed = printed.getvalue(), observe(module.__dict__)
    return run


def same_tensors(a: dict[str, torch.Tensor | None], b: dict[str, torch.Tensor | None], exact: bool = False) -> bool:
    """Same names, and for each the same tensor (or None on both sides): equal to the last bit
    when exact, else within float32 rounding (a twin computes in another order)."""
    if a.keys() != b.keys():
        return False
    for name in a:
        x, y = a[name], b[name]
        if (x is None) != (y is None):
            return False
        if x is not None and not (torch.equal(x, y) if exact else torch.allclose(x, y, rtol=1e-5, atol=1e-7)):
            return False
    return True


# PyTorch's words when it refuses an in-place write at the write itself (the test's judge only).
REFUSAL_WORDS = re.compile(r"in-?place|cannot resize|out=\.\.\. arguments")


def truth(case: Case, run: Callable[[bool], Run]) -> str:
    """What PyTorch does, from the case's run without the diagnoser (run(False)) and its twin's
    (run(True)): "refused" (at a WRITE line that runs no backward), "raises", "detached",
    "silent" (gradients differ from the twin's) or "harmless"."""
    plain = run(False)
    if plain.error is not None:
        at = [f.lineno for f in traceback.extract_tb(plain.error.__traceback__) if f.filename == str(case.path)]
        code = case.source.splitlines()[at[-1] - 1] if at else ""
        if at and at[-1] in case.write_lines and "backward(" not in code:
            assert REFUSAL_WORDS.search(str(plain.error)), f"{case.name} fails for another reason: {plain.error}"
            return "refused"
        assert is_inplace_error(plain.error), f"{case.name} fails for another reason: {plain.error}"
        return "detached" if "detached in-place" in str(plain.error) else "raises"
    twin = run(True)
    assert twin.error is None, f"{case.name}'s twin raises: {twin.error}"
    return "harmless" if same_tensors(plain.grads, twin.grads) else "silent"


def runner(case: Case, folder: Path) -> Callable[[bool], Run]:
    """run(twin) -> the case's run without the diagnoser (its twin's, written in folder, where
    twin), each made once."""
    made: dict[bool, Run] = {}

    def run(twin: bool) -> Run:
        if twin not in made:
            path = folder / case.path.name if twin else case.path
            if twin:
                path.write_text(case.twin_source, encoding="utf-8")
            made[twin] = run_plain(case.twin_source if twin else case.source, path)
        return made[twin]

    return run


@pytest.fixture(scope="module")
def plain_runs(tmp_path_factory):
    """name -> the case's runner, shared by the module's tests: a case and its twin run once each."""
    folder, cache = tmp_path_factory.mktemp("twins"), {}

    def get(name):
        if name not in cache:
            cache[name] = runner(load(name), folder)
        return cache[name]

    return get


@pytest.fixture(scope="module")
def outcomes():
    """The diagnoser's command on each case, to the script's end (every backward)."""
    cache = {}

    def get(name):
        if name not in cache:
            case = load(name)
            cwd = os.getcwd()
            try:
                os.chdir(BATTERY)
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    cache[name] = run_script(Options(str(case.path), [], steps=None))
                cache[name].printed = printed.getvalue()  # what the script printed (the report is not)
            finally:
                os.chdir(cwd)
        return cache[name]

    return get


# What the battery must cover (the list): a pattern, looked for on the marked lines
# (WRITE, BUILT) or in the whole source of the harmful cases.
COVERED = {
    "an activation built with inplace=True": ("marked", r"nn\.(ReLU|LeakyReLU|ELU|SiLU|Hardtanh)\(.*inplace=True"),
    "dropout with inplace=True": ("marked", r"Dropout\(.*inplace=True"),
    "+=": ("marked", r"\+="),
    "-=": ("marked", r"-="),
    "*=": ("marked", r"\*="),
    "slice assignment": ("marked", r"\w\[[^\]]*:[^\]]*\] = "),
    "index assignment": ("marked", r"\w\[[^\]:]*\] = "),
    "masked_fill_": ("marked", r"\.masked_fill_\("),
    "exp_": ("marked", r"\.exp_\("),
    "div_": ("marked", r"\.div_\("),
    "clamp_": ("marked", r"\.clamp_\("),
    "an RNN's state": ("source", r"nn\.(RNN|RNNCell|GRU)\("),
    "an LSTM's state": ("source", r"nn\.LSTM\("),
    "a GAN's training order": ("source", r"GAN"),
    "two backward passes": ("source", r"(?s)\.backward\(.*\.backward\("),
    "checkpoint, non-reentrant": ("source", r"checkpoint\(.*use_reentrant=False"),
    "checkpoint, reentrant": ("source", r"checkpoint\(.*use_reentrant=True"),
    "mark_dirty": ("source", r"ctx\.mark_dirty\("),
    "a ctx attribute": ("source", r"ctx\.\w+ = \w+\n"),
    ".data": ("marked", r"\.data\."),
    "saved-tensor hooks": ("source", r"save_on_cpu|saved_tensors_hooks"),
    "detach_": ("marked", r"\.detach_\("),
    "a foreach optimizer": ("source", r"foreach=True"),
    "a fused optimizer": ("source", r"fused=True"),
    "an optimizer step inside one autocast region": ("source", r"(?s)torch\.autocast\(.*\.step\(\)"),
    "a write through torch.from_numpy's array": ("source", r"torch\.from_numpy\("),
    "a write inside a custom Function's backward": ("source", r"(?s)def backward\(ctx.*_\(.*# WRITE"),
    "a saved tensor a later backward reads after a step": ("source", r"(?s)\.step\(\)  # WRITE.*\.backward\("),
}
# What the harmless cases must cover (the list): PyTorch never reads what was written.
COVERED_HARMLESS = {
    "a graph left alive, never backpropagated": r"(?s)next_value = critic\(next_state\)  # twin",
    "BatchNorm's running statistics, updated by a second forward in training mode": r"BatchNorm1d",
    "autocast, one region per forward": r"torch\.autocast\(",
    "torch.from_numpy of a copy": r"torch\.from_numpy\(.*\.copy\(\)\)",
}


def test_the_battery_is_large_and_varied():
    cases = [load(name) for name in CASES]
    harmful = [case for case in cases if case.kind != "harmless"]
    assert len(cases) >= 85 and len(harmful) >= 60 and len(cases) - len(harmful) >= 25
    assert {case.kind for case in cases} == set(LABELS) | {"harmless"}
    missing = []
    for what, (where, pattern) in COVERED.items():
        texts = [
            case.source
            if where == "source"
            else "\n".join(case.source.splitlines()[n - 1] for n in case.write_lines + case.built_lines)
            for case in harmful
        ]
        if not any(re.search(pattern, text) for text in texts):
            missing.append(what)
    assert not missing, f"no harmful case has {missing}"
    harmless = [case.source for case in cases if case.kind == "harmless"]
    missing = [what for what, pattern in COVERED_HARMLESS.items() if not any(re.search(pattern, s) for s in harmless)]
    assert not missing, f"no harmless case has {missing}"


def test_readme_counts_the_battery_as_it_is():
    """README types the battery's size; it must say what inplace_doctor/tests/diagnose_battery/ holds."""
    readme = (BATTERY.parents[1] / "README.md").read_text(encoding="utf-8")
    said = re.search(r"holds (\d+) bugs[^(]*\((\d+) harmful, (\d+) harmless", " ".join(readme.split()))
    assert said, "README no longer says how many bugs inplace_doctor/tests/diagnose_battery/ holds"
    kinds = [load(name).kind for name in CASES]
    harmless = kinds.count("harmless")
    assert tuple(map(int, said.groups())) == (len(kinds), len(kinds) - harmless, harmless)


@pytest.mark.parametrize("name", CASES)
def test_case_is_what_its_kind_says(name, plain_runs):
    case = load_on_this_torch(name)
    expected = {"view": "raises"}.get(case.kind, case.kind)
    expected = expected if expected in ("raises", "detached", "refused", "harmless") else "silent"
    assert truth(case, plain_runs(name)) == expected
    assert (case.kind == "harmless") == (not case.write_lines), "harmful cases mark their writer line, safe ones none"


def written_line(finding: dg.Finding) -> int | None:
    """The line a finding names as the writer (for an unseen write, the line after which the values
    had changed, else where the NumPy array was made)."""
    if finding.check == dg.Check.UNSEEN_WRITE:
        if finding.changed_after is not None:
            return finding.changed_after.line
        return finding.through.line if finding.through else None
    return finding.write.location.line if finding.write and finding.write.location else None


@pytest.mark.parametrize("name", CASES)
def test_diagnoser_on_case(name, plain_runs, outcomes):
    """Harmless: no finding, exit status 0. Harmful: every WRITE line named, no other line, with
    the label PyTorch's behaviour calls for; where PyTorch raises, the run under the diagnoser
    raises too, and the finding that explains it has that label; exit status 1."""
    case = load_on_this_torch(name)
    check_diagnosis(case, truth(case, plain_runs(name)), outcomes(name), LABELS.get(case.kind))


def check_diagnosis(case: Case, pytorch: str, outcome, label: str | None) -> None:
    report = outcome.report
    assert outcome.failure is None and outcome.internal is None, outcome.failure or outcome.internal
    if pytorch == "harmless":
        assert report.findings == [] and outcome.status == 0, str(report)
        return
    assert outcome.status == 1, str(report)
    assert {written_line(f) for f in report.findings} == set(case.write_lines), str(report)
    if pytorch in ("raises", "detached", "refused"):
        assert report.raised is not None, "under the diagnoser PyTorch's error must be raised as well"
        explained = report.explained_by
        expected = LABELS[pytorch] if case.kind in ("raises", "detached", "refused") else label
        assert explained is not None and explained.check == expected, str(report)
        assert written_line(explained) in case.write_lines
    else:
        assert {f.check for f in report.findings} == {label}, str(report)
        assert report.raised is None
    for built in case.built_lines:
        assert any(
            f.write and f.write.location.built and f.write.location.built.line == built for f in report.findings
        ), f"no finding names the line that built the module ({built})"


# The node PyTorch's version error names, which for a view rebased after its base was written, or a
# tensor no longer alive, is the diagnoser's best reading (it keeps no tensor alive to ask): left out.
NODE_CLAUSE = re.compile(r", which is output \d+ of [\w:]+,")


def raised_where(error: BaseException | None, path: Path) -> tuple | None:
    """An error as the program sees it: its type, its message, the program's line it came from."""
    if error is None:
        return None
    lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
    return type(error), NODE_CLAUSE.sub(",", str(error)), lines[-1:]


@pytest.mark.parametrize("name", CASES)
def test_the_program_behaves_the_same_under_the_diagnoser(name, outcomes, plain_runs):
    """What the program computes, prints and observes of its tensors (views and their bases,
    versions, inference tensors, requires_grad, dtype, device, ...) and the error it raises (its
    type, its words, its line) are what they are without the diagnoser."""
    case = load(name)
    plain = plain_runs(name)(False)
    outcome = outcomes(name)
    diagnosed = run_of(outcome.namespace, None)
    assert outcome.printed == plain.printed
    assert observe(outcome.namespace) == plain.observed
    assert raised_where(outcome.error, case.path) == raised_where(plain.error, case.path)
    assert plain.grads and same_tensors(plain.grads, diagnosed.grads, exact=True), name
    assert same_tensors(plain.values, diagnosed.values, exact=True), name
    raised = outcome.report.raised
    if plain.error is None:
        assert raised is None
    else:
        assert raised is not None
        assert ("detached in-place" in raised) == ("detached in-place" in str(plain.error))


# CUDA: the whole battery with CUDA as the default device ---------------------------------------------

# Where PyTorch on CUDA behaves otherwise than on the CPU (its truth decides; see gpu-facts.md).
CPU_ONLY = {
    "numpy_write": "Tensor.numpy() of a CUDA tensor is refused: the case cannot run there",
    "numpy_alias_written_later": "Tensor.numpy() of a CUDA tensor is refused: the case cannot run there",
    "from_numpy_obs_buffer": "torch.from_numpy makes a CPU tensor, which a CUDA model refuses",
    "safe_from_numpy_obs_copied": "torch.from_numpy makes a CPU tensor, which a CUDA model refuses",
}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (none on this machine)")
@pytest.mark.parametrize("name", CASES)
def test_case_on_cuda(name, tmp_path, monkeypatch):
    """Each case with CUDA as the default device: its truth decided by PyTorch there, the
    diagnoser's findings checked as on the CPU, and the program's behaviour (error, gradients,
    parameter values) bitwise the same with and without the diagnoser."""
    if name in CPU_ONLY:
        pytest.skip(CPU_ONLY[name])
    case = load(name)
    monkeypatch.chdir(BATTERY)
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    # Bitwise comparisons need the same kernels twice: CUDA's atomic-add ones (index_put, scatter
    # backward) are not, with or without the diagnoser.
    deterministic = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.set_default_device("cuda")
    try:
        run = runner(case, tmp_path)
        pytorch, plain = truth(case, run), run(False)
        outcome = run_script(Options(str(case.path), [], steps=None))
    finally:
        torch.set_default_device(None)
        torch.use_deterministic_algorithms(deterministic)
    label = LABELS.get(case.kind)
    if pytorch == "silent" and case.kind in ("raises", "detached", "view"):
        label = None  # not expected anywhere in the battery: fail below with the report
    check_diagnosis(case, pytorch, outcome, label)
    diagnosed = run_of(outcome.namespace, None)
    assert plain.grads and same_tensors(plain.grads, diagnosed.grads, exact=True), name
    assert same_tensors(plain.values, diagnosed.values, exact=True), name
    assert (outcome.report.raised is None) == (plain.error is None)


def test_the_summary_says_where_pytorch_raised(outcomes):
    """At backward, at the next use of a view (here the next forward, after a step), or nowhere."""
    summaries = {
        name: outcomes(name).report.summary()
        for name in ("view_of_parameter_before_step", "graph_kept_read_after_step")
    }
    assert summaries == {
        "view_of_parameter_before_step": "1 finding: 0 caught by PyTorch's version check at backward, 0 silent, "
        "1 raised by PyTorch at the view's next use, before backward",
        "graph_kept_read_after_step": "1 finding: 1 caught by PyTorch's version check at backward, 0 silent",
    }


def test_a_write_during_a_backward_is_named_with_its_slot_and_no_false_note(outcomes):
    report = outcomes("backward_writes_saved").report
    (finding,) = report.findings
    assert (finding.node, finding.attribute, finding.touched) == ("MulBackward0", "_saved_other", True), str(report)
    assert "the saved values are intact" not in str(report)


def test_what_no_backward_reads_is_a_note_or_nothing(outcomes):
    """A graph left alive and never backpropagated: a note naming what a backward would have met;
    BatchNorm's running statistics in training mode: not even examined."""
    left = outcomes("safe_graph_left_actor_critic").report
    assert any("left graphs alive that no backward read" in note for note in left.notes), str(left)
    batchnorm = outcomes("safe_batchnorm_running_stats_gan").report
    assert "_saved_running_mean" not in str(batchnorm) and not batchnorm.notes, str(batchnorm)
