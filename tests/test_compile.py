"""phase25.compiled: run A and run B under torch.compile, what raises and when; where a backend cannot
run, the measurement says why ("not applicable: ...") instead of failing."""

import pytest
import torch

from minigpt import experiments, message
from phase25 import compiled, record
from phase25 import experiments as lesson_experiments

pytestmark = pytest.mark.usefixtures("as_the_build")  # the build's results, read back (conftest)


class Wrapper(Exception):
    """Stands for torch._dynamo.exc.BackendCompilerFailed: it keeps what it wraps as inner_exception."""

    def __init__(self, inner):
        super().__init__(f"backend raised:\n{type(inner).__name__}: {inner}")
        self.inner_exception = inner


VERSION_ERROR = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.FloatTensor [2, 3]], which is output 0 of Add, is at version 2; "
    "expected version 1 instead. Hint: enable anomaly detection."
)


def test_a_wrapped_error_is_read_from_the_exception_it_wraps():
    failure = compiled._failure("aot_eager", True, compiled.COMPILE, Wrapper(RuntimeError(VERSION_ERROR)), 1.0)
    assert (failure.raised_at, failure.error_type, failure.wraps) == (
        compiled.COMPILE,
        f"{__name__}.Wrapper",
        "RuntimeError",
    )
    assert failure.error == f"RuntimeError: {VERSION_ERROR}" and failure.raises


def test_an_unwrapped_error_is_its_own():
    failure = compiled._failure("eager", True, compiled.BACKWARD, RuntimeError(VERSION_ERROR), 1.0)
    assert (failure.error_type, failure.wraps, failure.error) == (
        "RuntimeError",
        None,
        f"RuntimeError: {VERSION_ERROR}",
    )


def test_an_error_that_is_not_the_version_check_is_kept_whole():
    failure = compiled._failure("inductor", False, compiled.COMPILE, Wrapper(OSError("g++ failed")), 1.0)
    assert failure.wraps is None and failure.error.startswith("Wrapper: backend raised:")


def test_without_a_cxx_compiler_inductor_does_not_apply(monkeypatch):
    monkeypatch.setattr(compiled.shutil, "which", lambda name: None)
    why = compiled.unavailable("inductor")
    assert why.startswith(compiled.NOT_APPLICABLE + "no C++ compiler")
    assert compiled.unavailable("eager") is None
    run = compiled.measure("inductor", True, experiments.data())
    assert run.not_applicable == why and not run.raises and run.gradients is None


def test_without_torch_compile_nothing_applies(monkeypatch):
    monkeypatch.delattr(torch, "compile")
    for backend in compiled.BACKENDS:
        assert (
            compiled.unavailable(backend)
            == f"{compiled.NOT_APPLICABLE}torch.compile is missing from torch {torch.__version__}"
        )


def test_a_torch_that_refuses_this_python_does_not_apply(monkeypatch):
    import torch._dynamo.eval_frame as eval_frame

    def refuse():
        raise RuntimeError("Python 3.11+ not yet supported for torch.compile")

    monkeypatch.setattr(eval_frame, "check_if_dynamo_supported", refuse)
    assert "(Python 3.11+ not yet supported for torch.compile)" in compiled.unavailable("eager")


def test_a_backend_that_does_not_apply_is_recorded_as_such(monkeypatch):
    monkeypatch.setattr(
        record,
        "compiled",
        lambda backend, inplace: compiled.Compiled(
            backend, inplace, not_applicable=compiled.NOT_APPLICABLE + "no C++ compiler"
        ),
    )
    assert record.measure_compile("inductor") == {"not_applicable": compiled.NOT_APPLICABLE + "no C++ compiler"}


@pytest.mark.parametrize("backend", compiled.BACKENDS)
def test_run_b_compiled_is_measured_once_and_read_back(backend):
    """The claims, the record and the pages share one measurement per backend (execbook.store): the
    build's, which its compatibility page measured."""
    first = lesson_experiments.compiled(backend, inplace=True)
    assert lesson_experiments.compiled(backend, inplace=True) is first
    if first.not_applicable:
        pytest.skip(first.not_applicable)
    assert first.raises and message.CORE in first.error and first.gradients is None
    section = record.measure_compile(backend)
    assert section["b_raised_at"] == first.raised_at and section["b_error_type"] == first.error_type
    assert section["b_tensor"] == "[torch.FloatTensor [batch, tokens, n_embd]]"  # the record's generic sizes
