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

from execbook import glue, glue_by_value

# What anomaly mode costs, on one thread, as the median of nine interleaved ratios. It moves with
# the machine and its load (medians of 4.5 to 4.7 on an idle 2-core machine, above 10 when other
# builds share it; anomaly mode formats a stack at every op), so the page gives the band of the
# median, wide enough that two builds publish the same words, and says where and how it was measured.
model_a = build_model(model_config(data), seed=0)


def fastest(anomaly, repeats=3):
    times = []
    for _ in range(repeats):
        with torch.autograd.set_detect_anomaly(anomaly):
            start = time.perf_counter()
            model_a(x, y)[1].backward()
            times.append(time.perf_counter() - start)
    return min(times)


TRIALS = 9
threads = torch.get_num_threads()
torch.set_num_threads(1)
fastest(False, 1)  # warm up
ratios = [fastest(True) / fastest(False) for _ in range(TRIALS)]
measured_threads = torch.get_num_threads()
torch.set_num_threads(threads)
ratio = statistics.median(ratios)
BANDS = [
    (1.5, {"es": "apenas más lenta", "en": "barely slower"}, 0),
    (3, {"es": "menos de tres veces más lenta", "en": "less than three times slower"}, 1.5),
    (30, {"es": "entre tres y treinta veces más lenta", "en": "between three and thirty times slower"}, 3),
    (math.inf, {"es": "treinta veces más lenta o más", "en": "thirty times slower or more"}, 30),
]
words = glue_by_value("anomaly_cost", ratio, [(upper, words) for upper, words, _ in BANDS])
low, high = next((lower, upper) for upper, band, lower in BANDS if band == words)
assert low <= ratio < high, "the page says the median ratio lies in the band its words name"
assert measured_threads == 1, "the page says the cost was measured on one thread"
glue("anomaly_threads", measured_threads)
glue("anomaly_trials", TRIALS)
