"""Run A and run B under torch.compile, one backend at a time: whether it raises, when, and with what.
The backends run on a CPU with nothing to download: ``eager`` (TorchDynamo's graph on PyTorch's
kernels, autograd as without compiling), ``aot_eager`` (AOTAutograd traces the backward too, while
compiling the first forward call) and ``inductor`` (the default: AOTAutograd, then C++ kernels).

``measure`` compiles a fresh model (seed 0), calls it once on the probe batch and runs backward,
dynamo's caches reset around it. Where torch cannot run a backend (no torch.compile, refused on this
Python, no C++ compiler), the result says why ("not applicable: ..."), measured, not assumed."""

import os
import shutil
import time
import warnings
from dataclasses import dataclass

import torch

from inplace_doctor.torch_private import NOT_APPLICABLE
from minigpt import message
from minigpt.data import AgreementData, probe_batch
from minigpt.train import Gradients, build_model, gradients, model_config

BACKENDS = ("eager", "aot_eager", "inductor")
COMPILE, BACKWARD = "compile", "backward"  # when it raised: the first (compiling) forward call, or backward()
COMPILERS = ("g++", "c++", "clang++")  # what inductor can call on Linux when CXX is not set


@dataclass(frozen=True)
class Compiled:
    backend: str
    inplace: bool  # run B (the in-place residual) or run A
    not_applicable: str | None = None  # "not applicable: ..." where this torch cannot run the backend
    raised_at: str | None = None  # None (it completed), COMPILE or BACKWARD
    error_type: str | None = None  # the exception raised, qualified: "torch._dynamo.exc.BackendCompilerFailed"
    wraps: str | None = None  # the type of the exception it wraps, when it wraps the error below
    error: str | None = None  # "RuntimeError: one of the variables ..." (the wrapped one's text when wrapped)
    gradients: Gradients | None = None  # name -> gradient, when forward and backward completed
    seconds: float = 0.0  # the first call (compiling) and backward, together

    @property
    def raises(self) -> bool:
        return self.raised_at is not None


def unavailable(backend: str) -> str | None:
    """Why this torch cannot run backend on this machine ("not applicable: ..."), or None."""
    if not hasattr(torch, "compile"):
        return f"{NOT_APPLICABLE}torch.compile is missing from torch {torch.__version__}"
    import torch._dynamo.eval_frame as eval_frame

    check = getattr(eval_frame, "check_if_dynamo_supported", None)
    try:
        if check is not None:
            check()
    except RuntimeError as refused:  # e.g. torch 2.0: "Python 3.11+ not yet supported for torch.compile"
        return f"{NOT_APPLICABLE}torch {torch.__version__} refuses torch.compile here ({refused})"
    if backend == "inductor" and not any(shutil.which(c) for c in (os.environ.get("CXX"), *COMPILERS) if c):
        return f"{NOT_APPLICABLE}no C++ compiler for inductor (CXX, {', '.join(COMPILERS)})"
    return None


def _qualified(kind: type) -> str:
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _causes(exc: BaseException | None) -> list[BaseException]:
    """exc and every exception it wraps (inner_exception, __cause__, __context__), outermost first."""
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = getattr(exc, "inner_exception", None) or exc.__cause__ or exc.__context__
    return seen


def _failure(backend: str, inplace: bool, stage: str, exc: BaseException, seconds: float) -> Compiled:
    inner = next((e for e in reversed(_causes(exc)) if message.CORE in str(e)), exc)  # the innermost that says it
    return Compiled(
        backend,
        inplace,
        raised_at=stage,
        error_type=_qualified(type(exc)),
        wraps=None if inner is exc else _qualified(type(inner)),
        error=f"{type(inner).__name__}: {inner}",
        seconds=seconds,
    )


def measure(backend: str, inplace: bool, data: AgreementData) -> Compiled:
    """Compiled: a fresh model (seed 0) compiled with backend, one forward call and backward."""
    if missing := unavailable(backend):
        return Compiled(backend, inplace, not_applicable=missing)
    import torch._dynamo

    model = build_model(model_config(data, inplace=inplace), seed=0)
    x, y = probe_batch(data)
    torch._dynamo.reset()
    stage, start = COMPILE, time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # compiler chatter; what matters is what raises
            compiled = torch.compile(model, backend=backend)
            _, loss = compiled(x, y)
            stage = BACKWARD
            loss.backward()
    except Exception as exc:  # noqa: BLE001 - what it raises is the measurement
        return _failure(backend, inplace, stage, exc, time.perf_counter() - start)
    finally:
        torch._dynamo.reset()
    return Compiled(backend, inplace, gradients=gradients(model), seconds=time.perf_counter() - start)
