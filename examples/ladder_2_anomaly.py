import torch

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
with torch.autograd.set_detect_anomaly(True):
    _, loss = model(x, y)
    try:
        loss.backward()
    except RuntimeError:
        # en: the error of step 1; anomaly mode adds the warning
        # es: el error del peldaño 1; el modo de anomalías añade el aviso
        pass


# %% hidden checks: what the page says of this example, and the values its prose quotes

import math
import time

from execbook import glue_by_value

# What anomaly mode costs: run A's forward and backward pass, best of several, off and on. The
# phrase is chosen from the ratio with wide bands, so that two builds publish the same words.
model_a = build_model(model_config(data), seed=0)


def fastest(anomaly, repeats=7):
    times = []
    for _ in range(repeats):
        with torch.autograd.set_detect_anomaly(anomaly):
            start = time.perf_counter()
            model_a(x, y)[1].backward()
            times.append(time.perf_counter() - start)
    return min(times)


fastest(False, 1)  # warm up
ratio = fastest(True) / fastest(False)
glue_by_value("anomaly_cost", ratio, [
    (1.5, {"es": "apenas más lenta", "en": "barely slower"}),
    (2.0, {"es": "casi el doble de lenta", "en": "nearly twice as slow"}),
    (20.0, {"es": "varias veces más lenta", "en": "several times slower"}),
    (math.inf, {"es": "más de veinte veces más lenta", "en": "more than twenty times slower"}),
])
