# Anomaly detection off, then on: does turning it off make run B silent?
import re

import torch
from myst_nb import glue

from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config, try_backward

MESSAGE = re.compile(
    r"\[torch\.(?P<type>\w+) \[(?P<shape>[\d, ]+)\]\], "
    r"which is output (?P<output>\d+) of (?P<node>\w+), "
    r"is at version (?P<now>\d+); expected version (?P<saved>\d+) instead\. "
    r"Hint: (?P<hint>.*)$", re.S)

data = build_dataset()
x, y = probe_batch(data)


def run_b(anomaly):
    """(error message or None, warning texts): one forward + backward of B."""
    failure = try_backward(build_model(model_config(data, inplace=True), seed=0), x, y, anomaly)
    return (failure.error, failure.warnings) if failure else (None, [])


runs = {}
for anomaly in (False, True):
    error, texts = run_b(anomaly)
    parsed = MESSAGE.search(error).groupdict() if error else {}
    runs[anomaly] = {"error": error, "parsed": parsed, "warnings": texts}
    print(f"detect_anomaly={anomaly}: backward raised: {error is not None}; "
          f"forward-traceback warnings: {len(texts)}")

off, on = runs[False], runs[True]


def core(run):
    return run["error"].split(" Hint: ")[0]


print("message identical up to 'Hint:':", core(off) == core(on))
print("Hint, anomaly off:", off["parsed"]["hint"])
print("Hint, anomaly on: ", on["parsed"]["hint"])
failing = re.search(r"Error detected in (\w+)\.", on["warnings"][0]).group(1)
print("node named by the anomaly warning:", failing)

# The page says: both raise, the same message up to a different hint, and
# only anomaly mode warns.
assert off["error"] and on["error"] and core(off) == core(on)
assert off["parsed"]["hint"] != on["parsed"]["hint"]
assert not off["warnings"] and on["warnings"]

glue("torch_version", torch.__version__, display=False)
glue("hint_off", off["parsed"]["hint"], display=False)
glue("hint_on", on["parsed"]["hint"], display=False)
glue("msg_version_now", off["parsed"]["now"], display=False)
glue("msg_version_saved", off["parsed"]["saved"], display=False)
glue("failing_node", failing, display=False)
