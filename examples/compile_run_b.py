# Run B under torch.compile, with each backend that runs on a CPU.
import textwrap
import warnings

import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
raised, warned = {}, {}  # backend -> (where, the error); backend -> warning texts
for backend in ("eager", "aot_eager", "inductor"):
    torch._dynamo.reset()  # forget what the previous backend compiled
    model = torch.compile(build_model(model_config(data, inplace=True), seed=0), backend=backend)
    where = "first call"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _, loss = model(x, y)  # compiles on this first call
            where = "backward()"
            loss.backward()
        except Exception as error:
            raised[backend] = (where, error)
    warned[backend] = [str(w.message).split(".")[0] for w in caught]
    where, error = raised.get(backend, ("-", "no error"))
    print(f"{backend}: {type(error).__name__} at {where}")
    print(textwrap.indent(textwrap.shorten(str(error), 90), "    "))
    print(f"    warnings: {warned[backend]}")
