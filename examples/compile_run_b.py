import textwrap
import warnings

import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
# en: backend -> (where, the error); backend -> warning texts
# es: backend -> (dónde, el error); backend -> textos de los avisos
raised, warned = {}, {}
for backend in ("eager", "aot_eager", "inductor"):
    # en: forget what the previous backend compiled
    # es: olvida lo que compiló el backend anterior
    torch._dynamo.reset()
    model = torch.compile(build_model(model_config(data, inplace=True), seed=0),
                          backend=backend)
    where = "model(x, y)"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            # en: it compiles on this first call
            # es: compila en esta primera llamada
            _, loss = model(x, y)
            where = "loss.backward()"
            loss.backward()
        except Exception as error:
            raised[backend] = (where, error)
    warned[backend] = [str(w.message).split(".")[0] for w in caught]
    where, error = raised.get(backend, ("-", "no error"))
    text, _, hint = str(error).partition("Hint: ")
    print(f"{backend}: {where} -> {type(error).__name__}")
    for line in (text, "Hint: " + hint.split("\n")[0]):
        print(textwrap.indent(textwrap.shorten(line, 72), "    "))
    print(f"    warnings: {warned[backend]}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt import message
from execbook import glue

from minigpt.experiments import run_b

assert set(raised) == {"eager", "aot_eager", "inductor"}, "the page says every backend raises"
where, eager = raised["eager"]
assert str(eager).partition("Hint: ")[2] == message.parts(run_b(False).error)["hint"], \
    "the cell shows eager's Hint as the one without anomaly mode"
assert where == "loss.backward()" and isinstance(eager, RuntimeError) and message.CORE in str(eager), \
    "the page says eager raises the version-counter RuntimeError at backward()"
hint_on = message.parts(run_b(True).error)["hint"]
for backend in ("aot_eager", "inductor"):
    where, wrapped = raised[backend]
    assert where == "model(x, y)" and type(wrapped).__name__ == "BackendCompilerFailed", \
        f"the page says {backend} fails while compiling, at the first call"
    inner = wrapped.inner_exception  # what the backend raised while compiling
    assert isinstance(inner, RuntimeError) and message.before_hint(str(inner)) == message.before_hint(str(eager)), \
        f"the page says {backend} wraps the same RuntimeError"
    assert message.parts(str(inner))["hint"] == hint_on, f"the page says {backend}'s message carries anomaly mode's hint"
    assert str(wrapped).partition("Hint: ")[2].split("\n")[0] == hint_on, \
        f"the cell shows {backend}'s Hint as anomaly mode's"
assert warned["eager"] == [], "the page says eager prints no anomaly-mode warning"
assert all(len(warned[b]) == 1 and warned[b][0].startswith("Error detected in") for b in ("aot_eager", "inductor")), \
    "the page says aot_eager and inductor each print anomaly mode's warning"
glue("compile_eager_error", type(eager).__name__)
glue("compile_aot_error", type(raised["aot_eager"][1]).__name__)

import torch._dynamo

backends = set(torch._dynamo.list_backends(exclude_tags=()))
assert {"tvm", "openxla", "cudagraphs"} <= backends and {"eager_debug", "aot_eager_decomp_partition"} <= backends, \
    "the page says the other backends are debugging and testing variants, and tvm, openxla and cudagraphs"
