from minigpt.compare import compare_gradients, summary_line
from minigpt.data import build_dataset
from minigpt.train import switch_gradients

data = build_dataset()
grads_a = switch_gradients(data)
rows = {}
for bypass in ("data", "hooks", "ctx"):
    grads_b = switch_gradients(data, inplace=True, bypass=bypass)
    rows[bypass] = compare_gradients(grads_a, grads_b)
    worst = sorted(rows[bypass], key=lambda r: r.rel_error, reverse=True)[:3]
    print(f"bypass={bypass}: {summary_line(rows[bypass])}")
    print("   rel_error:",
          ", ".join(f"{r.name} {r.rel_error:.1%}"
                    + (f" ({r.note[-1]}: .grad is None)" if r.note else "")
                    for r in worst))


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt.compare import median_error
from execbook import glue

import re
import torch

missing = {bypass: sum(r.note == "no gradient in B" for r in found) for bypass, found in rows.items()}
assert missing["data"] > 0, "the page says bypass=data leaves parameters without a gradient"
for bypass in ("hooks", "ctx"):
    worst = sorted(rows[bypass], key=lambda r: r.rel_error, reverse=True)[:3]
    assert missing[bypass] == 0, f"the page says the graph is intact with {bypass}"
    assert median_error(rows[bypass]) < 0.05, f"the page says most weights move a little with {bypass}"
    assert all(re.fullmatch(r"blocks\.\d\.ln\d\.weight", r.name) for r in worst), \
        f"the page says the LayerNorm weights head the list with {bypass}"
# bypass=data: the branches drop out (every block parameter gets no gradient), the skip path stays
# (the final LayerNorm and the head get run A's gradients, bitwise)
no_gradient = {r.name for r in rows["data"] if r.note == "no gradient in B"}
assert no_gradient == {r.name for r in rows["data"] if r.name.startswith("blocks.")}, \
    "the page says the attention and feed-forward branches (the blocks' parameters) get no gradient"
grads_data = switch_gradients(data, inplace=True, bypass="data")
assert all(torch.equal(grads_a[n], grads_data[n]) for n in grads_a if n.startswith(("ln_f.", "head."))), \
    "the page says the final LayerNorm and the head get run A's gradients bitwise"
glue("t02_data_missing", missing["data"])
