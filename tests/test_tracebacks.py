"""execbook.tracebacks: what the book shows of a traceback or a warning. Synthetic tracebacks (paths of
a made-up machine) for the formatter, then one real IPython shell set up as the book's kernel."""

import re
import sys
import warnings
from pathlib import Path

import pytest

from execbook import config, kernel, store, tracebacks
from execbook.tracebacks import Places

REPO = Path(__file__).resolve().parents[1]
ROOT = "/build/book"  # the repository on a made-up build machine
SITE = "/build/book/.nox/docs/lib/python3.11/site-packages"
STDLIB = "/usr/local/lib/python3.11"
CELL = "/tmp/ipykernel_4242/1604916755.py"
MACHINE_PATH = re.compile(r"(/build/|/tmp/|/__w/|/usr/local/|site-packages|\.nox/)")


def cell_label(path):
    return "Cell In[6]" if path == CELL else None


PLACES = Places(repo=ROOT, cell_label=cell_label, stdlib=(STDLIB,), native=tuple(config.NATIVE_SOURCES))

RULE = "-" * 75
TORCH_FRAMES = [  # as IPython's structured traceback has them: a frame an entry
    f"File {SITE}/torch/_tensor.py:623, in Tensor.backward(self, gradient)\n--> 623 torch.autograd.backward(\n",
    f"File {SITE}/torch/autograd/__init__.py:395, in backward(tensors)\n--> 395 _engine_run_backward(\n",
    f"File {SITE}/torch/autograd/graph.py:979, in _engine_run_backward(t_outputs, *args)\n--> 979 return run(\n",
]

# anomaly mode's report as torch words it, on the made-up machine
ANOMALY_WARNING = f"""Error detected in NativeLayerNormBackward0. Traceback of forward call that caused the error:
  File "{STDLIB}/asyncio/events.py", line 84, in _run
    self._context.run(self._callback, *self._args)
  File "{SITE}/ipykernel/kernelbase.py", line 545, in dispatch_queue
    await self.process_one()
  File "{SITE}/IPython/core/interactiveshell.py", line 3699, in run_code
    exec(code_obj, self.user_global_ns, self.user_ns)
  File "{CELL}", line 4, in <module>
    logits, loss = model_b(x, y)
  File "{SITE}/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "{SITE}/torch/nn/modules/module.py", line 1789, in _call_impl
    return forward_call(*args, **kwargs)
  File "{ROOT}/minigpt/model.py", line 179, in forward
    h.add_(self.ffn(self.ln2(h)))
  File "{SITE}/torch/nn/functional.py", line 2987, in layer_norm
    return torch.layer_norm(
 (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)"""


# --- where code lives and how the reader names it


@pytest.mark.parametrize(
    "path,origin,shown",
    [
        (f"{ROOT}/minigpt/model.py", "project", "minigpt/model.py"),
        (f"{ROOT}/tapegrad/engine.py", "project", "tapegrad/engine.py"),
        (CELL, "cell", "Cell In[6]"),
        (f"{SITE}/torch/nn/functional.py", "torch", "torch/nn/functional.py"),
        (f"{SITE}/IPython/core/interactiveshell.py", "Jupyter", "IPython/core/interactiveshell.py"),
        (f"{SITE}/numpy/core/fromnumeric.py", "numpy", "numpy/core/fromnumeric.py"),
        ("/usr/lib/python3/dist-packages/torch/_tensor.py", "torch", "torch/_tensor.py"),
        (f"{STDLIB}/contextlib.py", "Python", "contextlib.py"),
        ("<frozen runpy>", "Python", "<frozen runpy>"),
        (f"{ROOT}/.venv/lib/helper.py", "other code", ".venv/lib/helper.py"),
        (
            "/__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp",
            "other code",
            "torch/csrc/autograd/python_anomaly_mode.cpp",
        ),
    ],
)
def test_places_say_whose_code_and_name_it_without_the_machine(path, origin, shown):
    assert PLACES.origin(path) == origin
    assert PLACES.display(path) == shown
    assert PLACES.is_ours(path) == (origin in ("cell", "project"))


def test_paths_inside_a_text_are_shortened_and_nothing_else_is():
    text = (
        f"File {SITE}/torch/_tensor.py:623, in {ROOT}/minigpt/model.py "
        "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1226.) "
        "see https://pytorch.org/docs/stable/autograd.html; 34.5 steps/s on 2026/12/03; a / b"
    )
    assert tracebacks.shorten_paths(text, PLACES) == (
        "File torch/_tensor.py:623, in minigpt/model.py "
        "(Triggered internally at torch/csrc/autograd/engine.cpp:1226.) "
        "see https://pytorch.org/docs/stable/autograd.html; 34.5 steps/s on 2026/12/03; a / b"
    )


@pytest.mark.parametrize(
    "origins,line,spanish",
    [
        (["torch"], "[1 frame in torch left out]", "[1 marco de torch omitido]"),
        (["torch", "torch", "torch"], "[3 frames in torch left out]", "[3 marcos de torch omitidos]"),
        (
            ["Python", "Jupyter", "Jupyter", "torch"],
            "[4 frames in Python, Jupyter and torch left out]",
            "[4 marcos de Python, Jupyter y torch omitidos]",
        ),
    ],
)
def test_the_count_line_says_how_many_frames_and_whose_in_the_pages_language(origins, line, spanish):
    from execbook.sphinxext.words import left_out_in

    assert tracebacks.fold_line(origins) == line
    text = f"Traceback:\n  {line}\nRuntimeError: [1 frame in the message] stays"
    assert left_out_in(text, "es") == text.replace(line, spanish)
    assert left_out_in(text, "en") == text


# --- a traceback inside a text: anomaly mode's warning, a command's output


def test_the_anomaly_warning_keeps_our_frames_and_folds_each_run_of_the_others():
    brief = tracebacks.brief(ANOMALY_WARNING, PLACES)
    assert brief.splitlines() == [
        "Error detected in NativeLayerNormBackward0. Traceback of forward call that caused the error:",
        "  [3 frames in Python and Jupyter left out]",
        "  Cell In[6], line 4, in <module>",
        "    logits, loss = model_b(x, y)",
        "  [2 frames in torch left out]",
        '  File "minigpt/model.py", line 179, in forward',
        "    h.add_(self.ffn(self.ln2(h)))",
        "  [1 frame in torch left out]",
        " (Triggered internally at torch/csrc/autograd/python_anomaly_mode.cpp:122.)",
    ]


def test_text_between_two_tracebacks_is_kept_in_place():
    text = (
        f'first\n  File "{SITE}/torch/a.py", line 1, in f\n    x()\nbetween\n'
        f'  File "{SITE}/torch/b.py", line 2, in g\n    y()\nlast'
    )
    assert tracebacks.brief(text, PLACES).splitlines() == [
        "first",
        "  [1 frame in torch left out]",
        "between",
        "  [1 frame in torch left out]",
        "last",
    ]


def test_a_warning_from_torch_shows_its_message_only_and_one_from_our_code_where_it_was():
    foreign = tracebacks.format_warning(
        ANOMALY_WARNING,
        UserWarning,
        f"{SITE}/torch/autograd/graph.py",
        979,
        line="return Variable._execution_engine.run_backward(",
        places=PLACES,
    )
    assert foreign.startswith("UserWarning: Error detected in NativeLayerNormBackward0.")
    assert "[2 frames in torch left out]" in foreign and not MACHINE_PATH.search(foreign)
    ours = tracebacks.format_warning(
        "careful", UserWarning, f"{ROOT}/minigpt/model.py", 12, line="  warnings.warn('careful')\n", places=PLACES
    )
    assert ours == "minigpt/model.py:12: UserWarning: careful\n  warnings.warn('careful')\n"


# --- the traceback of an exception


CELL_FRAME = "Cell In[6], line 5\n      4     logits, loss = model_b(x, y)\n----> 5     loss.backward()  # raises\n"


def test_a_cell_raising_inside_torch_shows_the_cell_one_count_line_and_the_error():
    error = "RuntimeError: one of the variables needed for gradient computation has been modified"
    entries = [RULE, "RuntimeError                              Traceback (most recent call last)", CELL_FRAME]
    assert tracebacks.fold([*entries, *TORCH_FRAMES, error], PLACES) == [
        *entries,
        "[3 frames in torch left out]\n",
        error,
    ]


def test_frames_of_our_code_are_kept_with_relative_paths_between_folded_runs():
    ours = f"File {ROOT}/minigpt/model.py:179, in Block.forward(self, h)\n    178 x = 1\n--> 179 h.add_(x)\n"
    entries = tracebacks.fold([CELL_FRAME, TORCH_FRAMES[0], ours, *TORCH_FRAMES[1:]], PLACES)
    assert [e.splitlines()[0] for e in entries] == [
        "Cell In[6], line 5",
        "[1 frame in torch left out]",
        "File minigpt/model.py:179, in Block.forward(self, h)",
        "[2 frames in torch left out]",
    ]
    assert entries[2].splitlines()[1:] == ["    178 x = 1", "--> 179 h.add_(x)"]
    assert not any(MACHINE_PATH.search(e) for e in entries)


def test_an_error_message_naming_a_machine_path_is_shortened():
    error = f"FileNotFoundError: [Errno 2] No such file or directory: '{ROOT}/experiments/25-B/run-1/result.json'"
    assert tracebacks.fold([CELL_FRAME, error], PLACES)[-1] == (
        "FileNotFoundError: [Errno 2] No such file or directory: 'experiments/25-B/run-1/result.json'"
    )


# --- in a real IPython shell set up as the book's kernel


GUARD = 'import execbook.kernel as _book\n_book.check("theory02_inequality")'  # as execbook.pages adds it


@pytest.fixture
def shell(tmp_path, monkeypatch):
    """An IPython shell (IPython's InteractiveShell, as ipykernel's is) with execbook.kernel installed;
    `shell.errors` collects the structured tracebacks of the error outputs it shows."""
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # install replaces it
    monkeypatch.delenv("BOOK_STORE", raising=False)  # the guards' outcomes: this test's only
    monkeypatch.setattr(store, "_memory", {})
    monkeypatch.setattr(kernel, "outcomes", {})
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    instance = InteractiveShell.instance(config=config)
    instance.errors = []
    shown = instance._showtraceback
    instance._showtraceback = lambda etype, value, stb: (instance.errors.append(stb), shown(etype, value, stb))
    kernel.install(instance)
    yield instance
    InteractiveShell.clear_instance()
    kernel.remember_error(None)


def test_a_raising_example_in_the_kernel_shows_a_brief_error_and_the_guard_still_judges_it(shell):
    source = (REPO / "examples" / "theory02_inequality.py").read_text("utf-8")
    result = shell.run_cell(source, store_history=True)
    assert isinstance(result.error_in_exec, RuntimeError)
    [stb] = shell.errors
    text = "\n".join(stb)
    assert not MACHINE_PATH.search(text) and str(REPO) not in text and sys.prefix not in text
    raising = next(n for n, line in enumerate(source.splitlines(), 1) if line.startswith("y.sum().backward()"))
    assert re.search(rf"^Cell In\[\d+\], line {raising}$", text, re.M)
    assert f"---> {raising} y.sum().backward()" in text
    assert re.search(r"^\[\d+ frames in torch left out\]$", text, re.M)
    assert stb[-1].startswith("RuntimeError: one of the variables needed for gradient computation")
    guard = shell.run_cell(GUARD, store_history=True)
    assert guard.error_in_exec is None and guard.result.ok


@pytest.mark.parametrize("home", ["elsewhere", "above the checkout"])
def test_a_guard_that_fails_fails_its_cell_with_a_brief_traceback(shell, monkeypatch, tmp_path, home):
    # IPython names a file under the home folder "~/...": the checkout in root's home is still the project
    monkeypatch.setenv("HOME", str(tmp_path if home == "elsewhere" else REPO.parent))
    shell.run_cell("x = 1", store_history=True)  # completes, where the manifest says it raises
    guard = shell.run_cell(GUARD, store_history=True)
    assert isinstance(guard.error_in_exec, AssertionError)
    text = "\n".join(shell.errors[-1])
    assert "File execbook/src/execbook/kernel.py:" in text and not MACHINE_PATH.search(text) and str(REPO) not in text


def test_warnings_in_the_kernel_name_the_cell_and_no_machine_path(shell, capsys):
    shell.run_cell("import warnings\nwarnings.warn('careful')", store_history=True)
    cell = shell.execution_count - 1
    assert capsys.readouterr().err == f"Cell In[{cell}]:2: UserWarning: careful\n  warnings.warn('careful')\n"
    shell.run_cell(
        "import torch\n"
        "a = torch.ones(3, requires_grad=True)\n"
        "with torch.autograd.set_detect_anomaly(True):\n"
        "    y = a.exp()\n"
        "    y.add_(1)\n"
        "    y.sum().backward()",
        store_history=True,
    )
    err = capsys.readouterr().err
    assert err.startswith("UserWarning: Error detected in ExpBackward0.")
    assert f"  Cell In[{shell.execution_count - 1}], line 4, in <module>\n    y = a.exp()" in err
    assert "(Triggered internally at torch/csrc/autograd/python_anomaly_mode.cpp:" in err
    assert not MACHINE_PATH.search(err) and str(REPO) not in err


def test_a_syntax_error_keeps_ipythons_own_report(shell):
    result = shell.run_cell("def f(:\n    pass", store_history=True)
    assert isinstance(result.error_in_exec or result.error_before_exec, SyntaxError)


def test_a_chained_exception_in_the_kernel_shows_both_with_pythons_words(shell):
    source = "try:\n    int('x')\nexcept ValueError as inner:\n    raise KeyError('outer') from inner"
    assert isinstance(shell.run_cell(source, store_history=True).error_in_exec, KeyError)
    text = "\n".join(shell.errors[-1])
    cause = "The above exception was the direct cause of the following exception:"
    assert text.index("ValueError: invalid literal") < text.index(cause) < text.index("KeyError: 'outer'")
    assert not MACHINE_PATH.search(text) and str(REPO) not in text
