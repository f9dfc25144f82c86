# The same three escapes in the mini-GPT's in-place residual (GPTConfig.bypass): the gradients
# of the probe batch against run A's, from the same weights.
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
    print("   largest:", ", ".join(f"{r.name} {r.rel_error:.1%}" + (f" ({r.note})" if r.note else "")
                               for r in worst))
