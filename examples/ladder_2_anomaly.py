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
import statistics
import time

from execbook import glue_by_value

# What anomaly mode costs, on one thread, as the median of nine interleaved ratios. It still moves
# with the machine's load (4.5 to 20 here: anomaly mode formats a stack at every op), so it is
# rounded to its order of magnitude, and two builds publish the same words.
model_a = build_model(model_config(data), seed=0)


def fastest(anomaly, repeats=3):
    times = []
    for _ in range(repeats):
        with torch.autograd.set_detect_anomaly(anomaly):
            start = time.perf_counter()
            model_a(x, y)[1].backward()
            times.append(time.perf_counter() - start)
    return min(times)


threads = torch.get_num_threads()
torch.set_num_threads(1)
fastest(False, 1)  # warm up
ratio = statistics.median(fastest(True) / fastest(False) for _ in range(9))
torch.set_num_threads(threads)
glue_by_value("anomaly_cost", ratio, [
    (1.5, {"es": "apenas más lenta", "en": "barely slower"}),
    (math.sqrt(10), {"es": "unas pocas veces más lenta", "en": "a few times slower"}),
    (math.sqrt(1000), {"es": "unas diez veces más lenta", "en": "about ten times slower"}),
    (math.inf, {"es": "cien veces más lenta o más", "en": "a hundred times slower or more"}),
])
